// The data families of the hostile suite (issue 28 items 4, 6, 8 and the Smaller list): first opens of a
// new file raced by processes, Todoist values no calendar has, ZIPs whose headers lie, and the small
// defects each retried. Survived: answered in one line (ok, or a refusal naming what is wrong), nothing
// stored that a check refuses, nothing half-imported.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { strToU8 } from 'fflate';
import { addTask, importCalendar, listTasks, newUserRequest, openDatabase } from '../src-main/core';
import { applyTodoistImport, planTodoistImport, readTodoistFiles, restoreDatabase, type TodoistFile } from '../src-main/core/data';
import { TODOIST_HEADER, todoistCsv, zipOf } from '../test/support/zip-craft';
import { checkDate } from '../src-shared/dates';

const REPO = join(import.meta.dirname, '..');
type Outcome = [tried: number, survived: number, note: string];

const oneLine = (message: string): boolean => message.length > 0 && !message.includes('\n') && !/unexpected|TypeError|RangeError|undefined/.test(message);

/** Item 4: `perFile` processes run `tidy add` on one new file at once, for `files` new files. */
export async function firstOpenRaces(dir: string, files = 4, perFile = 5): Promise<Outcome> {
  let tried = 0;
  let survived = 0;
  const failures: string[] = [];
  for (let f = 0; f < files; f++) {
    const db = join(dir, `race-${f}.db`);
    const runs = Array.from({ length: perFile }, (_, i) =>
      new Promise<{ code: number | null; stderr: string; i: number }>((resolve) => {
        const child = spawn(process.execPath, [join(REPO, 'bin', 'tidy.mjs'), '--db', db, 'add', `capture ${f}.${i}`], { stdio: ['ignore', 'ignore', 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
        child.on('exit', (code) => resolve({ code, stderr, i }));
      }),
    );
    const results = await Promise.all(runs);
    const raw = new Database(db, { readonly: true });
    const stored = new Set((raw.prepare(`SELECT content FROM tasks`).all() as { content: string }[]).map((r) => r.content));
    raw.close();
    for (const r of results) {
      tried++;
      if (r.code === 0 && stored.has(`capture ${f}.${r.i}`)) survived++;
      else failures.push(r.stderr.trim().split('\n')[0]!.slice(0, 80) || `exit ${r.code}`);
    }
  }
  return [tried, survived, `${files} new files × ${perFile} concurrent tidy add${failures.length ? `; failed: ${[...new Set(failures)].join(' | ')}` : '; every capture stored'}`];
}

/** Dates and lengths no calendar has, in every Todoist column that takes one (item 6). */
export const TODOIST_BAD_VALUES: { date?: string; duration?: [string, string]; deadline?: string }[] = [
  ...['2026-02-30', '2026-13-01', '0000-01-01', '2026-12-01T25:61', '2026-12-01T25:61:00Z', 'Dec 32', '31 April', 'Feb 30th', '9999-99-99', '2026-00-10', '-2026-01-01', '2026-1-1T', 'every 0 days', 'every -1 weeks', 'every 99999999 days', '1e309', 'NaN', '2026-02-29', '\u0000', 'x'.repeat(5000)].map((date) => ({ date })),
  ...[['99999999', 'minute'], ['-5', 'minute'], ['1.5', 'day'], ['30', 'fortnight'], ['1e309', 'minute'], ['NaN', 'minute'], ['0x10', 'minute'], ['99999999', 'week'], ['', 'minute'], ['5', '']].map((duration) => ({ duration: duration as [string, string] })),
  ...['2026-02-30', '2026-13-01', 'every monday', '0000-01-01', 'Dec 32', 'x'.repeat(5000)].map((deadline) => ({ deadline })),
];

const csvField = (s: string): string => (/[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s);

/** Item 6: each bad value in a task of its own beside a good task; survived when both tasks are kept and nothing stored fails a check. */
export function todoistValues(dir: string): Outcome {
  let survived = 0;
  const failures: string[] = [];
  const now = new Date(2026, 10, 23, 10, 0);
  TODOIST_BAD_VALUES.forEach((v, i) => {
    const db = openDatabase(join(dir, `todoist-${i}.db`));
    try {
      const row = ['task', 'Bad', '', '4', '1', '', '', v.date ?? '', 'en', '', v.duration?.[0] ?? '', v.duration?.[1] ?? '', v.deadline ?? '', 'en'].map(csvField).join(',');
      const files: TodoistFile[] = [{ name: 'Values.csv', text: [TODOIST_HEADER, 'task,Good,,4,1,,,2026-12-01,en,,,,,', row].join('\n') }];
      applyTodoistImport(db, planTodoistImport(db, files, { now }));
      const tasks = listTasks(db, { project: 'Values' }).tasks;
      const bad = tasks.find((t) => t.content.startsWith('Bad'));
      const stored = db.prepare(`SELECT due, deadline, duration_min FROM tasks WHERE content LIKE 'Bad%'`).get() as { due: string | null; deadline: string | null; duration_min: number | null } | undefined;
      const valid =
        tasks.length === 2 &&
        bad !== undefined &&
        stored !== undefined &&
        (stored.due === null || checkDate(stored.due).ok) &&
        (stored.deadline === null || checkDate(stored.deadline).ok) &&
        (stored.duration_min === null || (Number.isInteger(stored.duration_min) && stored.duration_min > 0 && stored.duration_min <= 10 * 366 * 1440));
      if (valid) survived++;
      else failures.push(`#${i} ${JSON.stringify(stored)}`);
    } catch (e) {
      // A refusal in one line (a value too long for a task) is an answer; anything else is not.
      const message = e instanceof Error ? e.message : String(e);
      if (oneLine(message)) survived++;
      else failures.push(`#${i}: ${message.slice(0, 60)}`);
    } finally {
      db.close();
    }
  });
  return [TODOIST_BAD_VALUES.length, survived, failures.length ? `stored unchecked: ${failures.join(' | ')}` : 'every impossible value kept in the text (or refused in one line), none stored'];
}

/** ZIPs whose headers lie (item 8). Each must be refused in one line (or read exactly, for the honest one), in bounded time. */
export function zipAttacks(dir: string): Outcome {
  const csv = (n: number): Uint8Array => strToU8(todoistCsv(n));
  const zeros = new Uint8Array(8 * 1024 * 1024);
  const honest = zipOf([{ name: 'Home.csv', data: csv(200) }]);
  const attacks: { name: string; bytes: Uint8Array }[] = [
    { name: 'overlap 10', bytes: zipOf([{ name: 'a.csv', data: zeros, declare: 100 }], Array.from({ length: 10 }, (_, i) => ({ name: `b${i}.csv`, of: 0 }))) },
    { name: 'overlap 2000', bytes: zipOf([{ name: 'a.csv', data: zeros, declare: 100 }], Array.from({ length: 2_000 }, (_, i) => ({ name: `b${i}.csv`, of: 0 }))) },
    { name: 'bomb declaring 100 bytes', bytes: zipOf([{ name: 'a.csv', data: zeros, declare: 100 }]) },
    { name: 'under-declared CSV', bytes: zipOf([{ name: 'Home.csv', data: csv(200), declare: todoistCsv(3).length }]) },
    { name: 'over-declared (short read)', bytes: zipOf([{ name: 'Home.csv', data: csv(20), declare: todoistCsv(20).length + 10 }]) },
    { name: 'bad CRC', bytes: zipOf([{ name: 'Home.csv', data: csv(20), crc: 1234 }]) },
    { name: 'duplicate names', bytes: zipOf([{ name: 'Home.csv', data: csv(1) }, { name: 'Home.csv', data: csv(2) }]) },
    { name: 'encrypted', bytes: zipOf([{ name: 'Home.csv', data: csv(5), flags: 1 }]) },
    { name: 'declares 4 GB', bytes: zipOf([{ name: 'Home.csv', data: csv(5), declare: 0xffffffff }]) },
    { name: 'cut off', bytes: honest.subarray(0, honest.length - 10) },
    { name: 'directory past the data', bytes: (() => { const b = honest.slice(); new DataView(b.buffer).setUint32(b.length - 6, 0x7fffffff, true); return b; })() },
    { name: 'empty', bytes: new Uint8Array(0) },
    { name: 'not a zip', bytes: strToU8('PK\u0003\u0004 this is not a zip at all') },
    { name: '3,000 entries', bytes: zipOf(Array.from({ length: 3_000 }, (_, i) => ({ name: `p${i}.csv`, data: csv(1) }))) },
    { name: 'entries past the 64 MB total', bytes: zipOf(Array.from({ length: 22 }, (_, i) => ({ name: `z${i}.csv`, data: new Uint8Array(3 * 1024 * 1024).fill(44) }))) },
    { name: 'path traversal name', bytes: zipOf([{ name: '../../etc/Home.csv', data: csv(2) }]) },
  ];
  let survived = 0;
  const failures: string[] = [];
  let slowest = 0;
  try {
    const files = readTodoistFiles('honest.zip', honest);
    if (files.length === 1 && files[0]!.text.split('\n').length === 201) survived++;
    else failures.push('honest: not read whole');
  } catch (e) {
    failures.push(`honest: ${(e as Error).message.slice(0, 60)}`);
  }
  const db = openDatabase(join(dir, 'zip.db'));
  for (const a of attacks) {
    const t0 = performance.now();
    try {
      const files = readTodoistFiles(`${a.name}.zip`, a.bytes);
      // Read: a traversal name is only a name here (the project is named after the file); anything else
      // read must then be refused by the import itself (an empty "ZIP" is read as an empty CSV).
      if (a.name === 'path traversal name' && files.length === 1) survived++;
      else {
        planTodoistImport(db, files);
        failures.push(`${a.name}: read ${files.length} file(s) and planned them`);
      }
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      if (oneLine(message)) survived++;
      else failures.push(`${a.name}: ${message.slice(0, 60)}`);
    }
    slowest = Math.max(slowest, performance.now() - t0);
  }
  db.close();
  return [attacks.length + 1, survived, `slowest ${slowest.toFixed(0)} ms${failures.length ? `; failed: ${failures.join(' | ')}` : ''}`];
}

/** The Smaller list of item 28, each retried as it was found. */
export function smallerDefects(dir: string): Outcome {
  const checks: [string, () => boolean][] = [
    [
      'three parallel Todoist imports into one new project',
      () => {
        const db = openDatabase(join(dir, 'parallel.db'));
        try {
          const files = (n: number): TodoistFile[] => [{ name: 'Shared.csv', text: todoistCsv(n) }];
          const plans = [1, 2, 3].map((n) => planTodoistImport(db, files(n)));
          for (const p of plans) applyTodoistImport(db, p);
          return (db.prepare(`SELECT count(*) AS n FROM projects WHERE name = 'Shared'`).get() as { n: number }).n === 1 && listTasks(db, { project: 'Shared' }).total === 6;
        } finally {
          db.close();
        }
      },
    ],
    [
      'a task of only a zero-width space',
      () => {
        const db = openDatabase(join(dir, 'zwsp.db'));
        try {
          const r = addTask(db, newUserRequest(db), { content: '\u200b' });
          const todoist = (() => {
            try {
              planTodoistImport(db, [{ name: 'Z.csv', text: `${TODOIST_HEADER}\ntask,\u200b,,4,1,,,,en,,,,,` }]);
              return false;
            } catch (e) {
              return /line 2/.test((e as Error).message);
            }
          })();
          return !r.ok && oneLine(r.error) && todoist;
        } finally {
          db.close();
        }
      },
    ],
    [
      'tidy restore DIR/ names the folder',
      () => {
        const folder = join(dir, 'backups-folder');
        mkdirSync(folder, { recursive: true });
        try {
          restoreDatabase(folder, join(dir, 'target.db'));
          return false;
        } catch (e) {
          const message = (e as Error).message;
          return message.includes('backups-folder') && /is a folder/.test(message) && !message.includes('target.db');
        }
      },
    ],
    [
      'a bad TZOFFSETTO names its line',
      () => {
        const db = openDatabase(join(dir, 'tz.db'));
        try {
          const text =
            'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//x//EN\r\nBEGIN:VTIMEZONE\r\nTZID:Bad\r\nBEGIN:STANDARD\r\nDTSTART:19701025T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+01x0\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n' +
            'BEGIN:VEVENT\r\nUID:a\r\nDTSTAMP:20300101T000000Z\r\nDTSTART;TZID=Bad:20300105T090000\r\nDTEND;TZID=Bad:20300105T100000\r\nSUMMARY:A\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n';
          const r = importCalendar(db, newUserRequest(db), { fileName: 'tz.ics', text });
          return r.ok && r.value.warnings.some((w) => /^line 9: TZOFFSETTO/.test(w));
        } finally {
          db.close();
        }
      },
    ],
  ];
  let survived = 0;
  const failed: string[] = [];
  for (const [name, check] of checks) {
    let ok: boolean;
    try {
      ok = check();
    } catch (e) {
      failed.push(`${name}: ${(e as Error).message.slice(0, 60)}`);
      continue;
    }
    if (ok) survived++;
    else failed.push(name);
  }
  return [checks.length, survived, failed.length ? `failed: ${failed.join(' | ')}` : checks.map(([n]) => n).join('; ')];
}

/** The data families, each reported through `family` (bench/hostile.ts). */
export async function dataFamilies(family: (name: string, attack: () => Promise<[number, number, string?, number?]>) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-data-'));
  try {
    await family('store: first open, 5 × tidy add', () => firstOpenRaces(dir));
    await family('todoist: impossible dates, lengths', () => Promise.resolve(todoistValues(dir)));
    await family('zip: bombs, overlaps, short reads', () => Promise.resolve(zipAttacks(dir)));
    await family('smaller defects of 28, retried', () => Promise.resolve(smallerDefects(dir)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
