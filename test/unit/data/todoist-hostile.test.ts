// Todoist imports under attack (issue 28 items 6 and 8, and the parallel-import defect): impossible dates
// stay in the text with a note instead of being stored shifted; ZIP entries are bounded by the bytes
// actually inflated, and overlapping, duplicate, short, over-long or damaged entries are refused in one line.
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { listTasks } from '../../../src-main/core';
import { applyTodoistImport, describePlan, planTodoistImport, readTodoistFiles, todoistDate, type TodoistFile } from '../../../src-main/core/data';
import { TODOIST_HEADER as HEADER, todoistCsv as csvText, zipOf } from '../../support/zip-craft';
import { checkDate, checkDuration } from '../../../src-shared/dates';
import { snapshot, tempDb } from '../../support/db';

const NOW = new Date(2026, 10, 23, 10, 0);

const refusal = (name: string, bytes: Uint8Array): string => {
  try {
    readTodoistFiles(name, bytes);
  } catch (e) {
    const message = (e as Error).message;
    expect(message.split('\n')).toHaveLength(1);
    return message;
  }
  throw new Error(`expected ${name} to be refused`);
};

describe('ZIP entries are bounded by what they inflate to', () => {
  it('the hand-made ZIP reads when its headers are honest', () => {
    const files = readTodoistFiles('ok.zip', zipOf([{ name: 'Home.csv', data: strToU8(csvText(200)) }]));
    expect(files).toHaveLength(1);
    expect(files[0]!.text.split('\n')).toHaveLength(201);
  });

  it('a header that under-declares its CSV is refused (it imported 3 of 200 tasks with exit 0)', () => {
    const data = strToU8(csvText(200));
    const declare = csvText(3).length;
    expect(refusal('short.zip', zipOf([{ name: 'Home.csv', data, declare }]))).toBe(
      `short.zip: entry "Home.csv" unpacks to more than the ${declare.toLocaleString('en')} bytes it declares; nothing was imported`,
    );
  });

  it('a header that over-declares (a short read) and a bad CRC are refused', () => {
    const data = strToU8(csvText(20));
    expect(refusal('long.zip', zipOf([{ name: 'Home.csv', data, declare: data.length + 10 }]))).toMatch(/^long\.zip: entry "Home\.csv" ends after [\d,]+ of the [\d,]+ bytes it declares \(a short read\)/);
    expect(refusal('crc.zip', zipOf([{ name: 'Home.csv', data, crc: 1234 }]))).toBe('crc.zip: entry "Home.csv" is damaged (its CRC does not match); nothing was imported');
  });

  it('entries pointing into one deflate stream are refused as overlapping, before anything is inflated', () => {
    // One 8 MB stream of zeros; 2,000 directory entries all pointing at it, each declaring 100 bytes.
    const bomb = zipOf(
      [{ name: 'a.csv', data: new Uint8Array(8 * 1024 * 1024), declare: 100 }],
      Array.from({ length: 2_000 }, (_, i) => ({ name: `b${i}.csv`, of: 0 })),
    );
    expect(refusal('overlap.zip', bomb)).toBe('overlap.zip: entries "a.csv" and "b0.csv" overlap; nothing was imported');
    // The same stream alone: inflating stops at the first byte past the 100 declared.
    expect(refusal('one.zip', zipOf([{ name: 'a.csv', data: new Uint8Array(8 * 1024 * 1024), declare: 100 }]))).toBe(
      'one.zip: entry "a.csv" unpacks to more than the 100 bytes it declares; nothing was imported',
    );
  });

  it('two entries of one name are refused (which one wins would be a guess)', () => {
    const zip = zipOf([
      { name: 'Home.csv', data: strToU8(csvText(1)) },
      { name: 'Home.csv', data: strToU8(csvText(2)) },
    ]);
    expect(refusal('dup.zip', zip)).toBe('dup.zip holds two entries named "Home.csv" (which one to import is unclear); nothing was imported');
  });

  it('a directory pointing past the data, or cut off, is a damaged ZIP', () => {
    const good = zipSync({ 'Home.csv': strToU8(csvText(5)) });
    expect(refusal('cut.zip', good.subarray(0, good.length - 10))).toMatch(/^cut\.zip is a damaged ZIP file/);
  });
});

