import { describe, expect, it } from 'vitest';
import { addTask, archiveListItem, archiveProject, createProject, listActions, makeList, addListItem, newUserRequest, undoRequest, type Db } from '../../../src-main/core';
import { createToolServices, READ_CAP, TOOLS, inputSchema, signature, type ToolOutcome } from '../../../src-main/core/tools';
import { ftsQuery } from '../../../src-main/core/store/search-index';
import { okValue, tempDb, userCtx } from '../../support/db';
import { seedInbox } from '../../support/agent';

const ctxOf = (db: Db) => ({ db, action: { requestId: 'r7', source: 'agent' as const }, signal: new AbortController().signal, services: createToolServices() });

/** Runs a tool the way the loop does: arguments parsed by its schema first. */
async function use(db: Db, name: string, args: unknown = {}): Promise<ToolOutcome> {
  const tool = TOOLS.find((t) => t.name === name)!;
  return tool.run(tool.input.parse(args), ctxOf(db));
}
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tool values are JSON; the tests assert their shape
async function value(db: Db, name: string, args: unknown = {}): Promise<any> {
  const r = await use(db, name, args);
  if (!r.ok) throw new Error(`${name} failed: ${r.error}`);
  return r.value;
}

describe('the tool catalogue', () => {
  it('has exactly the public names, each with a short description', () => {
    expect(TOOLS.map((t) => t.name)).toEqual([
      'get_inbox_tasks', 'get_all_tasks', 'get_all_projects', 'create_project', 'move_task', 'add_task', 'update_task', 'complete_task', 'find_tasks',
      'move_tasks', 'add_tasks', 'complete_tasks',
      'make_list', 'get_list_names', 'get_list_items', 'add_list_item', 'edit_list_item', 'check_list_item', 'archive_list_item',
      'get_events', 'find_free_slots', 'book_event', 'move_event', 'cancel_event',
      'calculate', 'search', 'wikipedia',
      'plan_tasks',
      'remember', 'update_memory', 'forget',
      'create_routine',
    ]);
    for (const t of TOOLS) {
      expect(t.description.length).toBeLessThan(130);
      expect(inputSchema(t)).toMatchObject({ type: 'object', additionalProperties: false });
      expect(['read', 'write']).toContain(t.effect);
    }
  });

  it('takes the public arguments', () => {
    const sig = Object.fromEntries(TOOLS.map((t) => [t.name, signature(t)]));
    expect(sig).toMatchObject({
      // Beyond DESIGN's arguments, only optional ones: the creation date on request.
      get_inbox_tasks: '{created?: boolean}',
      get_all_tasks: '{project_id?, created?: boolean}',
      create_project: '{name}',
      move_task: '{task_id, project_id}',
      add_task: '{content, project_id?}',
      update_task: '{task_id, content?, priority?: 1-4, due?: string|null, description?: string|null, deadline?: string|null, duration_min?: number|null, labels?: array, section?: string|null, parent_id?: string|null}',
      complete_task: '{task_id}',
      get_list_items: '{list}',
      add_list_item: '{list, text}',
      edit_list_item: '{list, item_id, text}',
      check_list_item: '{list, item_id, checked: boolean}',
      calculate: '{expression}',
      archive_list_item: '{list, item_id}',
      search: '{query}',
      wikipedia: '{query}',
      move_tasks: '{task_ids: array, project_id}',
      add_tasks: '{tasks: array}',
      complete_tasks: '{task_ids: array}',
      get_events: '{from, to}',
      find_free_slots: '{duration_min: 5-1440, from?, to?, attendees?: array}',
      book_event: '{title, start, end, attendees?: array, location?, notes?, task_id?}',
      move_event: '{event_id, start, end}',
      cancel_event: '{event_id}',
      // The card sends the edited blocks back as arguments too; the model is shown only DESIGN's.
      plan_tasks: '{task_ids?: array, filter?, from, to}',
      remember: '{text, scope?}',
      update_memory: '{memory_id, text}',
      forget: '{memory_id}',
      create_routine: '{name, request, schedule}',
    });
  });
});

