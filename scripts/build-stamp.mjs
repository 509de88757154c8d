// The build stamp of `npm start`: a fingerprint of everything the build reads, kept in out/.build-stamp,
// so the app is built once and again only when a source (or the build's configuration or dependencies)
// changed. Plain Node, no dependencies: test/unit/project/build-stamp.test.ts runs it directly.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** The folders whose files the build reads, and the single files that steer it. */
export const INPUT_DIRS = ['src-main', 'src-preload', 'src-renderer', 'src-shared'];
export const INPUT_FILES = ['package.json', 'package-lock.json', 'electron.vite.config.ts', 'tsconfig.base.json', 'tsconfig.node.json', 'tsconfig.web.json', 'scripts/build-cli.mjs'];
export const STAMP = join('out', '.build-stamp');
/** What the build writes; a stamp without them is no build. */
export const OUTPUTS = [join('out', 'main', 'index.js'), join('out', 'renderer', 'index.html'), join('out', 'cli', 'tidy.mjs')];

function* walk(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* walk(path);
    else if (e.isFile()) yield path;
  }
}

/**
 * The fingerprint of the build inputs under `root`: every input file's path and content (not its time,
 * so a checkout or a touch that changes nothing does not rebuild), and the Node version.
 */
export function fingerprint(root) {
  const hash = createHash('sha256');
  hash.update(`node ${process.versions.node}\n`);
  const files = [...INPUT_DIRS.flatMap((d) => [...walk(join(root, d))]), ...INPUT_FILES.map((f) => join(root, f)).filter((f) => existsSync(f) && statSync(f).isFile())];
  for (const file of files) {
    hash.update(`${relative(root, file).split(sep).join('/')}\0`);
    hash.update(readFileSync(file));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Whether `npm start` must build: with --rebuild, without a stamp, when an output is missing, or when the
 * inputs changed since the stamp was written. Returns the reason in words, or null when the build is current.
 */
export function needsBuild(root, { rebuild = false } = {}) {
  if (rebuild) return '--rebuild asked for it';
  const stampPath = join(root, STAMP);
  if (!existsSync(stampPath)) return 'there is no build yet';
  const missing = OUTPUTS.find((f) => !existsSync(join(root, f)));
  if (missing) return `${missing.split(sep).join('/')} is missing`;
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampPath, 'utf8'));
  } catch {
    return 'the build stamp is unreadable';
  }
  if (typeof stamp !== 'object' || stamp === null || typeof stamp.inputs !== 'string') return 'the build stamp is unreadable';
  return stamp.inputs === fingerprint(root) ? null : 'sources changed since the last build';
}

/**
 * Records that the build under `root` is of `inputs`: the fingerprint taken before the build started (a
 * source saved while it ran then still counts as changed). Call after a build that succeeded.
 */
export function writeStamp(root, inputs = fingerprint(root)) {
  const stampPath = join(root, STAMP);
  mkdirSync(dirname(stampPath), { recursive: true });
  writeFileSync(stampPath, `${JSON.stringify({ inputs, builtAt: new Date().toISOString() })}\n`);
}
