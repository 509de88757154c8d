// The calendar part of the hostile suite (issue 28 items 5, 7b, 9): .ics files built to make Tidy
// expand without end, throw, or refuse a whole file for one bad property. Each attack is imported and
// then listed; it survives when the import answers (ok or a one-line refusal, never an unexpected error)
// and the listing answers within its bounds. Times and the heap growth of the worst ones are printed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import ICAL from 'ical.js';
import { exportIcs, importCalendar, inviteIcs, listEvents, newUserRequest, openDatabase, type Db } from '../src-main/core';

const DAY = 86_400_000;
const wrap = (body: string, head = ''): string => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//hostile//EN\r\n${head}${body}END:VCALENDAR\r\n`;
const vevent = (uid: string, lines: string): string => `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20200101T000000Z\r\nSUMMARY:${uid}\r\n${lines}END:VEVENT\r\n`;

/** 2,000 events repeating every hour of every day since 1950 (BYHOUR=0..23). */
export function hourlySince1950(n = 2_000): string {
  const hours = Array.from({ length: 24 }, (_, i) => i).join(',');
  let body = '';
  for (let i = 0; i < n; i++) body += vevent(`h${i}`, `DTSTART:19500101T000000Z\r\nDTEND:19500101T003000Z\r\nRRULE:FREQ=DAILY;BYHOUR=${hours}\r\n`);
  return wrap(body);
}

/** One event since the year 1000 on the last weekday of every month (BYSETPOS=-1). */
export const setposSince1000 = (): string =>
  wrap(vevent('setpos', 'DTSTART:10000101T090000Z\r\nDTEND:10000101T100000Z\r\nRRULE:FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1\r\n'));

/** A VTIMEZONE whose observance repeats every second (or hour) since 1601. */
export const vtimezoneFlood = (freq: 'SECONDLY' | 'HOURLY'): string =>
  wrap(
    vevent('tz', 'DTSTART;TZID=Flood:20300105T090000\r\nDTEND;TZID=Flood:20300105T100000\r\n'),
    `BEGIN:VTIMEZONE\r\nTZID:Flood\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200\r\nRRULE:FREQ=${freq}\r\nEND:STANDARD\r\nBEGIN:DAYLIGHT\r\nDTSTART:16010101T000030\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100\r\nRRULE:FREQ=${freq}\r\nEND:DAYLIGHT\r\nEND:VTIMEZONE\r\n`,
  );

/** Rules and properties that broke a query or the whole import (items 5 and 7b). */
export const BAD_RULES = [
  'FREQ=MONTHLY;BYDAY=6MO',
  'FREQ=DAILY;INTERVAL=-1',
  'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30',
  'FREQ=DAILY;COUNT=1000000000000000000000',
  'FREQ=WEEKLY;BYDAY=2MO',
  'FREQ=YEARLY;BYDAY=54MO',
  'FREQ=DAILY;BYHOUR=24',
  'FREQ=DAILY;BYSETPOS=1',
  'FREQ=SECONDLY',
  'FREQ=MINUTELY;COUNT=100000000',
  'FREQ=HOURLY;INTERVAL=1',
  'FREQ=YEARLY;BYWEEKNO=53;BYDAY=MO,TU,WE,TH,FR,SA,SU;BYSETPOS=-1',
  'FREQ=MONTHLY;BYMONTHDAY=-31,31;BYSETPOS=1,-1',
  'FREQ=NEVER',
  'FREQ=DAILY;UNTIL=2030-01-01',
  `FREQ=DAILY;BYMONTH=${'1,'.repeat(5000)}1`,
  // From a Saturday, every 7th day is a Saturday: ical.js looked for a Tuesday for ever.
  'FREQ=DAILY;INTERVAL=7;BYDAY=TU',
];

/** Texts that start a line of their own or move the cursor in a reader that is not careful (item 7). */
export const INJECTED_TEXTS = [
  'Lunch\rEND:VEVENT\rBEGIN:VEVENT\rSUMMARY:Injected',
  'Lunch\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nSUMMARY:Injected',
  'Lunch\u2028BEGIN:VEVENT',
  'Lunch\u0085BEGIN:VEVENT',
  'Lunch\u001b[2J\u001b]0;pwned\u0007',
  'Lunch \u202eevil\u202c \u2066x\u2069',
  'Lunch\u0000\u007f\u009b',
  'Lunch\ud800 lone surrogate',
  'A "quoted" name; with, separators\\',
  'x'.repeat(100_000),
];
export const BAD_PROPERTIES = [
  'DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=DAILY\r\nEXDATE:20300107\r\n',
  'DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=DAILY\r\nEXDATE:2030X107T090000Z\r\n',
  'DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=DAILY\r\nRDATE:2030X107T090000Z\r\n',
  'DTSTART;TZID="W. Europe Standard Time:20300105T090000\r\nDTEND;TZID=W. Europe Standard Time":20300105T100000\r\n',
  'DTSTART:20300105\r\nDTEND:20300106\r\n',
  'DTSTART;TZID="(GMT+10:00) Canberra, Melbourne, Sydney":20300105T090000\r\nDTEND;TZID="(GMT+10:00) Canberra, Melbourne, Sydney":20300105T100000\r\n',
  'DTSTART:20300105T090000Z\r\nDURATION:P99999999W\r\n',
];

interface Outcome {
  tried: number;
  survived: number;
  note: string;
}