describe('task and project tools', () => {
  it('read tasks as {tasks: [{id, content, project, created}], total}', async () => {
    const { db } = tempDb();
    const [t1] = seedInbox(db);
    const inbox = await value(db, 'get_inbox_tasks');
    expect(inbox.total).toBe(9);
    expect(inbox.truncated).toBeUndefined();
    expect(inbox.tasks[0]).toEqual({ id: t1, content: 'Finish presentation for PyData Amsterdam', project: 'Inbox' });
    const dated = (await use(db, 'get_inbox_tasks', { created: true })) as { ok: true; value: { tasks: unknown[] } };
    expect(dated.value.tasks[0]).toEqual({ id: t1, content: 'Finish presentation for PyData Amsterdam', project: 'Inbox', created: expect.stringMatching(/^\d{4}-\d\d-\d\d$/) });
    expect((await value(db, 'get_all_tasks', { project_id: 'inbox' })).total).toBe(9);
    expect(await use(db, 'get_all_tasks', { project_id: 'p404' })).toMatchObject({ ok: false, error: "no project with id or name 'p404'" });
    expect(await value(db, 'get_all_projects')).toEqual({ projects: [{ id: 'inbox', name: 'Inbox' }], total: 1 });
  });

  it('caps a huge inbox at 200 rows with the total and a hint', async () => {
    const { db } = tempDb();
    const ctx = userCtx(db);
    db.transaction(() => {
      for (let i = 0; i < 250; i++) addTask(db, ctx, { content: `task ${i}` });
    })();
    const inbox = await value(db, 'get_inbox_tasks');
    expect(inbox.tasks).toHaveLength(READ_CAP);
    expect(inbox).toMatchObject({ total: 250, truncated: true, hint: expect.stringMatching(/^showing 200 of 250; /) });
    expect(JSON.stringify(inbox).length).toBeLessThan(20_000);
  });

  it('mutations return the public shapes and log one action each, tagged with the run', async () => {
    const { db } = tempDb();
    const [t1, t2] = seedInbox(db);
    expect(await value(db, 'create_project', { name: 'Birthday Celebration' })).toEqual({ id: 'p1', name: 'Birthday Celebration' });
    expect(await value(db, 'move_task', { task_id: t1, project_id: 'p1' })).toEqual({ ok: true, id: t1, content: 'Finish presentation for PyData Amsterdam', project: 'Birthday Celebration' });
    expect(await value(db, 'add_task', { content: 'Buy candles', project_id: 'Birthday Celebration' })).toEqual({ id: 't10', content: 'Buy candles', project: 'Birthday Celebration' });
    expect(await value(db, 'update_task', { task_id: t2, priority: 4, due: '2026-12-24' })).toMatchObject({ id: t2, priority: 4, due: '2026-12-24', status: 'open' });
    expect(await value(db, 'complete_task', { task_id: t2 })).toEqual({ ok: true });
    const log = listActions(db, { requestId: 'r7' });
    expect(log.map((a) => a.tool)).toEqual(['complete_task', 'update_task', 'add_task', 'move_task', 'create_project']);
    expect(log.every((a) => a.source === 'agent')).toBe(true);
    // Failures are {error, hint}, as the model gets them.
    expect(await use(db, 'create_project', { name: 'birthday celebration' })).toEqual({
      ok: false,
      code: 'refused',
      error: "a project named 'Birthday Celebration' already exists (p1)",
      hint: 'use project p1, or pick another name',
    });
    expect(await use(db, 'move_task', { task_id: '42', project_id: 'p1' })).toMatchObject({ ok: false, hint: expect.any(String) });
    // A name written like an identifier is stored as the user would write it.
    expect(await value(db, 'create_project', { name: 'personal_website' })).toMatchObject({ name: 'Personal website' });
    expect(await value(db, 'make_list', { name: 'packing_list_2' })).toMatchObject({ name: 'Packing list 2' });
    expect(await value(db, 'create_project', { name: 'e-mail backlog' })).toMatchObject({ name: 'e-mail backlog' });
    expect(await use(db, 'update_task', { task_id: t1, due: 'tomorrow' })).toMatchObject({ ok: false, error: 'due date "tomorrow" is not a date' });
  });

  it('complete_task asks a readable question, or fails before asking for a task that does not exist', () => {
    const { db } = tempDb();
    const [t1] = seedInbox(db);
    const tool = TOOLS.find((t) => t.name === 'complete_task')!;
    expect(tool.confirm!({ task_id: t1 }, ctxOf(db))).toBe("Complete task 'Finish presentation for PyData Amsterdam'?");
    expect(() => tool.confirm!({ task_id: 't99' }, ctxOf(db))).toThrow("no task with id 't99'");
  });
});

