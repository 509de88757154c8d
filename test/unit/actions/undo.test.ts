import { describe, expect, it } from 'vitest';
import {
  addTask,
  archiveProject,
  completeTask,
  createProject,
  listActions,
  moveTask,
  redoAction,
  renameProject,
  undoAction,
  undoLast,
  undoRequest,
  updateTask,
  type ActionContext,
} from '../../../src-main/core';
import { okValue, snapshot, tempDb, userCtx } from '../../support/db';

const agentRun = (runId: string): ActionContext => ({ requestId: runId, source: 'agent' });

describe('undo one action', () => {
  it('restores exactly what the action changed and logs the undo', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'Bake the cake' }));
    const before = snapshot(db);
    const p = createProject(db, userCtx(db), { name: 'Birthday' });
    const m = moveTask(db, userCtx(db), { task: t.id, project: 'Birthday' });
    if (!p.ok || !m.ok) throw new Error('setup failed');
    const r = okValue(undoAction(db, m.actionId, { ctx: userCtx(db) }));
    expect(r.reversed).toEqual([
      {
        id: m.actionId,
        summary: "Moved 'Bake the cake' to Birthday",
        what: { verb: 'moved', kind: 'task', id: t.id, name: 'Bake the cake', count: 1, reverses: null },
        subject: "Moved 'Bake the cake' to Birthday",
      },
    ]);
    // the undo is logged with what it did, as data: it undid the move of that task
    expect(listActions(db, { limit: 1 })[0]!.what).toEqual({ verb: 'undid', kind: 'task', id: t.id, name: 'Bake the cake', count: 1, reverses: m.actionId });
    okValue(undoAction(db, p.actionId, { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(before);
    const log = listActions(db);
    expect(log.map((e) => [e.tool, e.summary, e.undoneAt !== null, e.undoes])).toEqual([
      ['undo', "Undid: Created project 'Birthday'", false, p.actionId],
      ['undo', "Undid: Moved 'Bake the cake' to Birthday", false, m.actionId],
      ['move_task', "Moved 'Bake the cake' to Birthday", true, null],
      ['create_project', "Created project 'Birthday'", true, null],
      ['add_task', "Added 'Bake the cake' to Inbox", false, null],
    ]);
  });

  it('refuses when a later action changed the same data, naming it, and changes nothing', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const first = updateTask(db, userCtx(db), { task: t.id, content: 'y' });
    const second = updateTask(db, userCtx(db), { task: t.id, priority: 1 });
    if (!first.ok || !second.ok) throw new Error('setup failed');
    const before = snapshot(db);
    const r = undoAction(db, first.actionId, { ctx: userCtx(db) });
    expect(r).toMatchObject({ ok: false, error: expect.stringContaining(`later changes touched the same data: ${second.actionId} (Updated 'y': priority 1)`) });
    expect(r.ok ? '' : r.hint).toContain('--cascade');
    expect(snapshot(db)).toEqual(before);
    expect(listActions(db)).toHaveLength(3);
  });

  it('with cascade undoes the later actions first, newest first', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const start = snapshot(db);
    const a = updateTask(db, userCtx(db), { task: t.id, content: 'y' });
    const b = updateTask(db, userCtx(db), { task: t.id, content: 'z' });
    const c = updateTask(db, userCtx(db), { task: t.id, priority: 2 });
    if (!a.ok || !b.ok || !c.ok) throw new Error('setup failed');
    const r = okValue(undoAction(db, a.actionId, { ctx: userCtx(db), cascade: true }));
    expect(r.reversed.map((x) => x.id)).toEqual([c.actionId, b.actionId, a.actionId]);
    expect(snapshot(db)).toEqual(start);
  });

  it('does not let an undone-then-redone pair block an earlier action needlessly', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const a = updateTask(db, userCtx(db), { task: t.id, content: 'y' });
    const b = updateTask(db, userCtx(db), { task: t.id, content: 'z' });
    if (!a.ok || !b.ok) throw new Error('setup failed');
    okValue(undoAction(db, b.actionId, { ctx: userCtx(db) }));
    // b is undone: the task is back to what a left, so a can be undone without cascade.
    okValue(undoAction(db, a.actionId, { ctx: userCtx(db) }));
    expect(db.prepare(`SELECT content FROM tasks`).get()).toEqual({ content: 'x' });
  });

  it('refuses to undo the creation of a project that tasks were moved into since', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const p = createProject(db, userCtx(db), { name: 'P' });
    const m = moveTask(db, userCtx(db), { task: t.id, project: 'P' });
    if (!p.ok || !m.ok) throw new Error('setup failed');
    expect(undoAction(db, p.actionId, { ctx: userCtx(db) })).toMatchObject({ ok: false, error: expect.stringContaining(m.actionId) });
    const r = okValue(undoAction(db, p.actionId, { ctx: userCtx(db), cascade: true }));
    expect(r.reversed.map((x) => x.id)).toEqual([m.actionId, p.actionId]);
    expect(db.prepare(`SELECT count(*) AS n FROM projects`).get()).toEqual({ n: 1 });
  });

  it('a label made by one action and used by a later one: that later action blocks its undo, and --cascade undoes it first', () => {
    const { db } = tempDb();
    const start = snapshot(db);
    const p = createProject(db, userCtx(db), { name: 'P' });
    const a = addTask(db, userCtx(db), { content: 'A', project: 'P', labels: ['urgent'] });
    const b = addTask(db, userCtx(db), { content: 'B', labels: ['urgent'] });
    if (!p.ok || !a.ok || !b.ok) throw new Error('setup failed');
    // undoing A's addition would remove the label B uses: B's addition is named as what blocks it
    expect(undoAction(db, a.actionId, { ctx: userCtx(db) })).toMatchObject({ ok: false, error: expect.stringContaining(b.actionId) });
    const r = okValue(undoAction(db, p.actionId, { ctx: userCtx(db), cascade: true }));
    expect(r.reversed.map((x) => x.id)).toEqual([b.actionId, a.actionId, p.actionId]);
    expect(snapshot(db)).toEqual(start);
  });

  it('brings a row back under “Work 2” when its old name is taken now, says so, and the undo of that undo restores what it replaced', () => {
    const { db } = tempDb();
    const work = okValue(createProject(db, userCtx(db), { name: 'Work' }));
    const rename = renameProject(db, userCtx(db), { project: 'Work', name: 'Job' });
    okValue(createProject(db, userCtx(db), { name: 'work' }));
    okValue(createProject(db, userCtx(db), { name: 'Work 2' }));
    if (!rename.ok) throw new Error('setup failed');
    const before = snapshot(db);
    const r = okValue(undoAction(db, rename.actionId, { ctx: userCtx(db) }));
    expect(r.renamed).toEqual(['Project “Work” is back as “Work 3”: its name is taken now']);
    expect(db.prepare(`SELECT name, name_key FROM projects WHERE id = ?`).get(work.id)).toEqual({ name: 'Work 3', name_key: 'work 3' });
    // the log records the name it came back under: undoing the undo finds nothing changed since
    okValue(undoAction(db, r.created[0]!, { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(before);
    // a redo of a creation whose name was taken since, the same way
    const made = okValue(createProject(db, userCtx(db), { name: 'Errands' }));
    const undo = okValue(undoLast(db, { ctx: userCtx(db) }));
    okValue(createProject(db, userCtx(db), { name: 'Errands' }));
    const redo = okValue(undoAction(db, undo.created[0]!, { ctx: userCtx(db) }));
    expect(redo.renamed).toEqual(['Project “Errands” is back as “Errands 2”: its name is taken now']);
    expect(db.prepare(`SELECT name FROM projects WHERE id = ?`).get(made.id)).toEqual({ name: 'Errands 2' });
  });

  it('refuses to put an open task back into a project archived since', () => {
    const { db } = tempDb();
    const p = okValue(createProject(db, userCtx(db), { name: 'Old' }));
    const t = okValue(addTask(db, userCtx(db), { content: 'x', project: p.id }));
    const m = moveTask(db, userCtx(db), { task: t.id, project: 'inbox' });
    okValue(archiveProject(db, userCtx(db), { project: p.id }));
    if (!m.ok) throw new Error('setup failed');
    expect(undoAction(db, m.actionId, { ctx: userCtx(db) })).toMatchObject({ ok: false, error: expect.stringContaining("project 'Old' is archived now") });
  });

  it('undoing an undo redoes, and the chain keeps track of what is in effect', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const done = completeTask(db, userCtx(db), { task: t.id });
    if (!done.ok) throw new Error('setup failed');
    const undo = okValue(undoAction(db, done.actionId, { ctx: userCtx(db) }));
    expect(undoAction(db, done.actionId, { ctx: userCtx(db) })).toMatchObject({
      ok: false,
      error: `action ${done.actionId} is already undone`,
      hint: `to redo it, undo ${undo.created[0]}`,
    });
    const redo = okValue(undoAction(db, undo.created[0]!, { ctx: userCtx(db) }));
    const status = () => (db.prepare(`SELECT status FROM tasks`).get() as { status: string }).status;
    const undoneAt = (id: string) => (db.prepare(`SELECT undone_at FROM actions WHERE id = ?`).get(id) as { undone_at: string | null }).undone_at;
    expect(status()).toBe('done');
    expect(undoneAt(done.actionId)).toBeNull();
    expect(undoneAt(undo.created[0]!)).not.toBeNull();
    expect(listActions(db, { limit: 1 })[0]!.summary).toBe("Redid: Completed 'x'");
    okValue(undoAction(db, redo.created[0]!, { ctx: userCtx(db) }));
    expect(status()).toBe('open');
    expect(undoneAt(done.actionId)).not.toBeNull();
    expect(listActions(db, { limit: 1 })[0]!.summary).toBe("Undid: Completed 'x'");
  });

  it('redo puts an undone action back by undoing its undo, and refuses one that is in effect', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const done = completeTask(db, userCtx(db), { task: t.id });
    if (!done.ok) throw new Error('setup failed');
    expect(redoAction(db, done.actionId, { ctx: userCtx(db) })).toMatchObject({ ok: false, error: `action ${done.actionId} is in effect; there is nothing to redo` });
    const undo = okValue(undoAction(db, done.actionId, { ctx: userCtx(db) }));
    const redo = okValue(redoAction(db, done.actionId, { ctx: userCtx(db) }));
    expect(redo.reversed).toEqual([
      { id: undo.created[0], summary: "Undid: Completed 'x'", what: { verb: 'undid', kind: 'task', id: t.id, name: 'x', count: 1, reverses: done.actionId }, subject: "Completed 'x'" },
    ]);
    expect(listActions(db, { limit: 1 })[0]!.what).toMatchObject({ verb: 'redid', reverses: undo.created[0] });
    expect((db.prepare(`SELECT status FROM tasks`).get() as { status: string }).status).toBe('done');
    expect(redoAction(db, 'a999', { ctx: userCtx(db) })).toMatchObject({ ok: false, error: 'no action with id a999' });
  });

  it('says so for an unknown action id', () => {
    const { db } = tempDb();
    expect(undoAction(db, 'a999', { ctx: userCtx(db) })).toEqual({ ok: false, code: 'refused', error: 'no action with id a999', hint: 'run `tidy log` to see action ids' });
  });
});

