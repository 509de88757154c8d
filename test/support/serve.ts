/** `tidy serve` as a child process for end-to-end tests: started on a free port, its printed URL read back. */
import { spawn, type ChildProcess } from 'node:child_process';
import { openDatabase } from '../../src-main/core';
import { writeSetting } from '../../src-main/core/settings';
import { SEED_INBOX, seedInbox } from './agent';
import { TIDY_BIN } from './cli';

export interface Served {
  /** The URL with the access token, as printed. */
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function startServe(dbPath: string, env: NodeJS.ProcessEnv = process.env): Promise<Served> {
  const child = spawn(process.execPath, [TIDY_BIN, '--db', dbPath, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  return new Promise((resolve, reject) => {
    let out = '';
    const onExit = (code: number | null) => reject(new Error(`tidy serve exited (${code}): ${out}`));
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(out);
      if (!m) return;
      child.off('exit', onExit);
      resolve({
        url: m[0],
        process: child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/**
 * A database at `dbPath` holding the seed inbox, set to talk to the fake model at `fakeUrl`: what every
 * end-to-end test starts from. Returns the task ids by content.
 */
export function seedForFake(dbPath: string, fakeUrl: string): Map<string, string> {
  const db = openDatabase(dbPath);
  const ids = new Map(seedInbox(db).map((id, i) => [SEED_INBOX[i]!, id]));
  db.close();
  useFakeModel(dbPath, fakeUrl);
  return ids;
}

/**
 * Points the database's settings at the fake model server, as `tidy config set baseUrl|model` does (the
 * same core call, in this process: the CLI's own tests cover the command).
 */
export function useFakeModel(dbPath: string, fakeUrl: string): void {
  const db = openDatabase(dbPath);
  try {
    for (const [key, value] of [
      ['baseUrl', fakeUrl],
      ['model', 'fake-model'],
    ] as const) {
      const r = writeSetting(db, key, value);
      if (!r.ok) throw new Error(`setting ${key}: ${r.error}`);
    }
  } finally {
    db.close();
  }
}
