/**
 * Builds the renderer bundle (out/renderer) once for all end-to-end test files: they run in parallel
 * processes, and two builds at once would empty the folder under a server that is serving it. A lock
 * directory serialises them; a build newer than every source file is reused.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO } from './cli';

const SOURCES = ['src-renderer', 'src-shared', 'src-preload', 'src-main', 'electron.vite.config.ts', 'package.json'];
const BUILT = join(REPO, 'out', 'renderer', 'index.html');
const LOCK = join(REPO, 'out', '.renderer-build.lock');

function newest(path: string): number {
  const s = statSync(path, { throwIfNoEntry: false });
  if (!s) return 0;
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name))));
}

const fresh = (): boolean => {
  const built = statSync(BUILT, { throwIfNoEntry: false })?.mtimeMs ?? 0;
  return built > Math.max(...SOURCES.map((p) => newest(join(REPO, p))));
};

export async function buildRendererOnce(timeoutMs = 120_000): Promise<void> {
  mkdirSync(join(REPO, 'out'), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  // Wait for the lock: another test file may be building right now (a stale lock from a killed run expires).
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      const age = Date.now() - (statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > timeoutMs) rmSync(LOCK, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`the renderer build lock ${LOCK} was held for too long`);
      else await sleep(200);
    }
  }
  try {
    if (!fresh()) execFileSync(process.execPath, [join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: REPO, stdio: 'ignore' });
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

/** Chromium flags for the end-to-end tests: headless, no network of its own, nothing in the background. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
