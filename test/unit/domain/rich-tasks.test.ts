import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTask, archiveTask, completeTask, createProject, getTask, listTasks, moveTask, openDatabase, undoAction, undoRequest, updateTask } from '../../../src-main/core';
import { searchAll } from '../../../src-main/core/domain/search';
import { archiveSection, createSection, renameSection, reorderSection, listSections } from '../../../src-main/core/domain/sections';
import { commentTask, indentTask, outdentTask } from '../../../src-main/core/domain/task-operations';
import { listComments, parseDuration, subtree } from '../../../src-main/core/domain/tasks';
import { listLabels, setLabelColour } from '../../../src-main/core/domain/labels';
import { migrations } from '../../../src-main/core/store/migrations';
import { okValue, snapshot, tempDb, tempDir, userCtx } from '../../support/db';

describe('migration 12: rich tasks', () => {
  it('keeps old action-log images undoing exactly after the new columns arrive', () => {
    const path = join(tempDir(), 'tidy.db');
    const old = openDatabase(path, { migrations: migrations.filter((m) => m.version <= 10) });
    // An add and an update as schema 10 logged them (full task images, without the new columns).
    const at = (m: number) => `2020-01-0${m}T10:00:00.000Z`;
    old.prepare(`INSERT INTO tasks (id, content, project_id, priority, position, created_at, updated_at) VALUES ('t1', 'Old task', 'inbox', 4, 1, ?, ?)`).run(at(1), at(1));
    const created = old.prepare(`SELECT * FROM tasks WHERE id = 't1'`).get();
    old.prepare(`UPDATE tasks SET priority = 1, updated_at = ? WHERE id = 't1'`).run(at(2));
    const updated = old.prepare(`SELECT * FROM tasks WHERE id = 't1'`).get();
    const log = old.prepare(`INSERT INTO actions (id, request_id, source, tool, args, changes, summary, created_at) VALUES (?, ?, 'user', ?, '{}', ?, ?, ?)`);
    const link = old.prepare(`INSERT INTO action_entities (entity, action_seq) VALUES ('tasks:t1', ?)`);
    log.run('a1', 'u1', 'add_task', JSON.stringify([{ table: 'tasks', id: 't1', before: null, after: created }]), 'Added', at(1));
    link.run(1);
    log.run('a2', 'u2', 'update_task', JSON.stringify([{ table: 'tasks', id: 't1', before: created, after: updated }]), 'Updated', at(2));
    link.run(2);
    old.prepare(`INSERT INTO id_counters (kind, next) VALUES ('a', 3), ('t', 2), ('u', 3)`).run();
    old.close();
    const added = { id: 't1' };

    const db = openDatabase(path);
    const changes = JSON.parse((db.prepare(`SELECT changes FROM actions ORDER BY seq DESC LIMIT 1`).get() as { changes: string }).changes) as { after: Record<string, unknown> }[];
    expect(changes[0]!.after).toMatchObject({ description: null, parent_id: null, section_id: null, deadline: null, duration_min: null });
    expect(getTask(db, added.id)).toMatchObject({ description: null, parentId: null, labels: [], deadline: null, durationMin: null, section: null });
    const last = db.prepare(`SELECT id FROM actions ORDER BY seq DESC LIMIT 1`).pluck().get() as string;
    okValue(undoAction(db, last, { ctx: userCtx(db) }));
    expect(getTask(db, added.id).priority).toBe(4);
    const first = db.prepare(`SELECT id FROM actions ORDER BY seq LIMIT 1`).pluck().get() as string;
    okValue(undoAction(db, first, { ctx: userCtx(db) }));
    expect(listTasks(db, { status: 'all' }).total).toBe(0);
    db.close();
  });
});

