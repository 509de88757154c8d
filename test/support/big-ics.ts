// A calendar file of many events, and its import, for the tests of large actions (src-main/core/actions/changes.ts).
import { importCalendar, type Db } from '../../src-main/core';
import { userCtx } from './db';

export const pad = (x: number): string => String(x).padStart(2, '0');

/** `n` events; `title(i)` names event i (null leaves it out), `day(i)` is its date (YYYYMMDD), `notes` its description. */
export function bigIcs(n: number, title: (i: number) => string | null, day: (i: number) => string, notes?: string): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN', 'X-WR-CALNAME:Big'];
  for (let i = 0; i < n; i++) {
    const t = title(i);
    if (t === null) continue;
    const d = day(i);
    const hour = pad(8 + (i % 9));
    lines.push('BEGIN:VEVENT', `UID:big-${i}@test`, `DTSTART:${d}T${hour}0000Z`, `DTEND:${d}T${hour}3000Z`, `SUMMARY:${t}`, ...(notes ? [`DESCRIPTION:${notes}`] : []), 'END:VEVENT');
  }
  lines.push('END:VCALENDAR', '');
  return lines.join('\r\n');
}

/** Imports `text` as big.ics by the user; the import's action id. */
export function imported(db: Db, text: string): string {
  const r = importCalendar(db, userCtx(db), { fileName: 'big.ics', text });
  if (!r.ok) throw new Error(`${r.error} — ${r.hint}`);
  return r.actionId;
}

/** Throws the error of a result that is not ok. */
export const ok = (r: { ok: boolean; error?: string }): void => {
  if (!r.ok) throw new Error(r.error);
};