describe('Todoist dates: impossible ones stay in the text with a note', () => {
  it('checkDate refuses 2026-02-30, 2026-13-01, 0000-01-01 and T25:61; checkDuration bounds lengths', () => {
    expect(checkDate('2026-02-28')).toEqual({ ok: true, date: '2026-02-28' });
    expect(checkDate('2028-02-29T09:05:59')).toEqual({ ok: true, date: '2028-02-29T09:05' });
    expect(checkDate('2026-02-30')).toEqual({ ok: false, error: '"2026-02-30": 2026-02 has no day 30' });
    expect(checkDate('2026-13-01')).toEqual({ ok: false, error: '"2026-13-01": there is no month 13' });
    expect(checkDate('0000-01-01')).toEqual({ ok: false, error: '"0000-01-01": the year is outside 1000–9999' });
    expect(checkDate('2026-12-01T25:61')).toEqual({ ok: false, error: '"2026-12-01T25:61": 25:61 is not a time of day' });
    expect(checkDate('x'.repeat(10_000)).ok).toBe(false);
    expect(checkDate(42).ok).toBe(false);
    expect(checkDuration(3600)).toEqual({ ok: true, seconds: 3600 });
    expect(checkDuration(99_999_999 * 7 * 86_400).ok).toBe(false);
    expect(checkDuration(NaN).ok).toBe(false);
    expect(checkDuration(-1).ok).toBe(false);
  });

  it('todoistDate keeps them as text (they were stored verbatim, or Dec 32 as 2032-12-01)', () => {
    for (const raw of ['2026-02-30', '2026-13-01', '0000-01-01', '2026-12-01T25:61', '2026-12-01T25:61:00Z', 'Dec 32', '31 April', 'Feb 30th'])
      expect(todoistDate(raw, NOW), raw).toEqual({ due: null, recurrence: null, keep: raw });
    expect(todoistDate('Dec 31', NOW).due).toBe('2026-12-31');
    expect(todoistDate('2026-12-01T23:59', NOW).due).toBe('2026-12-01T23:59');
  });

  it('an import with them keeps every task, the date in its text, and says so', () => {
    const { db } = tempDb();
    const files: TodoistFile[] = [{ name: 'Dates.csv', text: [HEADER, 'task,Pay rent,,4,1,,,2026-02-30,en,,,,,', 'task,Party,,4,1,,,Dec 32,en,,,,,', 'task,Ok,,4,1,,,2026-12-01,en,,,,,'].join('\n') }];
    const plan = planTodoistImport(db, files, { now: NOW });
    expect(plan.totals.unreadDates).toBe(2);
    expect(describePlan(plan).join('\n')).toMatch(/2 dates Tidy could not read, kept in the task text/);
    applyTodoistImport(db, plan);
    const tasks = listTasks(db, { project: 'Dates' }).tasks.map((t) => [t.content, t.due]);
    expect(tasks).toEqual(
      expect.arrayContaining([
        ['Pay rent (2026-02-30)', null],
        ['Party (Dec 32)', null],
        ['Ok', '2026-12-01'],
      ]),
    );
  });
});

describe('parallel Todoist imports into one new project', () => {
  it('three imports planned before any is applied all land in the one project (two said "exists but is archived")', () => {
    const { db } = tempDb();
    const files = (n: number): TodoistFile[] => [{ name: 'Shared.csv', text: csvText(n) }];
    const plans = [planTodoistImport(db, files(1), { now: NOW }), planTodoistImport(db, files(2), { now: NOW }), planTodoistImport(db, files(3), { now: NOW })];
    for (const p of plans) expect(p.projects[0]!.existingId).toBeNull();
    for (const p of plans) applyTodoistImport(db, p);
    const projects = db.prepare(`SELECT id FROM projects WHERE name = 'Shared'`).all();
    expect(projects).toHaveLength(1);
    expect(listTasks(db, { project: 'Shared' }).total).toBe(6);
  });

  it('an archived project of that name is still refused, and nothing is written', () => {
    const { db } = tempDb();
    const plan = planTodoistImport(db, [{ name: 'Old.csv', text: csvText(1) }], { now: NOW });
    db.prepare(`INSERT INTO projects (id, name, name_key, builtin, archived_at, created_at, updated_at) VALUES ('p999', 'Old', 'old', 0, '2026-01-01', '2026-01-01', '2026-01-01')`).run();
    const before = snapshot(db);
    expect(() => applyTodoistImport(db, plan)).toThrow(/exists but is archived/);
    expect(snapshot(db)).toEqual(before);
  });
});

