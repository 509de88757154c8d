// An unknown #Project is no dead end: the nearest name is suggested for a typo, and the add can create the
// project and file the task there in one request, undone together.
import { describe, expect, it } from 'vitest';
import { undoRequest } from '../../../src-main/core/actions/undo';
import { createProject, listProjects } from '../../../src-main/core/domain/projects';
import { createSection } from '../../../src-main/core/domain/sections';
import { addFromText } from '../../../src-main/core/domain/quickadd';
import { nearestProject, parseQuickAdd } from '../../../src-shared/quickadd';
import { okValue, tempDb, userCtx } from '../../support/db';

const now = new Date(2035, 0, 10, 10, 0);
const PROJECTS = [
  { id: 'inbox', name: 'Inbox' },
  { id: 'p1', name: 'Family' },
  { id: 'p2', name: 'Work' },
  { id: 'p3', name: 'Birthday Celebration' },
  { id: 'p4', name: 'Home' },
];

describe('nearest project for a mistyped #name', () => {
  it.each([
    ['Famly', 'Family'],
    ['famliy', 'Family'],
    ['Wrok', 'Work'],
    ['birthday', 'Birthday Celebration'],
    ['Hme', 'Home'],
  ])('#%s → %s', (typed, name) => {
    expect(nearestProject(typed, PROJECTS)?.name).toBe(name);
  });

  it.each(['Holidays', 'x', 'Garden', '', 'F'.repeat(61)])('#%s has none', (typed) => {
    expect(nearestProject(typed, PROJECTS)).toBeNull();
  });

  it('names no project when two are equally near, and stays bounded on many long names', () => {
    expect(nearestProject('Hame', [...PROJECTS, { id: 'p5', name: 'Game' }])).toBeNull();
    const many = Array.from({ length: 5000 }, (_, i) => ({ id: `p${i}`, name: `${'y'.repeat(55)}${i}` }));
    expect(nearestProject('z'.repeat(60), many)).toBeNull();
  });

  it('is part of what the parser says', () => {
    expect(parseQuickAdd('Call grandma #Famly', { projects: PROJECTS, now })).toMatchObject({
      content: 'Call grandma #Famly',
      unknownProject: 'Famly',
      projectSuggestion: { id: 'p1', name: 'Family' },
    });
    expect(parseQuickAdd('Call grandma #Family', { projects: PROJECTS, now })).toMatchObject({ project: { id: 'p1' }, unknownProject: null, projectSuggestion: null });
  });
});

describe('adding with --create-project', () => {
  it('creates the project, files the task there, and one undo of the request takes both back', () => {
    const { db } = tempDb();
    const ctx = userCtx(db);
    const r = addFromText(db, ctx, 'Plan the reunion #Family tomorrow', { createProject: true, now });
    const task = okValue(r);
    expect(r.createdProject).toBe('Family');
    expect(r.note).toBeNull();
    expect(task).toMatchObject({ content: 'Plan the reunion', project: 'Family', due: '2035-01-11' });
    expect(listProjects(db).map((p) => p.name)).toContain('Family');
    okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) }));
    expect(listProjects(db).map((p) => p.name)).not.toContain('Family');
    expect(db.prepare(`SELECT status FROM tasks WHERE id = ?`).get(task.id)).toBeUndefined();
  });

  it('files into an existing project without creating one, and without the flag says how', () => {
    const { db } = tempDb();
    okValue(createProject(db, userCtx(db), { name: 'Family' }));
    const existing = addFromText(db, userCtx(db), 'Call #family', { createProject: true, now });
    expect(existing).toMatchObject({ ok: true, createdProject: null, value: { project: 'Family' } });
    const typo = addFromText(db, userCtx(db), 'Call #Famly', { now });
    expect(typo).toMatchObject({ ok: true, value: { project: 'Inbox', content: 'Call #Famly' } });
    expect(typo.note).toContain('did you mean Family?');
    const unknown = addFromText(db, userCtx(db), 'Plan #Holidays', { now });
    expect(unknown.note).toContain('--create-project');
    expect(listProjects(db)).toHaveLength(2);
  });

  it('says what stayed in the text as data, and takes a box’s defaults only where the line says nothing', () => {
    const { db } = tempDb();
    const family = okValue(createProject(db, userCtx(db), { name: 'Family' }));
    const work = okValue(createProject(db, userCtx(db), { name: 'Work' }));
    const section = okValue(createSection(db, userCtx(db), { project: work.id, name: 'Now' }));
    const typo = addFromText(db, userCtx(db), 'Call grandma every 12 hours #Famly', { now });
    expect(typo.unread).toEqual({ project: { name: 'Famly', suggestion: 'Family' }, repeat: 'every 12 hours' });
    expect(addFromText(db, userCtx(db), 'Plan #Holidays', { now }).unread).toEqual({ project: { name: 'Holidays', suggestion: null }, repeat: null });
    // A project view's box: its project and section, and Today's date, unless the line says otherwise.
    const inBox = okValue(addFromText(db, userCtx(db), 'Bake @home {2035-01-05} for 45m', { project: work.id, section: section.id, due: '2035-01-10', now }));
    expect(inBox).toMatchObject({ project: 'Work', section: 'Now', labels: ['home'], deadline: '2035-01-05', durationMin: 45, due: '2035-01-10' });
    expect(addFromText(db, userCtx(db), 'Bake', { project: work.id, section: section.id, now }).unread).toEqual({ project: null, repeat: null });
    // A #Project of another files it there, outside the box's section; its date wins over the box's.
    const elsewhere = okValue(addFromText(db, userCtx(db), 'Call mum tomorrow #Family', { project: work.id, section: section.id, due: '2035-01-10', now }));
    expect(elsewhere).toMatchObject({ projectId: family.id, section: null, due: '2035-01-11' });
  });

  it('refuses a name that cannot be a project in one line, adding nothing', () => {
    const { db } = tempDb();
    const before = db.prepare(`SELECT count(*) AS n FROM tasks`).get() as { n: number };
    const r = addFromText(db, userCtx(db), `Plan #${'x'.repeat(300)}`, { createProject: true, now });
    expect(r.ok).toBe(false);
    expect(db.prepare(`SELECT count(*) AS n FROM tasks`).get()).toEqual(before);
  });
});
