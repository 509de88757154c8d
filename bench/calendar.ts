// Calendar benchmark: importing a 5,000-event .ics with recurring events (time, memory), re-importing it
// unchanged, and find_free_slots with 3 attendees whose calendars hold 2 years of events each.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addTask, findFreeSlots, importCalendar, listEvents, newUserRequest, openDatabase, readSettings } from '../src-main/core';
import { proposePlan } from '../src-main/core/plan/plan';
import { median, report, time } from './util';

const ZONE = 'Europe/Berlin';
const pad = (n: number): string => String(n).padStart(2, '0');
const stamp = (d: Date): string => `${d.getUTCFullYear()}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}T${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}00`;

/**
 * A calendar like a busy person's Google export: `singles` one-off meetings spread over two years from
 * `start` (in Europe/Berlin, 30–90 minutes, in working hours) and `recurring` weekly or daily series.
 */
function calendarText(seed: number, start: Date, singles: number, recurring: number): string {
  let x = seed;
  const rand = (n: number): number => ((x = (x * 1103515245 + 12345) % 2 ** 31), x % n);
  const lines = ['BEGIN:VCALENDAR', 'PRODID:-//Google Inc//Google Calendar 70.9054//EN', 'VERSION:2.0', `X-WR-CALNAME:person${seed}@example.com`, 'X-WR-TIMEZONE:Europe/Berlin'];
  for (let i = 0; i < singles; i++) {
    const d = new Date(start.getTime() + rand(730) * 86_400_000);
    d.setUTCHours(8 + rand(8), rand(4) * 15);
    const end = new Date(d.getTime() + (30 + rand(3) * 30) * 60_000);
    lines.push('BEGIN:VEVENT', `UID:s${seed}-${i}@google.com`, `DTSTART;TZID=Europe/Berlin:${stamp(d)}`, `DTEND;TZID=Europe/Berlin:${stamp(end)}`, `SUMMARY:Meeting ${i}`, 'TRANSP:OPAQUE', 'END:VEVENT');
  }
  for (let i = 0; i < recurring; i++) {
    const d = new Date(start.getTime() + rand(60) * 86_400_000);
    d.setUTCHours(8 + rand(8), 0);
    const end = new Date(d.getTime() + 30 * 60_000);
    const rule = i % 3 === 0 ? 'FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR' : `FREQ=WEEKLY;BYDAY=${['MO', 'TU', 'WE', 'TH', 'FR'][rand(5)]}`;
    lines.push('BEGIN:VEVENT', `UID:r${seed}-${i}@google.com`, `DTSTART;TZID=Europe/Berlin:${stamp(d)}`, `DTEND;TZID=Europe/Berlin:${stamp(end)}`, `RRULE:${rule}`, `EXDATE;TZID=Europe/Berlin:${stamp(new Date(d.getTime() + 7 * 86_400_000))}`, `SUMMARY:Series ${i}`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

export async function benchCalendar(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-calendar-'));
  try {
    console.log('Calendar');
    const db = openDatabase(join(dir, 'cal.db'));
    const twoYearsAgo = new Date(Date.now() - 365 * 86_400_000);
    const big = calendarText(1, twoYearsAgo, 4_900, 100);
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
    const imported = await time(() => {
      const r = importCalendar(db, newUserRequest(db), { fileName: 'big.ics', text: big, person: 'Dana' });
      if (!r.ok) throw new Error(r.error);
    });
    peak = Math.max(peak, process.memoryUsage().rss);
    clearInterval(sampler);
    report(`import 5,000 events (100 recurring), ${(big.length / 1e6).toFixed(1)} MB`, imported, 'ms', { max: 5_000, label: '5 s' });
    report('  memory growth during the import', (peak - rss0) / 1e6, ' MB', { max: 300, label: '300 MB' });
    const again = await time(() => importCalendar(db, newUserRequest(db), { fileName: 'big.ics', text: big, person: 'Dana' }));
    report('re-import the same file (nothing changes)', again, 'ms');

    // Three attendees with two years of events each (a year back, a year ahead), plus the user's own.
    for (const [i, who] of (['Alice', 'Bob', 'Carol'] as const).entries()) {
      const r = importCalendar(db, newUserRequest(db), { fileName: `${who}.ics`, text: calendarText(10 + i, twoYearsAgo, 1_500, 30), person: who });
      if (!r.ok) throw new Error(r.error);
    }
    const now = Date.now();
    const base = { durationMin: 30, attendees: ['Alice', 'Bob', 'Carol'], now, zone: ZONE, workStart: '09:00', workEnd: '17:00', workDays: ['mon', 'tue', 'wed', 'thu', 'fri'] as ('mon' | 'tue' | 'wed' | 'thu' | 'fri')[] };
    const twoWeeks = await median(15, () => findFreeSlots(db, base));
    report('find_free_slots, 3 attendees × 2 years of events, next 14 days', twoWeeks, 'ms', { max: 50 });
    console.log(`    ratio to the 50 ms target: ${(twoWeeks / 50).toFixed(3)}`);
    const year = await median(5, () => findFreeSlots(db, { ...base, toMs: now + 365 * 86_400_000 }));
    report('find_free_slots over the whole next year', year, 'ms', { max: 50 });
    console.log(`    ratio to the 50 ms target: ${(year / 50).toFixed(3)}`);
    const week = await median(15, () => listEvents(db, { fromMs: now, toMs: now + 7 * 86_400_000, zone: ZONE }));
    report('events.list for a week over 4 busy calendars', week, 'ms', { max: 50 });
    db.close();

    // Planning: 200 tasks into the next two weeks around 3 of the user's own calendars × 2 years of events.
    const pdb = openDatabase(join(dir, 'plan.db'));
    for (const i of [0, 1, 2]) {
      const r = importCalendar(pdb, newUserRequest(pdb), { fileName: `own${i}.ics`, text: calendarText(20 + i, twoYearsAgo, 1_500, 30) });
      if (!r.ok) throw new Error(r.error);
    }
    const ids: string[] = [];
    for (let i = 0; i < 200; i++) {
      const r = addTask(pdb, newUserRequest(pdb), { content: `Task ${i}`, priority: (i % 4) + 1, durationMin: 15 + (i % 8) * 15 });
      if (!r.ok) throw new Error(r.error);
      ids.push(r.value.id);
    }
    const settings = readSettings(pdb);
    const planned = proposePlan(pdb, { taskIds: ids, fromMs: now, toMs: now + 14 * 86_400_000, now, zone: ZONE, settings });
    const plan = await median(9, () => proposePlan(pdb, { taskIds: ids, fromMs: now, toMs: now + 14 * 86_400_000, now, zone: ZONE, settings }));
    report(`plan 200 tasks into 2 weeks, 3 own calendars × 2 years (${planned.blocks.length} blocks)`, plan, 'ms', { max: 50 });
    console.log(`    ratio to the 50 ms target: ${(plan / 50).toFixed(3)}`);
    pdb.close();

    // 100k one-off VEVENTs in a file of about 61 MB (the limit is 64 MB), written to disk and imported as
    // `tidy cal import` does, in a process of its own: time and peak RSS (issue 28 item 9).
    const child = spawnSync(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'calendar-import-child.ts'), '100000', '63'], { encoding: 'utf8', timeout: 1_200_000 });
    const line = child.stdout.trim().split('\n').at(-1) ?? '';
    try {
      const big = JSON.parse(line) as { ok: boolean; error?: string; ms: number; peakMb: number; writingPeakMb: number; bytes: number; undoMs: number; undoPeakMb: number };
      report(`import 100k VEVENTs, ${(big.bytes / 1024 / 1024).toFixed(0)} MB file${big.ok ? '' : ` (refused: ${big.error ?? ''})`}`, big.ms, 'ms');
      report('  peak RSS of that process', big.peakMb, ' MB', { max: 300, label: '300 MB' });
      console.log(`    (${big.writingPeakMb.toFixed(0)} MB of it before the import: Node, tsx, Tidy's modules and writing the file)`);
      report('undo that import', big.undoMs, 'ms');
      report('  peak RSS of the undo', big.undoPeakMb, ' MB', { max: 300, label: '300 MB' });
    } catch {
      console.log(`  import 100k VEVENTs: the child process failed (${child.error?.message ?? child.stderr.trim().split('\n').at(-1) ?? ''})`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
