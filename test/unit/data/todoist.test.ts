import { strToU8, zipSync } from 'fflate';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createProject, listTasks, undoRequest } from '../../../src-main/core';
import {
  applyTodoistImport,
  describePlan,
  importTodoist,
  planTodoistImport,
  projectNameOf,
  readTodoistFiles,
  todoistDate,
  type TodoistFile,
} from '../../../src-main/core/data';
import { snapshot, tempDb, userCtx } from '../../support/db';

const FIXTURES = join(__dirname, '../../fixtures/todoist');
const fixture = (name: string): TodoistFile[] => readTodoistFiles(name, readFileSync(join(FIXTURES, name)));
/** Fixed "now" (Monday 23 November 2026, local time: "every monday" is due that day) so relative dates in the fixtures are reproducible. */
const NOW = new Date(2026, 10, 23, 10, 0);
const HEADER = 'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG';
const csv = (name: string, ...rows: string[]): TodoistFile[] => [{ name, text: [HEADER, ...rows].join('\n') }];

describe('Todoist CSV export → plan', () => {
  it('reads the template export: quoted commas and newlines, unicode, sections, notes, subtasks, priorities, recurring dates', () => {
    const { db } = tempDb();
    const plan = planTodoistImport(db, fixture('Home Renovation.csv'), { now: NOW });
    expect(plan.projects).toHaveLength(1);
    const p = plan.projects[0]!;
    expect(p.name).toBe('Home Renovation');
    expect(p.existingId).toBeNull();
    expect(p.sections).toEqual(['Kitchen 🍳', 'Garden']);
    expect(p.tasks.map((t) => [t.content, t.priority, t.due, t.recurrence, t.indent])).toEqual([
      ['Buy paint, primer and brushes @errands', 1, '2026-11-24T17:00', null, 1],
      ['Sand the cupboard doors', 2, '2026-12-05', null, 2],
      ['Choose tiles — ask Zoë about the grout', 3, '2026-12-12', null, 1],
      ['Water the plants @home', 4, '2026-11-23', 'FREQ=WEEKLY;BYDAY=MO', 1],
      ['Clean the gutters', 1, expect.stringMatching(/^2026-08-13T\d\d:30$/), null, 1],
      // Read only in part ("starting" is left over): the rule is kept, and the phrase too.
      ['Prune the roses 🌹 (every 3 weeks starting 1 mar)', 4, '2027-03-01', 'FREQ=WEEKLY;INTERVAL=3', 1],
    ]);
    // Lines name where each row starts, counting the quoted newline inside the note above it.
    expect(p.tasks.map((t) => t.line)).toEqual([5, 8, 9, 12, 13, 15]);
    expect(p.notes).toBe(1);
    expect(p.descriptions).toBe(2);
    expect(p.subtasks).toBe(1);
    expect(plan.totals).toMatchObject({ projects: 1, newProjects: 1, tasks: 6, sections: 2, notes: 1, descriptions: 2, subtasks: 1, recurring: 2 });
    expect(describePlan(plan).join('\n')).toMatch(/new project 'Home Renovation': 6 tasks; sections flattened: Kitchen 🍳, Garden/);
    expect(describePlan(plan).join('\n')).toMatch(/not imported: 1 comment and 2 descriptions/);
    // One subtask is said in the singular (it said "1 subtask become").
    expect(describePlan(plan)).toContain('1 subtask becomes a task of its own (Tidy has no subtasks)');
  });

  it('reads a backup ZIP as one project per CSV, into the Inbox and existing projects by name', () => {
    const { db } = tempDb();
    createProject(db, userCtx(db), { name: 'work' });
    const files = fixture('todoist-backup.zip');
    expect(files.map((f) => f.name)).toEqual(['Home Renovation [2203306142].csv', 'Inbox [2203306140].csv', 'Work [2203306141].csv']);
    const plan = planTodoistImport(db, files, { now: NOW });
    expect(plan.projects.map((p) => [p.name, p.existingId === null, p.tasks.length])).toEqual([
      ['Home Renovation', true, 6],
      ['Inbox', false, 2],
      ['Work', false, 3],
    ]);
    expect(plan.projects[1]!.tasks[1]!.content).toBe('日本語のタスク');
    expect(plan.projects[2]!.tasks[0]!.due).toBe('2026-12-01T09:00');
  });

  it('names projects after the file, without Todoist’s [id]', () => {
    expect(projectNameOf('Home Renovation.csv')).toBe('Home Renovation');
    expect(projectNameOf('dir/Work [2203306141].CSV')).toBe('Work');
    expect(projectNameOf('.csv')).toBe('Imported from Todoist');
  });

  it('maps dates: ISO dates and times, phrases, recurring phrases; unreadable ones are flagged', () => {
    expect(todoistDate('2026-12-05', NOW)).toEqual({ due: '2026-12-05', recurrence: null, keep: null });
    expect(todoistDate('2026-12-05T08:15:00', NOW).due).toBe('2026-12-05T08:15');
    expect(todoistDate('tomorrow', NOW).due).toBe('2026-11-24');
    expect(todoistDate('every day', NOW)).toEqual({ due: '2026-11-23', recurrence: 'FREQ=DAILY', keep: null });
    expect(todoistDate('every! 2 days', NOW)).toEqual({ due: '2026-11-23', recurrence: 'FREQ=DAILY;INTERVAL=2', keep: null });
    expect(todoistDate('every weekday at 9am', NOW)).toEqual({ due: '2026-11-24T09:00', recurrence: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', keep: null });
    expect(todoistDate('every full moon', NOW)).toEqual({ due: null, recurrence: null, keep: 'every full moon' });
    expect(todoistDate('whenever I feel like it', NOW)).toEqual({ due: null, recurrence: null, keep: 'whenever I feel like it' });
    expect(todoistDate('', NOW)).toEqual({ due: null, recurrence: null, keep: null });
  });
});

describe('Todoist import refuses bad input with one line naming the row, and writes nothing', () => {
  const cases: [string, TodoistFile[], RegExp][] = [
    ['an unknown TYPE', csv('a.csv', 'task,ok,,1,1', 'bogus,x,,1,1'), /^a\.csv, line 3: TYPE "bogus" is not task, section, note or meta/],
    ['a priority out of range', csv('a.csv', 'task,ok,,1,1', 'task,x,,7,1'), /^a\.csv, line 3: PRIORITY "7" is not 1, 2, 3 or 4/],
    ['a bad indent', csv('a.csv', 'task,x,,1,9'), /^a\.csv, line 2: INDENT "9"/],
    ['an empty task', csv('a.csv', 'task,,,1,1'), /^a\.csv, line 2: the task has no CONTENT/],
    ['an unclosed quote', csv('a.csv', 'task,ok,,1,1', 'task,"never closed,,1,1'), /^a\.csv: row at line \d+ is malformed \(Quote Not Closed\)/],
    ['another CSV', [{ name: 'b.csv', text: 'name,email\nx,y' }], /^b\.csv has no TYPE column/],
    ['an empty file', [{ name: 'c.csv', text: '' }], /^c\.csv is empty/],
    ['a task too long', csv('a.csv', `task,${'x'.repeat(3000)},,1,1`), /line 2: the task is 3000 characters long/],
  ];
  for (const [what, files, error] of cases)
    it(what, async () => {
      const { db } = tempDb();
      const before = snapshot(db);
      await expect(importTodoist(db, ':memory:', files, { now: NOW })).rejects.toThrow(error);
      try {
        planTodoistImport(db, files);
      } catch (e) {
        expect((e as Error).message.split('\n')).toHaveLength(1);
      }
      expect(snapshot(db)).toEqual(before);
    });

  it('a ZIP that is damaged, empty of CSVs, or declares a bomb is refused before inflating', () => {
    const zip = readFileSync(join(FIXTURES, 'todoist-backup.zip'));
    expect(() => readTodoistFiles('x.zip', zip.subarray(0, 200))).toThrow(/x\.zip is a damaged ZIP file/);
    expect(() => readTodoistFiles('y.zip', zipSync({ 'a.txt': strToU8('hi') }))).toThrow(/y\.zip holds no CSV files/);
    // 70 MB of one repeated byte compresses to ~70 kB: refused by its declared size.
    const bomb = zipSync({ 'big.csv': new Uint8Array(70 * 1024 * 1024).fill(65) }, { level: 1 });
    expect(bomb.length).toBeLessThan(1024 * 1024);
    expect(() => readTodoistFiles('bomb.zip', bomb)).toThrow(/bomb\.zip unpacks to more than 64 MB/);
    const many = Object.fromEntries(Array.from({ length: 2001 }, (_, i) => [`p${i}.csv`, strToU8(HEADER)]));
    expect(() => readTodoistFiles('many.zip', zipSync(many))).toThrow(/more than 2000 CSV files/);
  });

  it('a binary file that is not a ZIP is refused', () => {
    expect(() => readTodoistFiles('photo.jpg', new Uint8Array([0xff, 0xd8, 0, 1, 2]))).toThrow(/neither a CSV nor a ZIP/);
  });

  it('--project with a ZIP is refused', () => {
    const { db } = tempDb();
    expect(() => planTodoistImport(db, fixture('todoist-backup.zip'), { project: 'X' })).toThrow(/--project applies to a single CSV/);
  });

  it('a failure in the middle of the write rolls everything back (one transaction)', () => {
    const { db } = tempDb();
    const plan = planTodoistImport(db, fixture('todoist-backup.zip'), { now: NOW });
    const before = snapshot(db);
    // The last project's name is taken by an archived project after the preview: the third project fails.
    db.prepare(`INSERT INTO projects (id, name, name_key, builtin, archived_at, created_at, updated_at) VALUES ('p900', 'Work', 'work', 0, 'x', 'x', 'x')`).run();
    const mid = snapshot(db);
    expect(() => applyTodoistImport(db, plan)).toThrow(/a project named "Work" exists but is archived/);
    expect(snapshot(db)).toEqual(mid);
    expect(mid).not.toEqual(before);
  });

  it('hostile text stays text: formulas, HTML and control characters are imported as written', () => {
    const { db } = tempDb();
    const plan = planTodoistImport(db, csv('x.csv', 'task,"=HYPERLINK(""http://evil"")",,1,1', 'task,<img src=x onerror=alert(1)>,,1,1'), { now: NOW });
    expect(plan.projects[0]!.tasks.map((t) => t.content)).toEqual(['=HYPERLINK("http://evil")', '<img src=x onerror=alert(1)>']);
  });
});

describe('Todoist import writes', () => {
  it('one request with source import, a backup first, and undo takes the whole import back', async () => {
    const { db, path, dir } = tempDb();
    const before = snapshot(db);
    const r = await importTodoist(db, path, fixture('todoist-backup.zip'), { now: NOW });
    expect(r.backup).toMatch(/backups\/tidy-before-import-.*\.db$/);
    expect(existsSync(r.backup!)).toBe(true);
    expect(readdirSync(join(dir, 'backups'))).toHaveLength(1);
    const actions = db.prepare(`SELECT request_id, source, tool, summary FROM actions`).all() as { request_id: string; source: string; summary: string }[];
    expect(actions).toHaveLength(3);
    expect(new Set(actions.map((a) => a.request_id))).toEqual(new Set([r.requestId]));
    expect(actions.every((a) => a.source === 'import')).toBe(true);
    expect(actions.map((a) => a.summary)).toContain("Imported 2 tasks from Todoist into 'Inbox'");
    const home = listTasks(db, { project: 'Home Renovation' }).tasks;
    expect(home).toHaveLength(6);
    expect(home.find((t) => t.content === 'Water the plants @home')).toMatchObject({ due: '2026-11-23', recurrence: 'FREQ=WEEKLY;BYDAY=MO', priority: 4 });
    expect(listTasks(db, { project: 'inbox' }).tasks.map((t) => t.content)).toEqual(['Call the accountant @phone', '日本語のタスク']);

    const u = undoRequest(db, r.requestId, { ctx: userCtx(db) });
    expect(u.ok).toBe(true);
    const after = snapshot(db);
    expect(after['tasks']).toEqual(before['tasks']);
    expect(after['projects']).toEqual(before['projects']);
  });

  it('--project puts a CSV into the project named', async () => {
    const { db } = tempDb();
    await importTodoist(db, ':memory:', fixture('Home Renovation.csv'), { project: '  My   house ', now: NOW });
    expect(listTasks(db, { project: 'My house' }).tasks).toHaveLength(6);
  });
});
