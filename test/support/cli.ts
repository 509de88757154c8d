import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { join } from 'node:path';

export const REPO = join(import.meta.dirname, '..', '..');
export const TIDY_BIN = join(REPO, 'bin', 'tidy.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real `tidy` command as a child process against the given database. */
export function tidy(db: string, args: string[], options: SpawnSyncOptions & { input?: string } = {}): CliResult {
  const env = { ...process.env, ...options.env };
  delete env['TIDY_DB'];
  const r = spawnSync(process.execPath, [TIDY_BIN, '--db', db, ...args], { encoding: 'utf8', timeout: 30_000, ...options, env });
  return { code: r.status ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) };
}