function tryOne(db: Db, name: string, text: string, fromMs: number, toMs: number): { ok: boolean; ms: number; heapMb: number; events: number; detail: string } {
  const heap0 = process.memoryUsage().heapUsed;
  const t0 = performance.now();
  try {
    const r = importCalendar(db, newUserRequest(db), { fileName: `${name}.ics`, text });
    if (!r.ok && /unexpected/i.test(r.error)) return { ok: false, ms: performance.now() - t0, heapMb: 0, events: 0, detail: r.error };
    const l = listEvents(db, { fromMs, toMs, zone: 'UTC' });
    return { ok: true, ms: performance.now() - t0, heapMb: (process.memoryUsage().heapUsed - heap0) / 2 ** 20, events: l.events.length, detail: r.ok ? 'imported' : r.error };
  } catch (e) {
    return { ok: false, ms: performance.now() - t0, heapMb: 0, events: 0, detail: e instanceof Error ? e.message : String(e) };
  }
}

/** The calendar families: [name, tried, survived, note]. */
export function hostileCalendar(): [string, Outcome][] {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-hostile-cal-'));
  const out: [string, Outcome][] = [];
  let n = 0;
  const fresh = (): Db => openDatabase(join(dir, `h${n++}.db`));
  const from = Date.UTC(2030, 0, 1);
  try {
    {
      const db = fresh();
      const text = hourlySince1950();
      const t0 = performance.now();
      importCalendar(db, newUserRequest(db), { fileName: 'hourly.ics', text });
      const importMs = performance.now() - t0;
      const week = tryOne(db, 'hourly-week', 'x', from, from + 7 * DAY);
      const w0 = performance.now();
      const weekList = listEvents(db, { fromMs: from, toMs: from + 7 * DAY, zone: 'UTC' });
      const weekMs = performance.now() - w0;
      const y0 = performance.now();
      const yearList = listEvents(db, { fromMs: from, toMs: from + 365 * DAY, zone: 'UTC' });
      const yearMs = performance.now() - y0;
      void week;
      out.push([
        'calendar: 2,000 BYHOUR=0..23 since 1950',
        { tried: 2, survived: 2, note: `import ${importMs.toFixed(0)} ms; 7 days ${weekMs.toFixed(0)} ms (${weekList.events.length} listed, cut ${weekList.truncated}); 1 year ${yearMs.toFixed(0)} ms (${yearList.events.length} listed, cut ${yearList.truncated})` },
      ]);
      db.close();
    }
    {
      const db = fresh();
      const r = tryOne(db, 'setpos', setposSince1000(), from, from + 365 * DAY);
      out.push(['calendar: BYSETPOS=-1 since year 1000', { tried: 1, survived: r.ok ? 1 : 0, note: `import + 1 year listed ${r.ms.toFixed(0)} ms, ${r.events} occurrences; ${r.detail.slice(0, 80)}` }]);
      db.close();
    }
    {
      let survived = 0;
      const notes: string[] = [];
      for (const freq of ['SECONDLY', 'HOURLY'] as const) {
        const db = fresh();
        const r = tryOne(db, `tz-${freq}`, vtimezoneFlood(freq), from, from + 30 * DAY);
        if (r.ok) survived++;
        notes.push(`${freq} ${r.ms.toFixed(0)} ms, heap +${r.heapMb.toFixed(0)} MB`);
        db.close();
      }
      out.push(['calendar: VTIMEZONE rules from 1601', { tried: 2, survived, note: notes.join('; ') }]);
    }
    {
      let survived = 0;
      let worst = 0;
      const failed: string[] = [];
      const all = [
        ...BAD_RULES.map((rule) => vevent('bad', `DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:${rule}\r\n`)),
        ...BAD_PROPERTIES.map((p) => vevent('bad', p)),
      ];
      for (const [i, body] of all.entries()) {
        const db = fresh();
        // A good event beside the bad one: one bad rule or property must not cost the file.
        const r = tryOne(db, `bad${i}`, wrap(vevent('good', 'DTSTART:20300106T120000Z\r\nDTEND:20300106T130000Z\r\n') + body), from, from + 30 * DAY);
        const good = r.ok && r.detail === 'imported';
        if (good) survived++;
        else failed.push(`#${i}: ${r.detail.slice(0, 60)}`);
        worst = Math.max(worst, r.ms);
        db.close();
      }
      out.push(['calendar: bad rules and properties', { tried: all.length, survived, note: `slowest ${worst.toFixed(0)} ms${failed.length ? `; not imported: ${failed.join(' | ')}` : ''}` }]);
    }
    {
      // Every hostile text in every property Tidy writes, in an export and an invitation: each file must
      // read back as exactly one VEVENT per event, with no control or bidi character left raw.
      let survived = 0;
      const failed: string[] = [];
      for (const [i, t] of INJECTED_TEXTS.entries()) {
        const event = { id: 'e1', uid: `u${i}`, title: t, startMs: from, endMs: from + 3_600_000, allDay: false, startDate: '2030-01-01', endDate: '2030-01-01', location: t, notes: t, attendees: [{ name: t, email: `a${i}@example.com` }], cancelled: false, createdAt: '2030-01-01T00:00:00Z', updatedAt: '2030-01-01T00:00:00Z' };
        const files = [exportIcs(t, [event]), inviteIcs(event)];
        const clean = files.every((f) => {
          // eslint-disable-next-line no-control-regex
          if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/.test(f)) return false;
          const cal = new ICAL.Component(ICAL.parse(f) as unknown[]);
          return cal.getAllSubcomponents('vevent').length === 1 && !f.split('\r\n').some((l) => /^SUMMARY:Injected/.test(l));
        });
        if (clean) survived++;
        else failed.push(`#${i}`);
      }
      out.push(['calendar: text injected into .ics export', { tried: INJECTED_TEXTS.length, survived, note: failed.length ? `not clean: ${failed.join(', ')}` : 'every file one VEVENT per event, no raw control or bidi character' }]);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
