// Bundles the `tidy` CLI (and the calculator worker) into out/cli so the command starts fast in plain Node.
// Native modules stay external: they are loaded from node_modules at run time.
import { build } from 'esbuild';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const entryPoints = { tidy: 'src-main/cli/main.ts' };
if (existsSync('src-main/sandbox/worker.ts')) entryPoints['calc-worker'] = 'src-main/sandbox/worker.ts';

/**
 * Tidy's own modules do nothing when merely imported (no module registers itself anywhere), so a module
 * none of whose exports a command uses is left out of that command's code — in particular a barrel
 * (`core/index.ts`) no longer drags every module it re-exports into the start of `tidy`.
 */
const ownModulesArePure = {
  name: 'own-modules-are-pure',
  setup(b) {
    b.onResolve({ filter: /^\./ }, async (args) => {
      if (args.pluginData === 'resolving' || !/[\\/]src-(main|shared)([\\/]|$)/.test(args.resolveDir)) return undefined;
      const r = await b.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: 'resolving' });
      if (r.errors.length > 0 || !/[\\/]src-(main|shared)[\\/].*\.ts$/.test(r.path)) return r;
      return { ...r, sideEffects: false };
    });
  },
};

/**
 * `import { z } from 'zod'` gives the bundler zod's whole namespace object (every locale, the JSON-schema
 * converters: 750 kB, parsed on every start); `import * as z from 'zod'` is the same API, and the bundler
 * keeps only the parts Tidy calls (about a fifth of it). Only the bundle is rewritten; the source keeps the
 * usual spelling.
 */
const zodNamespace = {
  name: 'zod-namespace',
  setup(b) {
    b.onLoad({ filter: /[\\/]src-(main|shared)[\\/].*\.ts$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes("import { z } from 'zod';")) return undefined;
      return { contents: source.replaceAll("import { z } from 'zod';", "import * as z from 'zod';"), loader: 'ts' };
    });
  },
};

const result = await build({
  entryPoints,
  outdir: 'out/cli',
  outExtension: { '.js': '.mjs' },
  // Modules loaded with import() (each group of commands, the model SDK, the web host) become chunks read
  // only when needed.
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  external: ['better-sqlite3', 'keytar', 'electron'],
  plugins: [ownModulesArePure, zodNamespace],
  // Bundled CommonJS dependencies still call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __tidyRequire } from 'node:module'; const require = __tidyRequire(import.meta.url);" },
  logLevel: 'warning',
  // TIDY_CLI_METAFILE=out.json: what each chunk holds, for finding what a command loads at start.
  metafile: Boolean(process.env.TIDY_CLI_METAFILE),
});
if (process.env.TIDY_CLI_METAFILE) writeFileSync(process.env.TIDY_CLI_METAFILE, JSON.stringify(result.metafile));
