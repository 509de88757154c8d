// Sync wired into real databases: ids with a device part, migration 16, capture by triggers, apply per
// batch, setup and join through a folder, a wrong passphrase, a joiner with data of its own (and one that
// synced before, refused), undo of a remote change.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTask, completeTask, createProject, getActionRow, listActions, undoRequest, updateTask, type Db } from '../../../src-main/core';
import { searchAll } from '../../../src-main/core/domain/search';
import { resolveTaskRef } from '../../../src-main/cli/task-ref';
import { DomainError } from '../../../src-main/core/fail';
import { applyMessages } from '../../../src-main/core/sync/store-device';
import { disableSync, listDevices, runSync, setupSync, syncStatus, type TargetSpec } from '../../../src-main/core/sync/service';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { okValue, tempDb, tempDir, userCtx } from '../../support/db';
import type { RoundStep } from '../../../src-main/core/sync/round';
import { FAST_KDF } from './scenario';

const PASS = 'correct horse battery staple';

async function refusal(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a refusal');
}

const rows = (db: Db, table: string): unknown[] => db.prepare(`SELECT * FROM ${table} ORDER BY id`).all();
const log = (db: Db): unknown[] =>
  db.prepare(`SELECT id, request_id, source, tool, args, result, changes, summary, what, created_at, undone_at, undoes FROM actions ORDER BY id`).all();

