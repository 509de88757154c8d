import { describe, expect, it } from 'vitest';
import {
  addTask,
  completeTask,
  createProject,
  listActions,
  moveTask,
  redoAction,
  redoRequest,
  undoAction,
  undoRequest,
  updateTask,
  type ActionContext,
} from '../../../src-main/core';
import { createConversation, latestConversation, listConversations } from '../../../src-main/core/agent/conversations';
import { archiveConversation } from '../../../src-main/core/conversations';
import { okValue, snapshot, tempDb, userCtx } from '../../support/db';

const agentRun = (runId: string): ActionContext => ({ requestId: runId, source: 'agent' });

describe('redo a whole request', () => {
  it('puts every undone change back, the project before the tasks moved into it, and logs each as a redo', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'a' }));
    const b = okValue(addTask(db, userCtx(db), { content: 'b' }));
    const run = agentRun('r1');
    okValue(createProject(db, run, { name: 'Letters' }));
    okValue(moveTask(db, run, { task: a.id, project: 'Letters' }));
    okValue(moveTask(db, run, { task: b.id, project: 'Letters' }));
    const after = snapshot(db);
    okValue(undoRequest(db, 'r1', { ctx: userCtx(db) }));
    const r = okValue(redoRequest(db, 'r1', { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(after);
    // Reversed: the undo entries, in the order the originals were made.
    expect(r.reversed.map((x) => x.summary)).toEqual(["Undid: Created project 'Letters'", "Undid: Moved 'a' to Letters", "Undid: Moved 'b' to Letters"]);
    expect(listActions(db, { limit: 3 }).map((e) => e.summary)).toEqual(["Redid: Moved 'b' to Letters", "Redid: Moved 'a' to Letters", "Redid: Created project 'Letters'"]);
    expect(listActions(db, { requestId: 'r1' }).every((e) => e.undoneAt === null)).toBe(true);
    // And the request can be undone and redone again, as often as wanted.
    okValue(undoRequest(db, 'r1', { ctx: userCtx(db) }));
    okValue(redoRequest(db, 'r1', { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(after);
  });

  it('redoes only what is undone when one change was undone on its own', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'a' }));
    const run = agentRun('r1');
    okValue(createProject(db, run, { name: 'P' }));
    const m = moveTask(db, run, { task: a.id, project: 'P' });
    if (!m.ok) throw new Error('setup failed');
    const after = snapshot(db);
    okValue(undoAction(db, m.actionId, { ctx: userCtx(db) }));
    const r = okValue(redoRequest(db, 'r1', { ctx: userCtx(db) }));
    expect(r.reversed).toHaveLength(1);
    expect(snapshot(db)).toEqual(after);
  });

  it('refuses a request that is in effect, or unknown, and changes nothing', () => {
    const { db } = tempDb();
    okValue(addTask(db, agentRun('r1'), { content: 'a' }));
    const before = snapshot(db);
    expect(redoRequest(db, 'r1', { ctx: userCtx(db) })).toMatchObject({ ok: false, error: expect.stringContaining('there is nothing to redo') });
    expect(redoRequest(db, 'r404', { ctx: userCtx(db) })).toMatchObject({ ok: false, error: 'no request with id r404 has changed anything' });
    expect(snapshot(db)).toEqual(before);
  });

  it('is all or nothing: a later change blocks it, and with cascade that change is undone first', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'a' }));
    const run = agentRun('r1');
    okValue(completeTask(db, run, { task: a.id }));
    okValue(undoRequest(db, 'r1', { ctx: userCtx(db) }));
    // Edited by hand after the undo: redoing the completion would overwrite it.
    okValue(updateTask(db, userCtx(db), { task: a.id, content: 'edited later' }));
    const before = snapshot(db);
    const count = listActions(db).length;
    expect(redoRequest(db, 'r1', { ctx: userCtx(db) })).toMatchObject({ ok: false, code: 'undo_blocked', error: expect.stringContaining("Updated 'a'") });
    expect(snapshot(db)).toEqual(before);
    expect(listActions(db)).toHaveLength(count);
    okValue(redoRequest(db, 'r1', { ctx: userCtx(db), cascade: true }));
    expect(db.prepare(`SELECT content, status FROM tasks`).get()).toEqual({ content: 'a', status: 'done' });
  });

  it('redo of one action takes cascade too', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'a' }));
    const done = completeTask(db, userCtx(db), { task: a.id });
    if (!done.ok) throw new Error('setup failed');
    okValue(undoAction(db, done.actionId, { ctx: userCtx(db) }));
    okValue(updateTask(db, userCtx(db), { task: a.id, content: 'edited later' }));
    expect(redoAction(db, done.actionId, { ctx: userCtx(db) })).toMatchObject({ ok: false, code: 'undo_blocked' });
    okValue(redoAction(db, done.actionId, { ctx: userCtx(db), cascade: true }));
    expect(db.prepare(`SELECT content, status FROM tasks`).get()).toEqual({ content: 'a', status: 'done' });
  });
});

describe('archived conversations', () => {
  it('leave the list and are not continued by default, and come back when unarchived', () => {
    const { db } = tempDb();
    const first = createConversation(db, 'first');
    const second = createConversation(db, 'second');
    expect(latestConversation(db)).toBe(second);
    const archived = okValue(archiveConversation(db, second, true));
    expect(archived.archivedAt).not.toBeNull();
    expect(listConversations(db).map((c) => c.id)).toEqual([first]);
    expect(listConversations(db, 100, true).map((c) => c.id)).toEqual([second]);
    expect(latestConversation(db)).toBe(first);
    expect(okValue(archiveConversation(db, second, false)).archivedAt).toBeNull();
    expect(listConversations(db).map((c) => c.id)).toEqual([second, first]);
    expect(archiveConversation(db, 'c404', true)).toMatchObject({ ok: false, error: 'no conversation with id c404' });
  });
});
