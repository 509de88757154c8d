import { describe, expect, it } from 'vitest';
import {
  addListItem,
  addTask,
  archiveListItem,
  archiveProject,
  checkListItem,
  completeTask,
  createProject,
  editListItem,
  listItems,
  listProjects,
  listProjectsWithCounts,
  listTasks,
  makeList,
  moveTask,
  renameList,
  renameProject,
  reopenTask,
  unarchiveProject,
  updateTask,
} from '../../../src-main/core';
import { okValue, snapshot, tempDb, userCtx } from '../../support/db';

describe('projects', () => {
  it('creates projects with string ids, logged as one action each', () => {
    const { db } = tempDb();
    const r = createProject(db, userCtx(db), { name: '  Birthday   Celebration ' });
    expect(r.ok && r.value).toEqual({ id: 'p1', name: 'Birthday Celebration' });
    expect(r.ok && r.actionId).toBe('a1');
    expect(db.prepare(`SELECT tool, summary FROM actions`).all()).toEqual([{ tool: 'create_project', summary: "Created project 'Birthday Celebration'" }]);
  });

  it('keeps names unique case-insensitively, Unicode included, and says which project has the name', () => {
    const { db } = tempDb();
    okValue(createProject(db, userCtx(db), { name: 'Ärger' }));
    const clash = createProject(db, userCtx(db), { name: 'äRGER' });
    expect(clash).toMatchObject({ ok: false, error: "a project named 'Ärger' already exists (p1)" });
    expect(createProject(db, userCtx(db), { name: 'inbox' })).toMatchObject({ ok: false, error: expect.stringContaining("'Inbox' already exists") });
  });

  it('rejects empty and over-long names with a hint', () => {
    const { db } = tempDb();
    const before = snapshot(db);
    const empty = createProject(db, userCtx(db), { name: '   ' });
    expect(empty).toEqual({ ok: false, code: 'refused', error: 'project name is empty', hint: 'give the project a name' });
    expect(createProject(db, userCtx(db), { name: 'x'.repeat(121) })).toMatchObject({ ok: false, hint: 'use at most 120 characters' });
    expect(snapshot(db)).toEqual(before);
    expect(db.prepare(`SELECT count(*) AS n FROM actions`).get()).toEqual({ n: 0 });
  });

  it('never renames or archives the Inbox', () => {
    const { db } = tempDb();
    expect(renameProject(db, userCtx(db), { project: 'inbox', name: 'Other' })).toMatchObject({ ok: false, error: 'the Inbox cannot be renamed' });
    expect(archiveProject(db, userCtx(db), { project: 'Inbox' })).toMatchObject({ ok: false, error: 'the Inbox cannot be archived' });
  });

  it('archives only a project without open tasks, and a name is free again once archived', () => {
    const { db } = tempDb();
    const p = okValue(createProject(db, userCtx(db), { name: 'Work' }));
    const t = okValue(addTask(db, userCtx(db), { content: 'Report', project: 'work' }));
    expect(archiveProject(db, userCtx(db), { project: p.id })).toMatchObject({ ok: false, error: "project 'Work' still has 1 open task(s)" });
    okValue(completeTask(db, userCtx(db), { task: t.id }));
    okValue(archiveProject(db, userCtx(db), { project: p.id }));
    expect(listProjects(db).map((x) => x.name)).toEqual(['Inbox']);
    okValue(createProject(db, userCtx(db), { name: 'work' }));
    expect(unarchiveProject(db, userCtx(db), { project: p.id })).toMatchObject({ ok: false, error: expect.stringContaining('already exists') });
  });

  it('counts open tasks per project, done ones left out', () => {
    const { db } = tempDb();
    okValue(createProject(db, userCtx(db), { name: 'Work' }));
    okValue(createProject(db, userCtx(db), { name: 'Empty' }));
    okValue(addTask(db, userCtx(db), { content: 'a', project: 'Work' }));
    const b = okValue(addTask(db, userCtx(db), { content: 'b', project: 'Work' }));
    okValue(addTask(db, userCtx(db), { content: 'c' }));
    okValue(completeTask(db, userCtx(db), { task: b.id }));
    expect(listProjectsWithCounts(db).map((p) => [p.name, p.openTasks])).toEqual([
      ['Inbox', 1],
      ['Empty', 0],
      ['Work', 1],
    ]);
  });

  it('finds projects by id or by name', () => {
    const { db } = tempDb();
    okValue(createProject(db, userCtx(db), { name: 'Personal Website' }));
    const t = okValue(addTask(db, userCtx(db), { content: 'Write bio' }));
    expect(okValue(moveTask(db, userCtx(db), { task: t.id, project: 'personal website' })).project).toBe('Personal Website');
    expect(okValue(renameProject(db, userCtx(db), { project: 'P1', name: 'Site' })).name).toBe('Site');
  });
});