describe('sync on real stores', () => {
  it('keeps ids as they are while sync is off, adds the device part once it is on, and a joining device gets the first one’s rows', async () => {
    const folder = tempDir();
    const spec: TargetSpec = { kind: 'folder', url: folder };
    const a = tempDb().db;
    const b = tempDb().db;
    const before = okValue(addTask(a, userCtx(a), { content: 'Dentist on Friday' }));
    expect(before.id).toBe('t1');
    const setup = await setupSync(a, spec, PASS, { name: 'Laptop', kdf: FAST_KDF });
    expect(setup.joined).toBe(false);
    const after = okValue(addTask(a, userCtx(a), { content: 'Buy a ring for Alice' }));
    expect(after.id).toBe(`t2.${setup.device.slice(0, 6)}`);
    // the command line takes the dotted id as a task id (not as words of a task)
    expect(resolveTaskRef(a, after.id)).toBe(after.id);

    // a wrong passphrase in one line
    expect((await refusal(setupSync(b, spec, 'wrong', { kdf: FAST_KDF }))).error).toBe('Wrong passphrase for this sync target.');
    const joined = await setupSync(b, spec, PASS, { name: 'Desktop', kdf: FAST_KDF });
    expect(joined.joined).toBe(true);

    const target = new FolderTarget(folder);
    const sentA = await runSync(a, setup.key, target);
    expect(sentA.sent).toBeGreaterThan(0);
    const gotB = await runSync(b, joined.key, target);
    expect(gotB.problems).toEqual([]);
    expect(gotB.rows['tasks']).toBe(2);
    expect(rows(b, 'tasks')).toEqual(rows(a, 'tasks'));
    expect(log(b)).toEqual(log(a));
    expect(listDevices(b).map((d) => d.name).sort()).toEqual(['Desktop', 'Laptop']);

    // B completes A's task, then undoes A's request that added the other: both are forward changes that reach A
    okValue(completeTask(b, userCtx(b), { task: 't1' }));
    const addRequest = (getActionRow(b, listActions(b).find((e) => e.tool === 'add_task' && e.summary.includes('ring'))!.id))!.request_id;
    expect(undoRequest(b, addRequest, { ctx: userCtx(b) }).ok).toBe(true);
    expect(b.prepare(`SELECT id FROM tasks WHERE id = ?`).get(after.id)).toBeUndefined();
    await runSync(b, joined.key, target);
    const gotA = await runSync(a, setup.key, target);
    expect(gotA.problems).toEqual([]);
    expect(rows(a, 'tasks')).toEqual(rows(b, 'tasks'));
    expect((a.prepare(`SELECT status FROM tasks WHERE id = 't1'`).get() as { status: string }).status).toBe('done');
    expect(log(a)).toEqual(log(b));
    // and A redoes it (undo of B's undo): back everywhere
    const undoer = listActions(a).find((e) => e.tool === 'undo' && e.undoneAt === null && e.requestId !== addRequest)!;
    expect(undoRequest(a, undoer.requestId, { ctx: userCtx(a) }).ok).toBe(true);
    await runSync(a, setup.key, target);
    await runSync(b, joined.key, target);
    expect(rows(b, 'tasks')).toEqual(rows(a, 'tasks'));
    expect(rows(b, 'tasks').length).toBe(2);
    // nothing received is echoed back: a round with nothing new sends nothing
    expect((await runSync(b, joined.key, target)).sent).toBe(0);

    // the target holds no plaintext of any task
    const files = readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const all = Buffer.concat(files.map((f) => readFileSync(join(f.parentPath, f.name)))).toString('latin1');
    for (const w of ['Dentist', 'Alice', 'ring']) expect(all).not.toContain(w);

    expect(syncStatus(a)).toMatchObject({ on: true, name: 'Laptop', outbox: 0, pending: 0, lastError: null });
    disableSync(a);
    expect(syncStatus(a)).toEqual({ on: false });
    expect(okValue(addTask(a, userCtx(a), { content: 'after' })).id).toMatch(/^t\d+$/);
    // a database that synced before cannot join with its data (its plain ids may be the target's rows), in one line with what to do
    const again = await refusal(setupSync(a, spec, PASS, { kdf: FAST_KDF }));
    expect(again.error).toMatch(/synced before/);
    expect(again.hint).toMatch(/empty database/);
    expect(syncStatus(a)).toEqual({ on: false });
  });

  it('an action sends its count of changes kept beside it only when it has some: a completed task is one message shorter, a large action’s count arrives', async () => {
    const folder = tempDir();
    const spec: TargetSpec = { kind: 'folder', url: folder };
    const target = new FolderTarget(folder);
    const a = tempDb().db;
    const b = tempDb().db;
    const setup = await setupSync(a, spec, PASS, { name: 'Laptop', kdf: FAST_KDF });
    const joined = await setupSync(b, spec, PASS, { name: 'Desktop', kdf: FAST_KDF });
    const task = okValue(addTask(a, userCtx(a), { content: 'Water the plants' }));
    await runSync(a, setup.key, target);
    okValue(completeTask(a, userCtx(a), { task: task.id }));
    const queued = (a.prepare(`SELECT tbl || '.' || col AS cell FROM sync_outbox ORDER BY rowid`).all() as { cell: string }[]).map((r) => r.cell);
    expect(queued).not.toContain('actions.spilled');
    expect(queued).toHaveLength(15);
    // a large action (its changes past the first ones kept beside it): the count goes with it
    const large = `a900.${setup.device.slice(0, 6)}`;
    a.prepare(
      `INSERT INTO actions (id, request_id, source, tool, args, result, changes, summary, what, created_at, undoes, spilled)
       SELECT ?, request_id, source, tool, args, result, changes, summary, what, created_at, undoes, 3 FROM actions ORDER BY seq DESC LIMIT 1`,
    ).run(large);
    expect(a.prepare(`SELECT value FROM sync_outbox WHERE row = ? AND col = 'spilled'`).all(large)).toEqual([{ value: 3 }]);
    await runSync(a, setup.key, target);
    expect((await runSync(b, joined.key, target)).problems).toEqual([]);
    const spilled = (db: Db): unknown[] => db.prepare(`SELECT id, spilled FROM actions ORDER BY id`).all();
    expect(spilled(b)).toEqual(spilled(a));
    expect(spilled(b)).toContainEqual({ id: large, spilled: 3 });
    expect(b.prepare(`SELECT COUNT(*) AS n FROM actions WHERE spilled = 0`).get()).toEqual({ n: 2 });
  });

  it('a device with data of its own joins: its ids take its device part, both sides end with the union, and its old requests undo everywhere', async () => {
    const folder = tempDir();
    const spec: TargetSpec = { kind: 'folder', url: folder };
    const target = new FolderTarget(folder);
    const a = tempDb().db;
    const b = tempDb().db;
    // each has its own projects and tasks (different names), made before sync: both start at t1, p1, a1, u1
    okValue(createProject(a, userCtx(a), { name: 'Work' }));
    const report = okValue(addTask(a, userCtx(a), { content: 'Write the report', project: 'Work', labels: ['urgent'] }));
    okValue(addTask(a, userCtx(a), { content: 'Ring the bank' }));
    okValue(createProject(b, userCtx(b), { name: 'Garden' }));
    const tulips = okValue(addTask(b, userCtx(b), { content: 'Plant the tulips', project: 'Garden', labels: ['spring'] }));
    okValue(addTask(b, userCtx(b), { content: 'Prune the roses', project: 'Garden', parent: tulips.id, description: 'before **March**' }));
    const inbox = okValue(addTask(b, userCtx(b), { content: 'Call the plumber' }));
    expect([report.id, tulips.id]).toEqual(['t1', 't1']);
    const bRequest = getActionRow(b, listActions(b).find((e) => e.tool === 'add_task' && e.summary.startsWith("Added 'Plant the tulips'"))!.id)!.request_id;

    const setup = await setupSync(a, spec, PASS, { name: 'Laptop', kdf: FAST_KDF });
    await runSync(a, setup.key, target);
    const joined = await setupSync(b, spec, PASS, { name: 'Desktop', kdf: FAST_KDF });
    expect(joined.joined).toBe(true);
    const part = joined.device.slice(0, 6);
    // B's own ids moved to its part, with every reference to them (parent, project, labels, the log, the search index)
    expect(rows(b, 'tasks').map((t) => (t as { id: string }).id)).toEqual([`t1.${part}`, `t2.${part}`, `t3.${part}`]);
    expect(b.prepare(`SELECT parent_id, project_id FROM tasks WHERE content = 'Prune the roses'`).get()).toEqual({ parent_id: `t1.${part}`, project_id: `p1.${part}` });
    expect(b.prepare(`SELECT project_id FROM tasks WHERE id = ?`).get(`${inbox.id}.${part}`)).toEqual({ project_id: 'inbox' });
    expect(b.pragma('foreign_key_check')).toEqual([]);

    await runSync(b, joined.key, target);
    const gotA = await runSync(a, setup.key, target);
    expect(gotA.problems).toEqual([]);
    await runSync(b, joined.key, target);
    for (const t of ['projects', 'tasks', 'labels', 'task_labels']) expect(rows(b, t)).toEqual(rows(a, t));
    expect(log(b)).toEqual(log(a));
    const contents = (db: Db): string[] => (db.prepare(`SELECT content FROM tasks ORDER BY content`).all() as { content: string }[]).map((r) => r.content);
    expect(contents(a)).toEqual(['Call the plumber', 'Plant the tulips', 'Prune the roses', 'Ring the bank', 'Write the report']);
    expect(rows(a, 'projects').map((p) => (p as { name: string }).name).sort()).toEqual(['Garden', 'Inbox', 'Work']);
    expect(a.prepare(`SELECT count(*) AS n FROM sync_pending`).get()).toEqual({ n: 0 });
    // found by search on both
    for (const db of [a, b]) expect(searchAll(db, 'tulips').total).toBe(1);

    // A undoes B's requests from before it joined (re-keyed with them): the subtask, then the tulips
    const rosesRequest = getActionRow(a, listActions(a).find((e) => e.tool === 'add_task' && e.summary.includes('roses'))!.id)!.request_id;
    expect(rosesRequest).toBe(`u3.${part}`);
    expect(undoRequest(a, rosesRequest, { ctx: userCtx(a) }).ok).toBe(true);
    expect(bRequest).toBe('u2');
    expect(undoRequest(a, `${bRequest}.${part}`, { ctx: userCtx(a) }).ok).toBe(true);
    await runSync(a, setup.key, target);
    await runSync(b, joined.key, target);
    expect(contents(b)).toEqual(['Call the plumber', 'Ring the bank', 'Write the report']);
    expect(rows(b, 'tasks')).toEqual(rows(a, 'tasks'));
    expect(log(b)).toEqual(log(a));
  });

  it('applies only the registry’s tables and columns with values of their type; the rest waits, and a row waits for its parent', async () => {
    const folder = tempDir();
    const a = tempDb().db;
    await setupSync(a, { kind: 'folder', url: folder }, PASS, { kdf: FAST_KDF });
    const node = '00000000000000b2';
    let n = 0;
    const stamp = (): string => `2035-01-01T12:00:00.000Z-${(n++).toString(16).toUpperCase().padStart(4, '0')}-${node}`;
    const m = (table: string, row: string, column: string, value: string | number | null) => ({ hlc: stamp(), table, row, column, value });
    a.exec(`UPDATE sync_state SET applying = 1`);
    const applied = applyMessages(a, [
      m('sqlite_master', 'x', 'sql', 'DROP TABLE tasks'),
      m('tasks', 't1.00000b', 'evil_col', 'x'),
      m('tasks', 't1.00000b', '_exists', 1),
      m('tasks', 't1.00000b', 'content', 'From elsewhere'),
      m('tasks', 't1.00000b', 'project_id', 'p9.00000b'), // not arrived yet
      m('tasks', 't1.00000b', 'priority', 'high'), // wrong type
      m('tasks', 't1.00000b', 'status', 'open'),
      m('tasks', 't1.00000b', 'position', 1),
      m('tasks', 't1.00000b', 'created_at', '2035-01-01T12:00:00.000Z'),
      m('tasks', 't1.00000b', 'updated_at', '2035-01-01T12:00:00.000Z'),
    ]);
    expect(applied.length).toBe(10);
    expect(a.prepare(`SELECT * FROM tasks WHERE id = 't1.00000b'`).get()).toBeUndefined();
    const pending = a.prepare(`SELECT tbl, col, reason FROM sync_pending ORDER BY tbl, col`).all() as { tbl: string; col: string; reason: string }[];
    expect(pending.find((p) => p.tbl === 'sqlite_master')?.reason).toBe('unknown');
    expect(pending.find((p) => p.col === 'evil_col')?.reason).toBe('unknown');
    expect(pending.find((p) => p.col === 'priority')?.reason).toBe('type');
    expect(pending.find((p) => p.col === 'content')?.reason).toBe('waiting');
    // the parent arrives: the task is written
    applyMessages(a, [
      m('projects', 'p9.00000b', '_exists', 1),
      m('projects', 'p9.00000b', 'name', 'Elsewhere'),
      m('projects', 'p9.00000b', 'name_key', 'elsewhere'),
      m('projects', 'p9.00000b', 'created_at', '2035-01-01T12:00:00.000Z'),
      m('projects', 'p9.00000b', 'updated_at', '2035-01-01T12:00:00.000Z'),
    ]);
    const { retryPending } = await import('../../../src-main/core/sync/store-device');
    retryPending(a);
    expect(a.prepare(`SELECT content, project_id FROM tasks WHERE id = 't1.00000b'`).get()).toEqual({ content: 'From elsewhere', project_id: 'p9.00000b' });
    // an action whose images name a table outside the registry never lands (undo would turn them into SQL)
    applyMessages(a, [
      m('actions', 'a1.00000b', '_exists', 1),
      m('actions', 'a1.00000b', 'request_id', 'u1.00000b'),
      m('actions', 'a1.00000b', 'source', 'user'),
      m('actions', 'a1.00000b', 'tool', 'add_task'),
      m('actions', 'a1.00000b', 'args', '{}'),
      m('actions', 'a1.00000b', 'changes', JSON.stringify([{ table: 'settings; DROP TABLE tasks', id: 'x', before: null, after: {} }])),
      m('actions', 'a1.00000b', 'summary', 's'),
      m('actions', 'a1.00000b', 'created_at', '2035-01-01T12:00:00.000Z'),
    ]);
    expect(getActionRow(a, 'a1.00000b')).toBeNull();
    a.exec(`UPDATE sync_state SET applying = 0`);
    expect(okValue(updateTask(a, userCtx(a), { task: 't1.00000b', content: 'edited here' })).content).toBe('edited here');
    expect(okValue(createProject(a, userCtx(a), { name: 'Here' })).id).toMatch(/^p\d+\.[0-9a-f]{6}$/);
  });

  it('a round killed after any step leaves both databases consistent, and the next round completes', async () => {
    const folder = tempDir();
    const spec: TargetSpec = { kind: 'folder', url: folder };
    const a = tempDb().db;
    const b = tempDb().db;
    const ka = (await setupSync(a, spec, PASS, { kdf: FAST_KDF })).key;
    const kb = (await setupSync(b, spec, PASS, { kdf: FAST_KDF })).key;
    const target = new FolderTarget(folder);
    const steps: RoundStep[] = ['checked', 'recovered', 'wrote', 'sent', 'merged', 'advanced'];
    for (const killAt of steps) {
      okValue(addTask(a, userCtx(a), { content: `kill after ${killAt}` }));
      okValue(addTask(b, userCtx(b), { content: `from b before ${killAt}` }));
      await runSync(b, kb, target);
      await expect(
        runSync(a, ka, target, {
          batchMessages: 7, // several batches (a new row's columns are never cut apart unless one row is larger)
          onStep: (s) => {
            if (s === killAt) throw new Error(`killed after ${s}`);
          },
        }),
      ).rejects.toThrow(`killed after ${killAt}`);
      expect((await runSync(b, kb, target)).problems).toEqual([]);
      expect((await runSync(a, ka, target)).problems).toEqual([]);
      await runSync(b, kb, target);
      expect(rows(b, 'tasks')).toEqual(rows(a, 'tasks'));
      expect(log(b)).toEqual(log(a));
      for (const db of [a, b]) expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_outbox`).get()).toEqual({ n: 0 });
      for (const db of [a, b]) expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get()).toEqual({ n: 0 });
    }
    expect(rows(a, 'tasks').length).toBe(12);
  });
});
