#!/usr/bin/env node
// Builds a native module (better-sqlite3) for another ABI into a file of its own, leaving the Node build
// in node_modules untouched (tests and the CLI keep using it). The Electron app runs this on its first
// start (src-main/app/native.ts) and hands the result to better-sqlite3's `nativeBinding` option.
//
//   node scripts/build-native.mjs --module better-sqlite3 --electron 45.4.1 --out <dir>/better_sqlite3.node
//   node scripts/build-native.mjs --module better-sqlite3 --node --out <file>     (this Node; to check the pipeline)
//
// First it tries the module's prebuilt binary for that runtime (prebuild-install, a download from the
// module's GitHub releases); failing that it compiles with node-gyp against the runtime's headers
// (Electron's from https://electronjs.org/headers; needs Python and a C++ compiler).
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values: o } = parseArgs({
  options: { module: { type: 'string', default: 'better-sqlite3' }, electron: { type: 'string' }, node: { type: 'boolean' }, out: { type: 'string' } },
});
const fail = (line) => {
  process.stderr.write(`build-native: ${line}\n`);
  process.exit(1);
};
if (!o.out || (!o.electron) === !o.node) fail('usage: build-native.mjs --module NAME (--electron VERSION | --node) --out FILE.node');

const require = createRequire(import.meta.url);
const pkgDir = dirname(require.resolve(`${o.module}/package.json`));
const { name, version } = JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8'));
const runtime = o.electron ? ['electron', o.electron] : ['node', process.versions.node];
const addon = `${name.replace(/-/g, '_')}.node`;
console.log(`build-native: ${name} ${version} for ${runtime.join(' ')} (${process.platform}-${process.arch})`);

// Work on a copy without its build folder, so node_modules/<module>/build (the Node binary) is never touched.
const work = mkdtempSync(join(tmpdir(), 'tidy-native-'));
const src = join(work, basename(pkgDir));
try {
  cpSync(pkgDir, src, { recursive: true, filter: (p) => !['build', 'node_modules'].includes(basename(p)) || dirname(p) !== pkgDir });
  const run = (cmd, args) => spawnSync(cmd, args, { cwd: src, stdio: 'inherit', shell: process.platform === 'win32' }).status === 0;
  const prebuild = join(dirname(require.resolve('prebuild-install/package.json')), 'bin.js');
  const target = ['--runtime', runtime[0], '--target', runtime[1], '--arch', process.arch, '--platform', process.platform];
  const built = join(src, 'build', 'Release', addon);

  let ok = o.electron !== undefined && run(process.execPath, [prebuild, ...target, '--verbose']) && existsSync(built);
  if (!ok) {
    console.log(o.electron ? 'build-native: no prebuilt binary; compiling with node-gyp' : 'build-native: compiling with node-gyp');
    const gypArgs = ['rebuild', '--release', `--target=${runtime[1]}`, `--arch=${process.arch}`];
    if (o.electron) gypArgs.push('--runtime=electron', '--dist-url=https://electronjs.org/headers');
    // npm ships node-gyp; outside npm, npx fetches it.
    const gyp = process.env.npm_config_node_gyp;
    ok = (gyp ? run(process.execPath, [gyp, ...gypArgs]) : run('npx', ['--yes', 'node-gyp', ...gypArgs])) && existsSync(built);
  }
  if (!ok) fail(`could not get ${addon} for ${runtime.join(' ')}; see the output above`);

  const out = resolve(o.out);
  mkdirSync(dirname(out), { recursive: true });
  // Copy then rename, so a half-written file is never taken for a finished one.
  copyFileSync(built, `${out}.partial`);
  renameSync(`${out}.partial`, out);
  console.log(`build-native: wrote ${out}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