describe('description, comments, deadline, duration, labels', () => {
  it('sets and clears each field as one undoable action, and search finds descriptions and comments', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'Plan trip' }));
    const before = snapshot(db);
    const ctx = userCtx(db);
    const u = okValue(updateTask(db, ctx, { task: t.id, description: '# Notes\nBook **zeppelin** tickets', deadline: '2035-06-01', durationMin: '1h30m', labels: ['Travel', '@errands', 'travel'] }));
    expect(u).toMatchObject({ description: '# Notes\nBook **zeppelin** tickets', deadline: '2035-06-01', durationMin: 90, labels: ['errands', 'Travel'] });
    expect(listLabels(db).map((l) => l.name)).toEqual(['errands', 'Travel']);
    okValue(commentTask(db, ctx, { task: t.id, text: 'Ask about the quokka' }));
    expect(listComments(db, t.id).map((c) => c.text)).toEqual(['Ask about the quokka']);
    expect(searchAll(db, 'zeppelin').groups[0]?.hits.map((h) => h.id)).toEqual([t.id]);
    expect(searchAll(db, 'quokka').groups[0]?.hits.map((h) => h.id)).toEqual([t.id]);
    // Labels are one per name whatever the case; taking one off and clearing.
    expect(okValue(updateTask(db, userCtx(db), { task: t.id, labels: ['TRAVEL'] })).labels).toEqual(['Travel']);
    expect(okValue(updateTask(db, userCtx(db), { task: t.id, labels: ['none'], deadline: 'none', durationMin: null, description: '' }))).toMatchObject({
      labels: [],
      deadline: null,
      durationMin: null,
      description: null,
    });
    okValue(undoRequest(db, db.prepare(`SELECT request_id FROM actions ORDER BY seq DESC LIMIT 1`).pluck().get() as string, { ctx: userCtx(db) }));
    expect(getTask(db, t.id).labels).toEqual(['Travel']);
    okValue(undoRequest(db, db.prepare(`SELECT request_id FROM actions WHERE tool = 'update_task' AND undone_at IS NULL ORDER BY seq DESC LIMIT 1`).pluck().get() as string, { ctx: userCtx(db) }));
    okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(before);
    expect(searchAll(db, 'quokka').groups).toEqual([]);
  });

  it('refuses bad values with a hint, hostile ones included', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    for (const bad of [
      { durationMin: '0m' },
      { durationMin: 'forever' },
      { durationMin: 99999999 },
      { deadline: 'not a date at all' },
      { labels: ['two words'] },
      { labels: ["x'); DROP TABLE tasks;--"] },
      { labels: ['a'.repeat(500)] },
      { labels: Array.from({ length: 101 }, (_, i) => `l${i}`) },
      { description: 'x'.repeat(20_001) },
      { parent: t.id },
      { section: 'Nope' },
    ]) {
      const r = updateTask(db, userCtx(db), { task: t.id, ...bad });
      expect(r.ok, JSON.stringify(bad).slice(0, 80)).toBe(false);
      if (!r.ok) expect(r.hint.length).toBeGreaterThan(0);
    }
    expect(parseDuration('2h')).toBe(120);
    expect(parseDuration('45m')).toBe(45);
    expect(parseDuration(' 1.5h ')).toBe(90);
    expect(getTask(db, t.id)).toMatchObject({ labels: [], durationMin: null });
  });
});

describe('label colours', () => {
  it('gives a label a colour and takes it off, each one undoable change; refuses what is not #rrggbb', () => {
    const { db } = tempDb();
    okValue(addTask(db, userCtx(db), { content: 'Buy milk', labels: ['Errands'] }));
    const ctx = userCtx(db);
    expect(okValue(setLabelColour(db, ctx, { label: '@errands', colour: '#AA3300' }))).toMatchObject({ name: 'Errands', colour: '#aa3300', openTasks: 1 });
    expect(listLabels(db)[0]!.colour).toBe('#aa3300');
    const id = listLabels(db)[0]!.id;
    expect(okValue(setLabelColour(db, userCtx(db), { label: id, colour: 'none' })).colour).toBeNull();
    okValue(setLabelColour(db, userCtx(db), { label: 'Errands', colour: '#123456' }));
    for (const bad of ['red', '#12345', '#1234567', 'url(javascript:alert(1))', '#12345g', 'x'.repeat(20)]) {
      const r = setLabelColour(db, userCtx(db), { label: 'Errands', colour: bad });
      expect(r.ok === false && r.error).toMatch(/is not a colour/);
    }
    expect(setLabelColour(db, userCtx(db), { label: 'nope', colour: '#123456' }).ok).toBe(false);
    // The same colour again changes nothing.
    const same = setLabelColour(db, userCtx(db), { label: 'Errands', colour: '#123456' });
    expect(same.ok === false && same.error).toMatch(/already #123456/);
  });

  it('undoes a colour change back to the colour before', () => {
    const { db } = tempDb();
    okValue(addTask(db, userCtx(db), { content: 'Buy milk', labels: ['errands'] }));
    okValue(setLabelColour(db, userCtx(db), { label: 'errands', colour: '#aa3300' }));
    const before = snapshot(db);
    const ctx = userCtx(db);
    okValue(setLabelColour(db, ctx, { label: 'errands', colour: '#0055ff' }));
    expect(listLabels(db)[0]!.colour).toBe('#0055ff');
    okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) }));
    expect(snapshot(db)['labels']).toEqual(before['labels']);
  });
});