describe('list tools', () => {
  it('the seed 002 operations, by list name or id', async () => {
    const { db } = tempDb();
    expect(await value(db, 'make_list', { name: 'Favorite colors' })).toEqual({ id: 'l1', name: 'Favorite colors' });
    expect(await value(db, 'add_list_item', { list: 'favorite colors', text: 'Green' })).toEqual({ id: 'i1', text: 'Green' });
    await value(db, 'add_list_item', { list: 'l1', text: 'Orange' });
    expect(await value(db, 'edit_list_item', { list: 'l1', item_id: 'i2', text: 'Purple' })).toEqual({ id: 'i2', text: 'Purple' });
    expect(await value(db, 'check_list_item', { list: 'l1', item_id: 'i1', checked: true })).toEqual({ id: 'i1', checked: true });
    expect(await value(db, 'get_list_items', { list: 'Favorite colors' })).toEqual({
      items: [
        { id: 'i1', text: 'Green', checked: true },
        { id: 'i2', text: 'Purple', checked: false },
      ],
      total: 2,
    });
    const archive = TOOLS.find((t) => t.name === 'archive_list_item')!;
    expect(archive.confirm!({ list: 'l1', item_id: 'i2' }, ctxOf(db))).toBe("Remove 'Purple' from Favorite colors?");
    expect(await value(db, 'archive_list_item', { list: 'l1', item_id: 'i2' })).toEqual({ ok: true });
    expect((await value(db, 'get_list_items', { list: 'l1' })).items.map((i: { id: string }) => i.id)).toEqual(['i1']);
    expect(await value(db, 'get_list_names')).toEqual({ lists: [{ id: 'l1', name: 'Favorite colors' }], total: 1 });
    expect(await use(db, 'get_list_items', { list: 'groceries' })).toMatchObject({ ok: false, error: "no list with id or name 'groceries'" });
    expect(await use(db, 'edit_list_item', { list: 'l1', item_id: 'i9', text: 'x' })).toMatchObject({ ok: false, error: "no item with id 'i9'" });
  });
});

describe('search (FTS5)', () => {
  it('finds tasks, projects, lists and items by word prefixes, best first, and skips archived things', async () => {
    const { db } = tempDb();
    seedInbox(db);
    const ctx = userCtx(db);
    okValue(createProject(db, ctx, { name: 'Birthday Celebration' }));
    okValue(createProject(db, ctx, { name: 'Old birthday stuff' }));
    okValue(archiveProject(db, ctx, { project: 'Old birthday stuff' }));
    okValue(makeList(db, ctx, { name: 'Birthday gifts' }));
    okValue(addListItem(db, ctx, { list: 'Birthday gifts', text: 'A birthday book' }));
    okValue(addListItem(db, ctx, { list: 'Birthday gifts', text: 'Old birthday card' }));
    okValue(archiveListItem(db, ctx, { list: 'Birthday gifts', item: 'i2' }));

    const r = await value(db, 'search', { query: 'birthday' });
    const types = r.matches.map((m: { type: string }) => m.type);
    expect(r.total).toBe(4 + 1 + 1 + 1);
    expect(new Set(types)).toEqual(new Set(['task', 'project', 'list', 'item']));
    expect(r.matches).toContainEqual({ type: 'item', id: 'i1', text: 'A birthday book', list: 'Birthday gifts', checked: false });
    expect(r.matches).toContainEqual({ type: 'project', id: 'p1', name: 'Birthday Celebration' });
    expect(r.matches.some((m: { name?: string; text?: string }) => /old/i.test(m.name ?? m.text ?? ''))).toBe(false);

    const cake = await value(db, 'search', { query: 'birth CAKE' });
    expect(cake.matches.map((m: { content: string }) => m.content)).toEqual(expect.arrayContaining(['Bake the birthday cake', 'Buy milk birthday cake']));
    expect(cake.total).toBe(3);
  });

  it('is safe for any text and says when there are no words', async () => {
    const { db } = tempDb();
    seedInbox(db);
    for (const q of ['"unbalanced', 'NEAR(a b)', 'a -b', 'col:x', "don't", '3.10*']) expect((await use(db, 'search', { query: q })).ok).toBe(true);
    expect((await value(db, 'search', { query: "don't forget" })).total).toBe(1);
    expect(await use(db, 'search', { query: '  ?!  ' })).toMatchObject({ ok: false, error: 'the search has no words in it' });
    expect(ftsQuery('Café 3.11')).toBe('"Café"* "3"* "11"*');
  });

  it('stays right through edits and undo, which write rows directly', async () => {
    const { db } = tempDb();
    const ctx = { requestId: 'r1', source: 'agent' as const };
    const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
    const c = { db, action: ctx, signal: new AbortController().signal, services: createToolServices() };
    await tool('add_task').run({ content: 'Water the plants' }, c);
    await tool('update_task').run({ task_id: 't1', content: 'Water the cactus' }, c);
    expect((await value(db, 'search', { query: 'plants' })).total).toBe(0);
    expect((await value(db, 'search', { query: 'cactus' })).total).toBe(1);
    okValue(undoRequest(db, 'r1', { ctx: newUserRequest(db) }));
    expect((await value(db, 'search', { query: 'cactus' })).total).toBe(0);
    expect((await value(db, 'search', { query: 'water' })).total).toBe(0);
  });
});
