// Bundles the `tidy` CLI (and the calculator worker) into out/cli so the command starts fast in plain Node.
// Native modules stay external: they are loaded from node_modules at run time.
import { build } from 'esbuild';
import { existsSync } from 'node:fs';

const entryPoints = { tidy: 'src-main/cli/main.ts' };
if (existsSync('src-main/sandbox/worker.ts')) entryPoints['calc-worker'] = 'src-main/sandbox/worker.ts';

await build({
  entryPoints,
  outdir: 'out/cli',
  outExtension: { '.js': '.mjs' },
  // Modules loaded with import() (the model SDK, the web host) become chunks read only when needed.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'keytar', 'electron'],
  // Bundled CommonJS dependencies still call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __tidyRequire } from 'node:module'; const require = __tidyRequire(import.meta.url);" },
  logLevel: 'warning',
});
