#!/usr/bin/env node
// The `tidy` command. The CLI is bundled by `npm install` (prepare) or `npm run build:cli` into out/cli.
import { existsSync } from 'node:fs';
import module from 'node:module';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../out/cli/tidy.mjs', import.meta.url));
if (!existsSync(bundle)) {
  process.stderr.write('tidy: the CLI is not built yet; run `npm install` or `npm run build:cli` in the Tidy folder\n');
  process.exit(1);
}
// Node 22+ keeps V8's compiled code of the bundle between runs (in the OS temp folder); Node 20 has no
// such API and compiles the (small) start of the bundle each time.
module.enableCompileCache?.();
await import(bundle);
