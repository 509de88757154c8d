import { describe, expect, it } from 'vitest';
import { getTask, type Db } from '../../../src-main/core';
import { createToolServices, TOOLS, signature, type ToolOutcome } from '../../../src-main/core/tools';
import { findTasksTool } from '../../../src-main/core/tools/tasks';
import { createSection } from '../../../src-main/core/domain/sections';
import { createProject } from '../../../src-main/core/domain/projects';
import { okValue, userCtx } from '../../support/db';
import { tempDb } from '../../support/db';

// A fixed now far from any real today: the agent's "today" is the tool services' clock.
const NOW = new Date(2035, 2, 14, 12, 0);
const ctxOf = (db: Db) => ({ db, action: { requestId: 'r7', source: 'agent' as const }, signal: new AbortController().signal, services: createToolServices({ now: () => NOW }) });

async function use(db: Db, name: string, args: unknown = {}): Promise<ToolOutcome> {
  const tool = [...TOOLS, findTasksTool].find((t) => t.name === name)!;
  return tool.run(tool.input.parse(args), ctxOf(db));
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tool values are JSON; the tests assert their shape
async function value(db: Db, name: string, args: unknown = {}): Promise<any> {
  const r = await use(db, name, args);
  if (!r.ok) throw new Error(`${name} failed: ${r.error}`);
  return r.value;
}

describe('rich tasks through the agent tools', () => {
  it('add_tasks creates a subtree in one call (parent_id: $N, an earlier item) with labels, deadline and duration', async () => {
    const { db } = tempDb();
    const r = await value(db, 'add_tasks', {
      tasks: [
        { content: 'Move house', labels: ['home'], deadline: '2035-04-01' },
        { content: 'Pack books', parent_id: '$1', duration_min: 90 },
        { content: 'Buy boxes', parent_id: '$2', labels: ['errands', 'Home'] },
        { content: 'Bad deadline', deadline: 'soonish' },
        { content: 'Under the bad one', parent_id: '$4' },
        { content: 'Under a later one', parent_id: '$7' },
      ],
    });
    expect(r.added.map((t: { content: string }) => t.content)).toEqual(['Move house', 'Pack books', 'Buy boxes']);
    expect(r.failed).toEqual([
      { content: 'Bad deadline', error: expect.stringContaining('is not a date'), hint: expect.any(String) },
      { content: 'Under the bad one', error: 'parent_id $4 is not an earlier item that was added', hint: expect.any(String) },
      { content: 'Under a later one', error: 'parent_id $7 is not an earlier item that was added', hint: expect.any(String) },
    ]);
    const [move, pack, boxes] = r.added.map((t: { id: string }) => getTask(db, t.id));
    expect(move).toMatchObject({ labels: ['home'], deadline: '2035-04-01', parentId: null });
    expect(pack).toMatchObject({ parentId: move.id, durationMin: 90 });
    expect(boxes).toMatchObject({ parentId: pack.id, labels: ['errands', 'home'] });
  });

  it('find_tasks answers {tasks, total} for a filter, with the fields asked for, paged; a bad filter is one line', async () => {
    const { db } = tempDb();
    await value(db, 'add_tasks', {
      tasks: [
        { content: 'Pay rent', due: '2035-03-10', priority: 1, labels: ['money'] },
        { content: 'Call mum', due: '2035-03-14' },
        { content: 'Read', labels: ['money'] },
      ],
    });
    const r = await value(db, 'find_tasks', { filter: 'today | overdue' });
    expect(r).toEqual({ tasks: [expect.objectContaining({ content: 'Pay rent' }), expect.objectContaining({ content: 'Call mum' })], total: 2 });
    expect(Object.keys(r.tasks[0])).toEqual(['id', 'content', 'project']);
    const withFields = await value(db, 'find_tasks', { filter: '@money', fields: ['labels', 'due', 'priority'], limit: 1 });
    expect(withFields).toMatchObject({ tasks: [{ content: 'Pay rent', labels: ['money'], due: '2035-03-10', priority: 1 }], total: 2, hint: expect.stringContaining('offset 1') });
    expect((await value(db, 'find_tasks', { filter: '@money', offset: 1 })).tasks.map((t: { content: string }) => t.content)).toEqual(['Read']);
    const bad = await use(db, 'find_tasks', { filter: 'p1 &' });
    expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/^filter: expected .* at position 5/) });
    expect(signature(findTasksTool)).toBe('{filter, limit?: number, offset?: number, fields?: array}');
  });

  it('find_tasks refuses an unknown field; add_tasks refuses a cycle-free but unknown parent', async () => {
    const { db } = tempDb();
    expect(await use(db, 'find_tasks', { filter: 'p1', fields: ['secret'] })).toMatchObject({ ok: false, error: 'no field "secret"' });
    const r = await value(db, 'add_tasks', { tasks: [{ content: 'A', parent_id: 't404' }] });
    expect(r.failed).toEqual([{ content: 'A', error: "no task with id 't404'", hint: expect.any(String) }]);
  });

  it('update_task sets and clears description, deadline, duration, labels, section and parent; a bad deadline changes nothing', async () => {
    const { db } = tempDb();
    const home = okValue(createProject(db, userCtx(db), { name: 'Home' }));
    okValue(createSection(db, userCtx(db), { project: home.id, name: 'Kitchen' }));
    const r = await value(db, 'add_tasks', {
      tasks: [
        { content: 'Renovate', project_id: home.id },
        { content: 'Tiles', project_id: home.id, section: 'Kitchen', description: 'Grey, *matte*' },
      ],
    });
    expect(r.failed).toEqual([]);
    const [renovate, tiles] = r.added.map((t: { id: string }) => t.id);
    expect(getTask(db, tiles)).toMatchObject({ section: 'Kitchen', description: 'Grey, *matte*' });

    const set = await value(db, 'update_task', { task_id: renovate, description: 'The whole flat', deadline: '2035-06-30', duration_min: 120, labels: ['Home', 'big'], section: 'Kitchen' });
    expect(set).toMatchObject({ id: renovate, deadline: '2035-06-30', duration_min: 120, labels: ['big', 'Home'], section: 'Kitchen', description: 'The whole flat' });
    expect(await value(db, 'update_task', { task_id: tiles, parent_id: renovate })).toMatchObject({ parent_id: renovate });
    expect(getTask(db, tiles).parentId).toBe(renovate);

    const cleared = await value(db, 'update_task', { task_id: renovate, description: null, deadline: null, duration_min: null, labels: [], section: null });
    expect(getTask(db, renovate)).toMatchObject({ description: null, deadline: null, durationMin: null, labels: [], section: null });
    expect(cleared).not.toHaveProperty('deadline');
    expect(await value(db, 'update_task', { task_id: tiles, parent_id: null })).not.toHaveProperty('parent_id');

    const before = getTask(db, renovate);
    expect(await use(db, 'update_task', { task_id: renovate, deadline: 'next week', description: 'x' })).toMatchObject({ ok: false, error: expect.stringContaining('is not a date') });
    expect(await use(db, 'update_task', { task_id: renovate, duration_min: -5 })).toMatchObject({ ok: false, error: expect.stringContaining('duration') });
    expect(await use(db, 'update_task', { task_id: renovate, parent_id: renovate })).toMatchObject({ ok: false, error: expect.stringContaining('own subtask') });
    expect(await use(db, 'update_task', { task_id: renovate, section: 'Nowhere' })).toMatchObject({ ok: false });
    expect(await use(db, 'update_task', { task_id: renovate, description: 'x'.repeat(100_000) })).toMatchObject({ ok: false });
    expect(getTask(db, renovate)).toEqual(before);
  });
});