describe('undo a whole request', () => {
  it('reverses every action of the run newest first, and undoing that request redoes it', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'a' }));
    const b = okValue(addTask(db, userCtx(db), { content: 'b' }));
    const start = snapshot(db);
    const run = agentRun('r1');
    okValue(createProject(db, run, { name: 'Letters' }));
    okValue(moveTask(db, run, { task: a.id, project: 'Letters' }));
    okValue(moveTask(db, run, { task: b.id, project: 'Letters' }));
    const after = snapshot(db);
    const ctx = userCtx(db);
    const r = okValue(undoRequest(db, 'r1', { ctx }));
    expect(r.reversed.map((x) => x.summary)).toEqual(["Moved 'b' to Letters", "Moved 'a' to Letters", "Created project 'Letters'"]);
    expect(snapshot(db)).toEqual(start);
    okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(after);
  });

  it('is all or nothing: one blocked action leaves every action of the run in place', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'a' }));
    const run = agentRun('r1');
    okValue(createProject(db, run, { name: 'P' }));
    okValue(moveTask(db, run, { task: a.id, project: 'P' }));
    okValue(updateTask(db, userCtx(db), { task: a.id, content: 'changed by hand later' }));
    const before = snapshot(db);
    const count = listActions(db).length;
    expect(undoRequest(db, 'r1', { ctx: userCtx(db) })).toMatchObject({ ok: false, error: expect.stringContaining("Updated 'a'") });
    expect(snapshot(db)).toEqual(before);
    expect(listActions(db)).toHaveLength(count);
  });

  it('undo --last walks back request by request', () => {
    const { db } = tempDb();
    okValue(addTask(db, userCtx(db), { content: 'a' }));
    okValue(addTask(db, userCtx(db), { content: 'b' }));
    expect(okValue(undoLast(db, { ctx: userCtx(db) })).reversed[0]!.summary).toBe("Added 'b' to Inbox");
    expect(okValue(undoLast(db, { ctx: userCtx(db) })).reversed[0]!.summary).toBe("Added 'a' to Inbox");
    expect(undoLast(db, { ctx: userCtx(db) })).toMatchObject({ ok: false, error: 'there is nothing to undo' });
  });
});
