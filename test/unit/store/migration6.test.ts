import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { getTask, listTasks, openDatabase, undoAction } from '../../../src-main/core';
import { migrations } from '../../../src-main/core/store/migrations';
import { searchAll } from '../../../src-main/core/domain/search';
import { tempDir, userCtx } from '../../support/db';

describe('migration 6: priority as people say it, recurrence, manual order, completion time', () => {
  it('turns the priorities round in the tasks and in the action log, so old actions still undo exactly', () => {
    const path = join(tempDir(), 'tidy.db');
    const old = openDatabase(path, { migrations: migrations.slice(0, 5) });
    const at = (m: number) => `2026-11-0${m}T10:00:00.000Z`;
    const insert = old.prepare(`INSERT INTO tasks (id, content, project_id, priority, due, status, created_at, updated_at) VALUES (?, ?, 'inbox', ?, ?, ?, ?, ?)`);
    insert.run('t2', 'Second, done', 1, null, 'done', at(2), at(3));
    insert.run('t1', 'First, was urgent', 1, '2026-12-24', 'open', at(1), at(1));
    const created = old.prepare(`SELECT * FROM tasks WHERE id = 't1'`).get();
    old.prepare(`UPDATE tasks SET priority = 4, updated_at = ? WHERE id = 't1'`).run(at(4));
    const updated = old.prepare(`SELECT * FROM tasks WHERE id = 't1'`).get();
    const log = old.prepare(`INSERT INTO actions (id, request_id, source, tool, args, changes, summary, created_at) VALUES (?, ?, 'user', ?, '{}', ?, ?, ?)`);
    const link = old.prepare(`INSERT INTO action_entities (entity, action_seq) VALUES ('tasks:t1', ?)`);
    log.run('a1', 'u1', 'add_task', JSON.stringify([{ table: 'tasks', id: 't1', before: null, after: created }]), 'Added', at(1));
    link.run(1);
    log.run('a2', 'u2', 'update_task', JSON.stringify([{ table: 'tasks', id: 't1', before: created, after: updated }]), 'Updated: priority 4', at(4));
    link.run(2);
    old.prepare(`INSERT INTO id_counters (kind, next) VALUES ('a', 3), ('t', 3), ('u', 3)`).run();
    old.close();

    const db = openDatabase(path);
    expect(getTask(db, 't1')).toMatchObject({ priority: 1, due: '2026-12-24', recurrence: null, completedAt: null });
    expect(getTask(db, 't2')).toMatchObject({ priority: 4, completedAt: at(3) });
    // Manual order starts as the capture order (t1 was captured first).
    expect(listTasks(db, { status: 'all' }).tasks.map((t) => t.id)).toEqual(['t1', 't2']);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(searchAll(db, 'urgent').groups[0]?.hits[0]?.id).toBe('t1');

    const undone = undoAction(db, 'a2', { ctx: userCtx(db) });
    if (!undone.ok) throw new Error(undone.error);
    expect(getTask(db, 't1').priority).toBe(4);
    const removed = undoAction(db, 'a1', { ctx: userCtx(db) });
    if (!removed.ok) throw new Error(removed.error);
    expect(listTasks(db, { status: 'all' }).tasks.map((t) => t.id)).toEqual(['t2']);
    // A new task takes the default, normal.
    db.prepare(`INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t9', 'x', 'inbox', 'x', 'x')`).run();
    expect(getTask(db, 't9').priority).toBe(4);
    db.close();
  });
});
