// One big .ics import in a process of its own, so its peak RSS is its own (bench/calendar.ts runs it):
// `n` one-off VEVENTs in a VCALENDAR with a VTIMEZONE, written to a file of about `mb` MB (the import limit
// is 64 MB) a batch at a time, then imported as `tidy cal import` does (read in pieces from the file). Prints one JSON line: ms,
// peak RSS (VmHWM) of the import (and of writing the file, before it), the file's size, then the undo's time and peak.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { importCalendar, newUserRequest, openDatabase, undoAction } from '../src-main/core';
import { fileSource } from '../src-main/core/calendar/ics-lines';

const n = Number(process.argv[2] ?? 100_000);
const mb = Number(process.argv[3] ?? 63);
const pad = (x: number): string => String(x).padStart(2, '0');
const peakMb = (): number => Number(/VmHWM:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? NaN) / 1024;
const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-ics-'));
try {
  const file = join(dir, 'big.ics');
  const fd = openSync(file, 'w');
  // Each event's description is sized so the file comes to about `mb` MB.
  // About 215 bytes of other lines per event; a folded line carries 74 characters in 77 bytes.
  const notesChars = Math.max(20, Math.round((((mb * 1024 * 1024) / n - 215) * 74) / 77));
  const notes = 'Agenda and notes. '.repeat(Math.ceil(notesChars / 18)).slice(0, notesChars);
  writeSync(fd, ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//bench//EN', 'X-WR-CALNAME:Big', 'BEGIN:VTIMEZONE', 'TZID:Europe/Berlin', 'BEGIN:STANDARD', 'DTSTART:19701025T030000', 'TZOFFSETFROM:+0200', 'TZOFFSETTO:+0100', 'RRULE:FREQ=YEARLY;BYMONTH=10;BYDAY=-1SU', 'END:STANDARD', 'END:VTIMEZONE', ''].join('\r\n'));
  let batch: string[] = [];
  for (let i = 0; i < n; i++) {
    const day = new Date(Date.UTC(2020, 0, 1) + (i % 3_000) * 86_400_000);
    const d = `${day.getUTCFullYear()}${pad(day.getUTCMonth() + 1)}${pad(day.getUTCDate())}`;
    const h = 8 + (i % 9);
    batch.push('BEGIN:VEVENT', `UID:big-${i}@bench`, 'DTSTAMP:20200101T000000Z', `DTSTART;TZID=Europe/Berlin:${d}T${pad(h)}0000`, `DTEND;TZID=Europe/Berlin:${d}T${pad(h)}3000`, `SUMMARY:Meeting ${i}`, `DESCRIPTION:${notes.slice(0, 70)}`, ...(notes.length > 70 ? notes.slice(70).match(/.{1,74}/g)!.map((l) => ` ${l}`) : []), 'END:VEVENT');
    if (batch.length > 10_000) {
      writeSync(fd, `${batch.join('\r\n')}\r\n`);
      batch = [];
    }
  }
  batch.push('END:VCALENDAR');
  writeSync(fd, `${batch.join('\r\n')}\r\n`);
  closeSync(fd);
  batch = [];
  const bytes = statSync(file).size;
  const writing = peakMb();
  const db = openDatabase(join(dir, 'big.db'));
  const t0 = performance.now();
  const r = importCalendar(db, newUserRequest(db), { fileName: 'big.ics', text: '', source: fileSource(file) });
  const ms = performance.now() - t0;
  const importPeak = peakMb();
  // Then its undo, with the peak counted afresh (clear_refs 5 resets VmHWM; where it cannot, the figure is the import's too).
  let undoMs = NaN;
  let undoPeakMb = NaN;
  if (r.ok) {
    try {
      writeFileSync('/proc/self/clear_refs', '5');
    } catch {
      // not Linux, or not allowed: the peak below includes the import's
    }
    const t1 = performance.now();
    const u = undoAction(db, r.actionId, { ctx: newUserRequest(db) });
    undoMs = u.ok ? performance.now() - t1 : NaN;
    undoPeakMb = peakMb();
  }
  console.log(JSON.stringify({ ok: r.ok, error: r.ok ? undefined : r.error, added: r.ok ? r.value.added : 0, ms, peakMb: importPeak, writingPeakMb: writing, bytes, undoMs, undoPeakMb }));
  db.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
