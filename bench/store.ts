// Store and action-log benchmark: bulk capture, log reads and undo at scale, CLI cold start.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addTask, listActions, moveTask, createProject, newUserRequest, openDatabase, undoRequest } from '../src-main/core';
import { median, report, time } from './util';

const REPO = join(import.meta.dirname, '..');

export async function benchStore(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-'));
  try {
    const db = openDatabase(join(dir, 'bench.db'));
    console.log('Store and action log');

    const single = await median(200, () => addTask(db, newUserRequest(db), { content: 'one logged capture' }));
    report('one logged change (own transaction, fsync)', single, 'ms');

    // A thousand adds into the inbox, in one transaction: their time must not grow with the inbox.
    const thousand = () =>
      time(() =>
        db.transaction(() => {
          for (let i = 0; i < 1000; i++) addTask(db, newUserRequest(db), { content: `one more task ${i}` });
        })(),
      );
    const early = await thousand();
    const bulk = await time(() =>
      db.transaction(() => {
        for (let i = 0; i < 100_000; i++) addTask(db, newUserRequest(db), { content: `task number ${i}` });
      })(),
    );
    report('insert 100k tasks through the domain API (logged)', bulk, 'ms');
    const late = await thousand();
    report('  1,000 adds to an inbox of 100k tasks, against the same to a near-empty one', late / early, '×', { max: 1.5, label: '1.5×' });

    // Grow the log to 1M rows (synthetic rows: what matters is the size of the table and its index).
    const have = (db.prepare(`SELECT count(*) AS n FROM actions`).get() as { n: number }).n;
    const fill = await time(() =>
      db.exec(`
        WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${1_000_000 - have})
        INSERT INTO actions (id, request_id, source, tool, args, changes, summary, created_at)
        SELECT 'b' || x, 'rb' || (x / 10), 'agent', 'update_task', '{}', '[]', 'Updated a task', '2026-01-01T00:00:00.000Z' FROM c;
        INSERT INTO action_entities (entity, action_seq) SELECT 'tasks:t' || (seq % 100000 + 1), seq FROM actions WHERE id LIKE 'b%';
      `),
    );
    const total = (db.prepare(`SELECT count(*) AS n FROM actions`).get() as { n: number }).n;
    report(`grow the action log to ${total.toLocaleString('en')} rows`, fill, 'ms');

    const newest = await median(50, () => listActions(db, { limit: 100 }));
    report('read the newest 100 log entries (1M rows)', newest, 'ms', { max: 20, label: '20 ms' });

    const p = createProject(db, newUserRequest(db), { name: 'Bench' });
    if (!p.ok) throw new Error(p.error);
    const ids = (db.prepare(`SELECT id FROM tasks ORDER BY rowid DESC LIMIT 1000`).all() as { id: string }[]).map((r) => r.id);
    db.transaction(() => {
      for (const id of ids) moveTask(db, { requestId: 'rbench', source: 'agent' }, { task: id, project: p.value.id });
    })();
    const undo = await time(() => {
      const r = undoRequest(db, 'rbench', { ctx: newUserRequest(db) });
      if (!r.ok || r.value.reversed.length !== 1000) throw new Error('undo of the bench run failed');
    });
    report('undo a 1,000-action run (1M-row log)', undo, 'ms', { max: 200, label: '200 ms' });
    db.close();

    // CLI cold start on a small database (the figure is start-up, not printing 100k lines).
    const small = join(dir, 'small.db');
    const sdb = openDatabase(small);
    for (let i = 0; i < 20; i++) addTask(sdb, newUserRequest(sdb), { content: `task ${i}` });
    sdb.close();
    const run = (args: string[]) => {
      const r = spawnSync(process.execPath, args, { cwd: REPO, stdio: 'ignore' });
      if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}`);
    };
    const node = await median(15, () => run(['-e', '0']));
    const cli = await median(15, () => run([join(REPO, 'bin/tidy.mjs'), '--db', small, 'tasks']));
    report('node -e 0', node, 'ms');
    report('tidy tasks (cold start, 20 tasks)', cli, 'ms');
    report('cold start ratio tidy tasks / node -e 0', cli / node, '×', { max: 3, label: '3×' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