describe('tasks', () => {
  it('adds to the inbox by default and lists oldest first', () => {
    const { db } = tempDb();
    okValue(addTask(db, userCtx(db), { content: 'one' }));
    okValue(addTask(db, userCtx(db), { content: 'two' }));
    const { tasks, total } = listTasks(db, { project: 'inbox' });
    expect(total).toBe(2);
    expect(tasks.map((t) => [t.id, t.content, t.projectId, t.project, t.status])).toEqual([
      ['t1', 'one', 'inbox', 'Inbox', 'open'],
      ['t2', 'two', 'inbox', 'Inbox', 'open'],
    ]);
  });

  it('gives clear errors for bogus ids, projects, priorities and dates', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    expect(moveTask(db, userCtx(db), { task: '42', project: 'inbox' })).toEqual({
      ok: false,
      code: 'refused',
      error: "no task with id '42'",
      hint: 'list the tasks (inbox or all tasks) to see valid task ids',
    });
    expect(moveTask(db, userCtx(db), { task: t.id, project: 'Nowhere' })).toMatchObject({ ok: false, error: "no project with id or name 'Nowhere'" });
    expect(updateTask(db, userCtx(db), { task: t.id, priority: 7 })).toMatchObject({ ok: false, hint: expect.stringContaining('1 (p1, most urgent) to 4') });
    expect(updateTask(db, userCtx(db), { task: t.id, due: '2026-02-31x' })).toMatchObject({ ok: false, hint: expect.stringContaining('YYYY-MM-DD') });
    expect(addTask(db, userCtx(db), { content: ' \n ' })).toMatchObject({ ok: false, error: 'task is empty' });
  });

  it('updates, completes and reopens, refusing no-op changes', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const u = okValue(updateTask(db, userCtx(db), { task: t.id, content: 'y', priority: 3, due: '2026-12-24' }));
    expect([u.content, u.priority, u.due]).toEqual(['y', 3, '2026-12-24']);
    expect(updateTask(db, userCtx(db), { task: t.id, content: 'y' })).toMatchObject({ ok: false, error: 'task t1 already looks like that' });
    expect(okValue(completeTask(db, userCtx(db), { task: t.id })).status).toBe('done');
    expect(completeTask(db, userCtx(db), { task: t.id })).toMatchObject({ ok: false, error: 'task t1 is already done' });
    expect(okValue(reopenTask(db, userCtx(db), { task: t.id })).status).toBe('open');
    expect(okValue(updateTask(db, userCtx(db), { task: t.id, due: null })).due).toBeNull();
  });

  it('does not move a task into an archived project', () => {
    const { db } = tempDb();
    const p = okValue(createProject(db, userCtx(db), { name: 'Old' }));
    okValue(archiveProject(db, userCtx(db), { project: p.id }));
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    expect(moveTask(db, userCtx(db), { task: t.id, project: p.id })).toMatchObject({ ok: false, error: "project 'Old' is archived" });
  });
});

describe('lists', () => {
  it('keeps items in order; checks, edits and archives them; names unique case-insensitively', () => {
    const { db } = tempDb();
    const l = okValue(makeList(db, userCtx(db), { name: 'Groceries' }));
    expect(makeList(db, userCtx(db), { name: 'GROCERIES' })).toMatchObject({ ok: false });
    const milk = okValue(addListItem(db, userCtx(db), { list: 'groceries', text: 'milk' }));
    const eggs = okValue(addListItem(db, userCtx(db), { list: l.id, text: 'eggs' }));
    okValue(checkListItem(db, userCtx(db), { list: l.id, item: milk.id, checked: true }));
    okValue(editListItem(db, userCtx(db), { list: l.id, item: eggs.id, text: 'free-range eggs' }));
    expect(listItems(db, l.id).items.map((i) => [i.text, i.checked, i.position])).toEqual([
      ['milk', true, 1],
      ['free-range eggs', false, 2],
    ]);
    okValue(archiveListItem(db, userCtx(db), { list: l.id, item: milk.id }));
    expect(listItems(db, l.id).items.map((i) => i.text)).toEqual(['free-range eggs']);
    expect(listItems(db, l.id, { includeArchived: true }).items).toHaveLength(2);
    expect(okValue(renameList(db, userCtx(db), { list: l.id, name: 'Shopping' })).name).toBe('Shopping');
  });

  it('refuses an item id from another list', () => {
    const { db } = tempDb();
    okValue(makeList(db, userCtx(db), { name: 'A' }));
    okValue(makeList(db, userCtx(db), { name: 'B' }));
    const item = okValue(addListItem(db, userCtx(db), { list: 'A', text: 'x' }));
    expect(checkListItem(db, userCtx(db), { list: 'B', item: item.id, checked: true })).toMatchObject({ ok: false, error: "item i1 is not on 'B'" });
    expect(addListItem(db, userCtx(db), { list: 'C', text: 'x' })).toMatchObject({ ok: false, error: "no list with id or name 'C'" });
  });
});

describe('due dates that do not exist', () => {
  it.each(['2026-02-30', '2026-02-29', '2026-04-31', '2026-13-01', '2026-00-10', '2025-11-31T10:00'])('%s is refused', (due) => {
    const { db } = tempDb();
    const r = addTask(db, userCtx(db), { content: 'x', due });
    expect(r).toMatchObject({ ok: false, error: `due date ${JSON.stringify(due)} is not a date` });
  });

  it.each(['2028-02-29', '2026-12-31', '2026-03-29T02:30'])('%s is taken', (due) => {
    const { db } = tempDb();
    expect(okValue(addTask(db, userCtx(db), { content: 'x', due })).due).toBe(due);
  });
});