describe('the rich columns under attack (issue 30: labels, subtasks, sections, comments, deadlines, durations)', () => {
  const file = (...rows: string[]): TodoistFile[] => [{ name: 'R.csv', text: [HEADER, ...rows].join('\n') }];
  const plan = (...rows: string[]) => planTodoistImport(tempDb().db, file(...rows), { now: NOW }).projects[0]!;

  it('a task of only invisible characters (a zero-width space) is refused as empty, with its line', () => {
    expect(() => plan('task,ok,,4,1', 'task,\u200b\u200b,,4,1')).toThrow(/^R\.csv, line 3: the task has no CONTENT/);
  });

  it('labels: only whole @words become labels; e-mail addresses, control characters, over-long and label-only texts stay text', () => {
    const p = plan(
      'task,Mail bob@example.com @work,,4,1',
      `task,Odd @a\u0007b and @${'x'.repeat(61)},,4,1`,
      'task,@only @labels,,4,1',
      'task,Same twice @Home @home @HOME,,4,1',
      `task,"Many ${Array.from({ length: 150 }, (_, i) => `@l${i}`).join(' ')}",,4,1`,
    );
    expect(p.tasks.map((t) => [t.content, t.labels])).toEqual([
      ['Mail bob@example.com', ['work']],
      [`Odd @a\u0007b and @${'x'.repeat(61)}`, []],
      ['@only @labels', []],
      ['Same twice', ['Home']],
      [`Many ${Array.from({ length: 150 }, (_, i) => `@l${i}`).join(' ')}`, []],
    ]);
  });

  it('an INDENT that jumps hangs under the nearest task above; a subtask at the top of a section is a task; a note above every task is counted', () => {
    const p = plan('note,On the project', 'task,A,,4,1', 'task,B,,4,4', 'task,C,,4,2', 'note,on C', 'section,S', 'task,D,,4,3', 'note,on D');
    expect(p.tasks.map((t) => [t.content, t.parent, t.section, t.comments.map((c) => c.text)])).toEqual([
      ['A', null, null, []],
      ['B', 0, null, []],
      ['C', 0, null, ['on C']],
      ['D', null, 0, ['on D']],
    ]);
    expect(p.projectNotes).toBe(1);
  });

  it('a deadline or duration Tidy cannot store stays in the text; a huge description or comment is refused with its line', () => {
    const p = plan(
      'task,A,,4,1,,,,,,99999999,minute,,',
      'task,B,,4,1,,,,,,30,fortnight,2026-02-30,en',
      'task,C,,4,1,,,,,,-5,minute,every monday,en',
      'task,D,,4,1,,,,,,1.5,day,2026-12-24,en',
    );
    expect(p.tasks.map((t) => [t.content, t.deadline, t.durationMin])).toEqual([
      ['A (takes 99999999 minute)', null, null],
      ['B (deadline 2026-02-30; takes 30 fortnight)', null, null],
      ['C (deadline every monday; takes -5 minute)', null, null],
      ['D (takes 1.5 day)', '2026-12-24', null],
    ]);
    expect(() => plan(`task,A,"${'d'.repeat(20_001)}",4,1`)).toThrow(/^R\.csv, line 2: the description is 20001 characters long/);
    expect(() => plan('task,A,,4,1', `note,"${'n'.repeat(20_001)}"`)).toThrow(/^R\.csv, line 3: the comment is 20001 characters long/);
  });

  it('a deep, wide export (2,000 tasks, INDENT 1→5 repeating, 500 sections, a note on each) plans and applies in one transaction', () => {
    const rows: string[] = [];
    for (let i = 0; i < 2000; i++) {
      if (i % 4 === 0) rows.push(`section,S${i / 4}`);
      rows.push(`task,T${i} @l${i % 7},,4,${(i % 5) + 1}`, `note,n${i},,,,,,2035-01-01T00:00:00Z`);
    }
    const { db } = tempDb();
    const p = planTodoistImport(db, file(...rows), { now: NOW });
    expect(p.totals).toMatchObject({ tasks: 2000, sections: 500, notes: 2000, labels: 7 });
    applyTodoistImport(db, p);
    expect(db.prepare(`SELECT count(*) FROM tasks WHERE parent_id IS NOT NULL`).pluck().get()).toBe(p.totals.subtasks);
    expect(db.prepare(`SELECT count(*) FROM comments WHERE created_at = '2035-01-01T00:00:00.000Z'`).pluck().get()).toBe(2000);
  });
});
