import { describe, expect, it } from 'vitest';
import { addTask, createProject, listActions, listTasks, newUserRequest, undoAction, undoRequest, type Db } from '../../../src-main/core';
import { createToolServices, TOOLS } from '../../../src-main/core/tools';
import { invokeTool } from '../../../src-main/core/tools/invoke';
import { okValue, snapshot, tempDb, userCtx } from '../../support/db';

const byName = new Map(TOOLS.map((t) => [t.name, t]));
const ctxOf = (db: Db, requestId = 'r1') => ({ db, action: { requestId, source: 'agent' as const }, signal: new AbortController().signal, services: createToolServices() });
const call = (db: Db, tool: string, args: unknown, requestId = 'r1') => invokeTool({ tool, args }, { tools: byName, ctx: ctxOf(db, requestId) });

function inbox(db: Db, n: number): string[] {
  return Array.from({ length: n }, (_, i) => okValue(addTask(db, userCtx(db), { content: `task ${i + 1}` })).id);
}

describe('batch tools', () => {
  it('move_tasks applies every valid item, reports each failed one with its own error, and logs one action per item', async () => {
    const { db } = tempDb();
    const ids = inbox(db, 4);
    const p = okValue(createProject(db, userCtx(db), { name: 'Home' }));
    const r = await call(db, 'move_tasks', { task_ids: [ids[0], 't999', ids[1], ids[1], 'p1', ids[2]], project_id: p.id });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({
      moved: [
        { id: ids[0], content: 'task 1' },
        { id: ids[1], content: 'task 2' },
        { id: ids[2], content: 'task 3' },
      ],
      failed: [
        { task_id: 't999', error: "no task with id 't999'", hint: expect.any(String) },
        { task_id: 'p1', error: "no task with id 'p1'", hint: expect.any(String) },
      ],
    });
    expect(r.actionIds).toHaveLength(3);
    expect(listActions(db, { requestId: 'r1' }).map((a) => a.tool)).toEqual(['move_task', 'move_task', 'move_task']);
    expect(listTasks(db, { project: 'Home' }).total).toBe(3);
    // One item undone alone; the others stay.
    okValue(undoAction(db, r.actionIds![1]!, { ctx: newUserRequest(db) }));
    expect(listTasks(db, { project: 'Home' }).tasks.map((t) => t.content)).toEqual(['task 1', 'task 3']);
  });

  it('a bad project fails the whole call with one error, and nothing moves', async () => {
    const { db } = tempDb();
    const ids = inbox(db, 2);
    const r = await call(db, 'move_tasks', { task_ids: ids, project_id: 'Nowhere' });
    expect(r).toMatchObject({ ok: false, error: "no project with id or name 'Nowhere'" });
    expect(listTasks(db, { project: 'inbox' }).total).toBe(2);
  });

  it('refuses more than 100 items with a hint, and empty lists', async () => {
    const { db } = tempDb();
    const r = await call(db, 'move_tasks', { task_ids: Array.from({ length: 101 }, (_, i) => `t${i}`), project_id: 'inbox' });
    expect(r).toMatchObject({ ok: false, code: 'invalid_arguments', error: expect.stringContaining('task_ids') });
    expect(await call(db, 'complete_tasks', { task_ids: [] })).toMatchObject({ ok: false, code: 'invalid_arguments' });
  });

  it('add_tasks adds each valid task where it says, reporting the rest; undo of the request takes all of them back', async () => {
    const { db } = tempDb();
    okValue(createProject(db, userCtx(db), { name: 'Work' }));
    const before = snapshot(db);
    const r = await call(db, 'add_tasks', {
      tasks: [{ content: 'a' }, { content: 'b', project_id: 'Work', priority: 3, due: '2026-12-24' }, { content: '' }, { content: 'c', project_id: 'Gone' }, { content: 'd', due: '2026-02-30' }],
    });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({
      added: [
        { content: 'a', project: 'Inbox' },
        { content: 'b', project: 'Work' },
      ],
      failed: [{ content: '', error: 'task is empty' }, { content: 'c' }, { content: 'd', error: 'due date "2026-02-30" is not a date' }],
    });
    expect(listTasks(db, { project: 'Work' }).tasks[0]).toMatchObject({ priority: 3, due: '2026-12-24' });
    okValue(undoRequest(db, 'r1', { ctx: newUserRequest(db) }));
    expect(snapshot(db)).toEqual(before);
  });

  it('complete_tasks asks once, naming the tasks, and completes them all when approved', async () => {
    const { db } = tempDb();
    const ids = inbox(db, 12);
    const questions: string[] = [];
    const r = await invokeTool(
      { tool: 'complete_tasks', args: { task_ids: [...ids, 't77'] } },
      { tools: byName, ctx: ctxOf(db), approval: { needed: (t) => t.approval === 'ask', ask: async (_t, q) => (questions.push(q), 'approve') } },
    );
    expect(questions).toEqual(["Complete 13 tasks: 'task 1', 'task 2', 'task 3', 'task 4', 'task 5', 'task 6', 'task 7', 'task 8', 'task 9', 'task 10' and 3 more?"]);
    expect(r).toMatchObject({ ok: true, value: { failed: [{ task_id: 't77' }] } });
    expect(listTasks(db).total).toBe(0);
  });

  it('a 160-task inbox moved in three calls is one request: undone as a whole it is exactly as before', async () => {
    const { db } = tempDb();
    const ids = inbox(db, 160);
    const before = snapshot(db);
    const projects = ['A', 'B', 'C'].map((name) => okValue(createProject(db, { requestId: 'r1', source: 'agent' }, { name })).id);
    for (let g = 0; g < 3; g++) {
      const r = await call(db, 'move_tasks', { task_ids: ids.filter((_, i) => i % 3 === g).slice(0, 100), project_id: projects[g] });
      expect(r.ok).toBe(true);
    }
    expect(listTasks(db, { project: 'inbox' }).total).toBe(0);
    expect(listActions(db, { requestId: 'r1', limit: 1000 })).toHaveLength(163);
    okValue(undoRequest(db, 'r1', { ctx: newUserRequest(db) }));
    expect(snapshot(db)).toEqual(before);
  });
});