describe('subtasks', () => {
  it('any depth, no cycles; completing a parent completes its open subtasks in one undoable action', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'A' }));
    const b = okValue(addTask(db, userCtx(db), { content: 'B', parent: a.id }));
    const c = okValue(addTask(db, userCtx(db), { content: 'C', parent: b.id }));
    const d = okValue(addTask(db, userCtx(db), { content: 'D', parent: c.id }));
    expect(subtree(db, a.id)).toEqual([a.id, b.id, c.id, d.id]);
    const cycle = updateTask(db, userCtx(db), { task: a.id, parent: d.id });
    expect(cycle).toMatchObject({ ok: false, error: `task ${a.id} cannot go under ${d.id}: ${d.id} is one of its subtasks` });
    expect(cycle.ok ? '' : cycle.error).not.toContain('\n');
    okValue(completeTask(db, userCtx(db), { task: c.id }));
    const done = completeTask(db, userCtx(db), { task: a.id });
    expect(done).toMatchObject({ ok: true });
    expect([a, b, c, d].map((t) => getTask(db, t.id).status)).toEqual(['done', 'done', 'done', 'done']);
    okValue(undoAction(db, (done as { actionId: string }).actionId, { ctx: userCtx(db) }));
    // C was completed before, with D under it: they stay done; the others open again.
    expect([a, b, c, d].map((t) => getTask(db, t.id).status)).toEqual(['open', 'open', 'done', 'done']);
  });

  it('indent and outdent; moving or archiving a parent takes its subtree; a repeating parent reopens its subtasks', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'A' }));
    const b = okValue(addTask(db, userCtx(db), { content: 'B' }));
    const c = okValue(addTask(db, userCtx(db), { content: 'C' }));
    expect(indentTask(db, userCtx(db), { task: a.id })).toMatchObject({ ok: false });
    expect(okValue(indentTask(db, userCtx(db), { task: b.id })).parentId).toBe(a.id);
    expect(okValue(indentTask(db, userCtx(db), { task: c.id })).parentId).toBe(a.id);
    expect(okValue(indentTask(db, userCtx(db), { task: c.id })).parentId).toBe(b.id);
    expect(okValue(outdentTask(db, userCtx(db), { task: c.id })).parentId).toBe(a.id);
    const p = okValue(createProject(db, userCtx(db), { name: 'Garden' }));
    okValue(moveTask(db, userCtx(db), { task: a.id, project: p.id }));
    expect([a, b, c].map((t) => getTask(db, t.id).project)).toEqual(['Garden', 'Garden', 'Garden']);
    okValue(archiveTask(db, userCtx(db), { task: a.id }));
    expect([a, b, c].map((t) => getTask(db, t.id).status)).toEqual(['archived', 'archived', 'archived']);

    const r = okValue(addTask(db, userCtx(db), { content: 'Weekly review', recurrence: 'every week' }));
    const s = okValue(addTask(db, userCtx(db), { content: 'Inbox zero', parent: r.id }));
    okValue(completeTask(db, userCtx(db), { task: s.id }));
    const rolled = okValue(completeTask(db, userCtx(db), { task: r.id }));
    expect(rolled.status).toBe('open');
    expect(getTask(db, s.id).status).toBe('open');
  });
});

describe('sections', () => {
  it('create, rename, reorder, archive, and move a task into one', () => {
    const { db } = tempDb();
    const p = okValue(createProject(db, userCtx(db), { name: 'House' }));
    const s1 = okValue(createSection(db, userCtx(db), { project: 'house', name: 'Kitchen' }));
    const s2 = okValue(createSection(db, userCtx(db), { project: p.id, name: 'Garden' }));
    expect(createSection(db, userCtx(db), { project: p.id, name: 'kitchen' })).toMatchObject({ ok: false });
    okValue(reorderSection(db, userCtx(db), { section: s2.id, before: s1.id }));
    expect(listSections(db, p.id).map((s) => s.name)).toEqual(['Garden', 'Kitchen']);
    okValue(renameSection(db, userCtx(db), { section: s1.id, name: 'Cooking' }));
    const t = okValue(addTask(db, userCtx(db), { content: 'Paint', project: p.id, section: 'cooking' }));
    expect(t).toMatchObject({ section: 'Cooking', sectionId: s1.id });
    const sub = okValue(addTask(db, userCtx(db), { content: 'Buy paint', parent: t.id }));
    expect(sub).toMatchObject({ project: 'House', section: 'Cooking' });
    expect(archiveSection(db, userCtx(db), { section: s1.id })).toMatchObject({ ok: false, error: "section 'Cooking' still has 2 open task(s)" });
    okValue(updateTask(db, userCtx(db), { task: t.id, section: s2.id }));
    expect(getTask(db, sub.id).section).toBe('Garden');
    okValue(archiveSection(db, userCtx(db), { section: s1.id }));
    expect(listSections(db, p.id).map((s) => s.name)).toEqual(['Garden']);
  });
});
