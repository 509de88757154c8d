// One big .ics import in a process of its own, so its peak RSS is its own (bench/calendar.ts runs it):
// `n` one-off VEVENTs in a VCALENDAR with a VTIMEZONE. Prints one JSON line: ms, peak RSS (VmHWM), size.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importCalendar, newUserRequest, openDatabase } from '../src-main/core';

const n = Number(process.argv[2] ?? 100_000);
const pad = (x: number): string => String(x).padStart(2, '0');
const parts = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//EN', 'X-WR-CALNAME:Big'];
for (let i = 0; i < n; i++) {
  const day = new Date(Date.UTC(2020, 0, 1) + (i % 3_000) * 86_400_000);
  const d = `${day.getUTCFullYear()}${pad(day.getUTCMonth() + 1)}${pad(day.getUTCDate())}`;
  const h = 8 + (i % 9);
  parts.push('BEGIN:VEVENT', `UID:big-${i}@bench`, 'DTSTAMP:20200101T000000Z', `DTSTART:${d}T${pad(h)}0000Z`, `DTEND:${d}T${pad(h)}3000Z`, `SUMMARY:Meeting ${i}`, `DESCRIPTION:${'Agenda and notes. '.repeat(15)}`, 'END:VEVENT');
}
parts.push('END:VCALENDAR', '');
let text: string | null = parts.join('\r\n');
parts.length = 0;
const chars = text.length;
const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-ics-'));
try {
  const db = openDatabase(join(dir, 'big.db'));
  const t0 = performance.now();
  const r = importCalendar(db, newUserRequest(db), { fileName: 'big.ics', text });
  text = null;
  const ms = performance.now() - t0;
  const peakKb = Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN);
  console.log(JSON.stringify({ ok: r.ok, error: r.ok ? undefined : r.error, ms, peakMb: peakKb / 1024, chars }));
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
