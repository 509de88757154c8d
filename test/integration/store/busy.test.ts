// A long-lived host (the app, tidy serve) waits for another process's write lock without blocking its
// event loop: short busy timeout, retries on a timer (issue 28, smaller: domain writes blocked up to 5 s).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { listTasks, openDatabase } from '../../../src-main/core';
import { createLiveRuns } from '../../../src-main/core/agent';
import { createHost, HOST_BUSY_TIMEOUT_MS } from '../../../src-main/host';
import { createDispatch } from '../../../src-main/host/dispatch';
import { createHandlers } from '../../../src-main/host/handlers';
import { createEventHub } from '../../../src-main/host/hub';
import { REPO } from '../../support/cli';
import { tempDir } from '../../support/db';
import { testDeps } from '../../support/host';

/** Another process that takes the write lock and keeps it until told to let go on stdin. */
function lockHolder(db: string): Promise<{ release: () => Promise<void> }> {
  const script = `const D = require('better-sqlite3'); const db = new D(${JSON.stringify(db)}); db.exec('BEGIN IMMEDIATE'); console.log('locked');
process.stdin.once('data', () => { db.exec('COMMIT'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', script], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
    child.stdout.on('data', (d: Buffer) => {
      if (!d.toString().includes('locked')) return;
      resolve({
        release: () =>
          new Promise<void>((done) => {
            child.removeAllListeners('exit');
            child.once('exit', () => done());
            child.stdin.write('go\n');
          }),
      });
    });
  });
}

describe('a write while another process holds the write lock', () => {
  it(
    'waits without blocking the event loop, then succeeds once the lock is let go',
    async () => {
      const path = join(tempDir(), 'tidy.db');
      const db = openDatabase(path, { busyTimeoutMs: HOST_BUSY_TIMEOUT_MS });
      onTestFinished(() => {
        db.close();
      });
      const host = createHost(testDeps(db), { watchMs: 0 });
      onTestFinished(() => host.close());

      const holder = await lockHolder(path);
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 10);
      onTestFinished(() => clearInterval(ticker));
      const reply = host.dispatch('tasks.add', { content: 'Written while busy' });
      // The loop keeps ticking while the write waits (with a blocking 5 s busy timeout it froze).
      await expect.poll(() => ticks, { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(20);
      await holder.release();
      const r = await reply;
      expect(r).toMatchObject({ ok: true });
      expect(listTasks(db, {}).tasks.map((t) => t.content)).toContain('Written while busy');
    },
    120_000,
  );

  it(
    'gives up in one line after its retries, having changed nothing',
    async () => {
      const path = join(tempDir(), 'tidy.db');
      const db = openDatabase(path, { busyTimeoutMs: HOST_BUSY_TIMEOUT_MS });
      onTestFinished(() => {
        db.close();
      });
      const hub = createEventHub();
      const dispatch = createDispatch(createHandlers({ ...testDeps(db), hub, live: createLiveRuns() }), hub, { busyRetryMs: [5, 5, 5] });
      const holder = await lockHolder(path);
      const r = await dispatch('tasks.add', { content: 'Never written' });
      await holder.release();
      expect(r).toMatchObject({ ok: false, error: expect.stringMatching(/^the database is busy: another program has been writing to it .*; nothing was changed$/) });
      expect(listTasks(db, {}).tasks.map((t) => t.content)).not.toContain('Never written');
    },
    120_000,
  );
});
