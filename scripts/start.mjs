#!/usr/bin/env node
// `npm start`: the desktop app where Electron can run (electron-vite preview: build, then start it); elsewhere the
// same UI in the browser through `tidy serve` on 127.0.0.1, with one line saying why.
// Extra arguments go to `tidy serve` (npm start -- --port 8080), or to electron-vite preview.
// It builds once: again only when the build inputs changed (out/.build-stamp), or with --rebuild.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprint, needsBuild, writeStamp } from './build-stamp.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const electronVite = join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js');
const rebuild = process.argv.includes('--rebuild');
const args = process.argv.slice(2).filter((a) => a !== '--rebuild');

/**
 * Why Electron cannot run here, or null when it can. require('electron') is no test: with the binary
 * missing it tries to download it (and throws); so look for the file it would start instead.
 */
function whyNoElectron() {
  let dir;
  try {
    dir = dirname(require.resolve('electron/package.json'));
  } catch {
    return 'the electron package is not installed';
  }
  const pathFile = join(dir, 'path.txt');
  const exe = existsSync(pathFile) ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH || join(dir, 'dist'), readFileSync(pathFile, 'utf8').trim()) : null;
  if (!exe || !existsSync(exe)) return "Electron's binary is not installed (npm could not download it into node_modules/electron/dist)";
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return 'there is no display to open a window on (neither DISPLAY nor WAYLAND_DISPLAY is set)';
  return null;
}

function run(file, argv) {
  const r = spawnSync(process.execPath, [file, ...argv], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

const onPath = (cmd) => (process.env.PATH ?? '').split(delimiter).some((d) => d && existsSync(join(d, cmd)));

/** Opens the URL in the default browser; false when there is no way to. */
function openBrowser(url) {
  const [cmd, argv] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', url]] : ['xdg-open', [url]];
  if (process.platform === 'linux' && !onPath('xdg-open')) return Promise.resolve(false);
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { stdio: 'ignore', detached: true, windowsVerbatimArguments: process.platform === 'win32' });
    child.once('error', () => resolve(false));
    child.once('exit', (code) => resolve(code === 0));
    child.unref();
  });
}

/** Builds the app and the CLI when the stamp says so; says why in one line, or nothing when the build is current. */
function buildIfNeeded() {
  const reason = needsBuild(root, { rebuild });
  if (reason === null) return;
  const inputs = fingerprint(root);
  console.log(`Tidy: building (${reason}) …`);
  run(electronVite, ['build', '--logLevel', 'warn']);
  run(join(root, 'scripts', 'build-cli.mjs'), []);
  writeStamp(root, inputs);
}

const why = whyNoElectron();
buildIfNeeded();
if (why === null) {
  run(electronVite, ['preview', '--skipBuild', ...args]);
  process.exit(0);
}

console.log(`Tidy: ${why}, so Tidy opens in your browser instead, through \`tidy serve\` on 127.0.0.1.`);

const server = spawn(process.execPath, [join(root, 'bin', 'tidy.mjs'), 'serve', ...args], { cwd: root, stdio: ['inherit', 'pipe', 'inherit'] });
let opened = false;
server.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  const url = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(String(chunk))?.[0];
  if (!url || opened) return;
  opened = true;
  void openBrowser(url).then((ok) => {
    if (!ok) console.log('Tidy: no browser could be opened from here; open the URL above in a browser on this computer.');
  });
});
// Ctrl+C reaches the server too (same process group); it stops cleanly and so do we.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => server.kill('SIGTERM'));
server.on('exit', (code) => process.exit(code ?? 0));
