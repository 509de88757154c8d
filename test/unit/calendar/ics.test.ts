// iCalendar import (src-main/core/calendar/ics.ts), recurrence expansion and free time, over files written
// after real producers' output (test/fixtures/ics/SOURCES.md) and hostile ones.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ICAL from 'ical.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findFreeSlots, getActionRow, ICS_LIMITS, importCalendar, listEvents, undoAction, type Db } from '../../../src-main/core';
import { bookEvent, cancelEvent, moveEvent } from '../../../src-main/core/domain/events';
import { ianaZone, isoInZone, wallToUtc, type Wall } from '../../../src-main/core/calendar/zones';
import { icalWallIterator, wallIterator } from '../../../src-main/core/calendar/expand';
import { streamIcs } from '../../../src-main/core/calendar/ics';
import { WEEKDAYS, type Weekday } from '../../../src-shared/calendar';
import { snapshot, tempDb, userCtx } from '../../support/db';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures', 'ics');
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8');
const zoneBefore = process.env['TZ'];
beforeAll(() => {
  process.env['TZ'] = 'Europe/Berlin';
});
afterAll(() => {
  if (zoneBefore === undefined) delete process.env['TZ'];
  else process.env['TZ'] = zoneBefore;
});

function imported(db: Db, fileName: string, text: string, person?: string) {
  const r = importCalendar(db, userCtx(db), { fileName, text, ...(person ? { person } : {}) });
  if (!r.ok) throw new Error(`${r.error} — ${r.hint}`);
  return r;
}
const titlesAt = (db: Db, from: string, to: string, zone = 'Europe/Berlin') =>
  listEvents(db, { fromMs: Date.parse(from), toMs: Date.parse(to), zone }).events.map((e) => `${e.start} ${e.title}`);
const failure = (db: Db, text: string, fileName = 'x.ics') => {
  const r = importCalendar(db, userCtx(db), { fileName, text });
  if (r.ok) throw new Error('expected the import to fail');
  return r;
};

describe('real-world files', () => {
  it('Google: a weekly rule with an exception date, an all-day free event, the owner from X-WR-CALNAME', () => {
    const { db } = tempDb();
    const r = imported(db, 'alice.ics', fixture('seed-alice-google.ics'), 'Alice');
    expect(r.value.calendar).toMatchObject({ name: 'Alice', personEmail: 'alice.martin@example.com' });
    expect(titlesAt(db, '2030-11-18T00:00:00Z', '2030-11-27T00:00:00Z')).toEqual(['2030-11-26T09:00:00+01:00 1:1 with manager']); // 19th excluded
    const allDay = listEvents(db, { fromMs: Date.parse('2030-11-13T00:00:00Z'), toMs: Date.parse('2030-11-14T00:00:00Z'), zone: 'Europe/Berlin' }).events.find((e) => e.allDay);
    expect(allDay).toMatchObject({ title: 'Team offsite reading day', start: '2030-11-13T00:00:00+01:00', end: '2030-11-14T00:00:00+01:00', busy: false });
  });

  it('Outlook/Exchange: Windows zone names, a UTC UNTIL, a moved occurrence', () => {
    const { db } = tempDb();
    imported(db, 'bob.ics', fixture('seed-bob-outlook.ics'));
    expect(titlesAt(db, '2030-11-13T00:00:00Z', '2030-11-14T00:00:00Z')).toEqual(['2030-11-13T14:00:00+01:00 Stand-up (moved)']);
    // Summer time in October, winter time in November: the 10:00 stand-up stays at 10:00 local.
    expect(titlesAt(db, '2030-10-01T00:00:00Z', '2030-10-02T00:00:00Z')).toEqual(['2030-10-01T10:00:00+02:00 Stand-up']);
    // UNTIL=20301231T090000Z is 10:00 in Berlin: the 31st is the last one.
    expect(titlesAt(db, '2030-12-30T00:00:00Z', '2031-01-03T00:00:00Z')).toEqual(['2030-12-30T10:00:00+01:00 Stand-up', '2030-12-31T10:00:00+01:00 Stand-up']);
  });

  it('Apple: a COUNT rule across the US DST change keeps 09:00 New York time; all-day and floating events', () => {
    const { db } = tempDb();
    imported(db, 'home.ics', fixture('apple-macos.ics'));
    const runs = titlesAt(db, '2030-03-01T00:00:00Z', '2030-03-20T00:00:00Z', 'America/New_York').filter((t) => t.endsWith('Morning run'));
    expect(runs).toEqual([
      '2030-03-08T09:00:00-05:00 Morning run',
      '2030-03-09T09:00:00-05:00 Morning run',
      '2030-03-10T09:00:00-04:00 Morning run',
      '2030-03-11T09:00:00-04:00 Morning run',
      '2030-03-12T09:00:00-04:00 Morning run',
    ]);
    // X-WR-TIMEZONE names the zone of the floating time.
    expect(titlesAt(db, '2030-03-09T00:00:00Z', '2030-03-10T00:00:00Z', 'America/New_York')).toContain('2030-03-09T14:00:00-05:00 Floating call');
  });

  it('Zimbra free/busy: busy periods become busy events, FBTYPE=FREE ones are skipped', () => {
    const { db } = tempDb();
    imported(db, 'carol.ifb', fixture('zimbra-freebusy.ifb'), 'Carol <carol@example.org>');
    expect(titlesAt(db, '2030-11-11T00:00:00Z', '2030-11-18T00:00:00Z', 'UTC')).toEqual([
      '2030-11-11T08:00:00+00:00 Busy',
      '2030-11-12T13:00:00+00:00 Busy (tentative)',
      '2030-11-13T00:00:00+00:00 Unavailable',
    ]);
  });

  it('Meetup: escaped text and the location', () => {
    const { db } = tempDb();
    imported(db, 'meetup.ics', fixture('meetup.ics'));
    const [e] = listEvents(db, { fromMs: Date.parse('2030-10-29T00:00:00Z'), toMs: Date.parse('2030-10-30T00:00:00Z'), zone: 'Europe/Berlin' }).events;
    expect(e).toMatchObject({ title: 'TypeScript Night: effects and errors', start: '2030-10-29T19:00:00+01:00', location: 'Factory Berlin (Rheinsberger Str. 76/77, Berlin, Germany)' });
    expect(e!.notes).toContain('Talks on typed errors.');
  });

  it('ical.js sample (Zimbra): overrides by zoned and UTC RECURRENCE-ID, EXDATE, RDATE and unknown parts reported', () => {
    const { db } = tempDb();
    const r = imported(db, 'zimbra.ics', fixture('icaljs-zimbra-recur-instances.ics'));
    expect(r.value.warnings.join('\n')).toMatch(/RDATE/);
    expect(r.value.warnings.join('\n')).toMatch(/X-UNKNOWN/);
    const oct = titlesAt(db, '2012-10-01T00:00:00Z', '2012-10-03T00:00:00Z', 'America/Los_Angeles');
    expect(oct).toEqual(['2012-10-02T15:00:00-07:00 Crazy Event Thingy!']); // moved from 10:00
    // December's first Tuesday is excluded; January's is there.
    expect(titlesAt(db, '2012-12-01T00:00:00Z', '2013-01-10T00:00:00Z', 'America/Los_Angeles')).toEqual(['2013-01-01T10:00:00-08:00 Crazy Event Thingy!']);
  });
});

describe('re-import and undo', () => {
  it('importing the same file again updates it instead of duplicating; a dropped event is kept as cancelled; undo restores exactly', () => {
    const { db } = tempDb();
    const text = fixture('seed-bob-outlook.ics');
    imported(db, 'bob.ics', text);
    const count = () => (db.prepare(`SELECT count(*) AS n FROM events`).get() as { n: number }).n;
    expect(count()).toBe(4);
    const actions = () => (db.prepare(`SELECT count(*) AS n FROM actions`).get() as { n: number }).n;
    const logged = actions();
    const before = snapshot(db);
    // The same file again changes nothing: refused in words, and no empty action in the log.
    expect(importCalendar(db, userCtx(db), { fileName: 'bob.ics', text })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/already matches bob\.ics \(4 events, none changed\)/),
      hint: expect.stringMatching(/^nothing to change/),
    });
    expect(actions()).toBe(logged);
    expect(snapshot(db)).toEqual(before);
    const changed = text.replace('SUMMARY:Customer call', 'SUMMARY:Customer call (rescheduled)').replace(/BEGIN:VEVENT\r\nUID:040000008200E00074C5B7101A82E00800000000F1F2[\s\S]*?END:VEVENT\r\n/, '');
    const r = imported(db, 'bob.ics', changed);
    expect(r.value).toMatchObject({ added: 0, updated: 1, removed: 1, unchanged: 2 });
    expect(count()).toBe(4);
    expect(titlesAt(db, '2030-11-11T00:00:00Z', '2030-11-12T00:00:00Z')).toContain('2030-11-11T12:00:00+01:00 Customer call (rescheduled)');
    expect(titlesAt(db, '2030-11-12T00:00:00Z', '2030-11-13T00:00:00Z').join()).not.toContain('Lunch');
    expect(undoAction(db, r.actionId, { ctx: userCtx(db) }).ok).toBe(true);
    expect(snapshot(db)).toEqual(before);
  });

  it('book, move and cancel on the local calendar; imported events are read-only', () => {
    const { db } = tempDb();
    imported(db, 'bob.ics', fixture('seed-bob-outlook.ics'), 'Bob');
    const b = bookEvent(db, userCtx(db), { title: 'Focus', start: '2030-11-12T14:00', end: '2030-11-12T15:00', attendees: ['bob'] });
    expect(b.ok && b.value).toMatchObject({ start: '2030-11-12T14:00:00+01:00', attendees: ['Bob'] });
    const id = b.ok ? b.value.id : '';
    expect(moveEvent(db, userCtx(db), { event: id, start: '2030-11-12T16:00', end: '2030-11-12T15:00' })).toMatchObject({ ok: false, error: 'the event ends before it starts' });
    expect(moveEvent(db, userCtx(db), { event: 'e1', start: '2030-11-12T16:00', end: '2030-11-12T17:00' })).toMatchObject({ ok: false, error: expect.stringMatching(/read-only/) });
    expect(bookEvent(db, userCtx(db), { title: 'X', start: '2030-11-12T14:00', end: '2030-11-12T15:00', attendees: ['Nobody'] })).toMatchObject({ ok: false, error: "no imported calendar belongs to 'Nobody'" });
    const c = cancelEvent(db, userCtx(db), { event: id });
    expect(c.ok).toBe(true);
    expect(titlesAt(db, '2030-11-12T00:00:00Z', '2030-11-13T00:00:00Z').join()).not.toContain('Focus');
    expect(undoAction(db, c.ok ? c.actionId : '', { ctx: userCtx(db) }).ok).toBe(true);
    expect(titlesAt(db, '2030-11-12T00:00:00Z', '2030-11-13T00:00:00Z').join()).toContain('Focus');
  });
});

const wrap = (body: string) => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${body}END:VCALENDAR\r\n`;
const vevent = (props: string) => `BEGIN:VEVENT\r\nUID:u1\r\nSUMMARY:x\r\n${props}END:VEVENT\r\n`;

describe('malformed and hostile files: one line naming where, nothing imported', () => {
  it('names the line of an unclosed or mismatched component, and of a bad value', () => {
    const { db } = tempDb();
    const before = snapshot(db);
    expect(failure(db, 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:20300101T100000Z\r\nEND:VCALENDAR\r\n').error).toBe('line 4: END:VCALENDAR does not close BEGIN:VEVENT of line 2');
    expect(failure(db, 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\n').error).toBe('line 2: BEGIN:VEVENT is never closed');
    expect(failure(db, wrap(vevent('DTSTART:2030-13-45\r\n'))).error).toMatch(/^VEVENT at line 4: DTSTART/);
    expect(failure(db, wrap(vevent(''))).error).toBe('VEVENT at line 4: the event has no DTSTART');
    expect(failure(db, wrap('BEGIN:VEVENT\r\nthis is not a property\r\nEND:VEVENT\r\n')).error).toMatch(/^line 5: invalid line/);
    expect(failure(db, 'hello').error).toBe('line 1: the file does not start with BEGIN:VCALENDAR');
    expect(snapshot(db)).toEqual(before);
  });

  it('a file with one bad event among good ones imports nothing', () => {
    const { db } = tempDb();
    const before = snapshot(db);
    const good = Array.from({ length: 50 }, (_, i) => `BEGIN:VEVENT\r\nUID:g${i}\r\nSUMMARY:ok\r\nDTSTART:20300101T100000Z\r\nEND:VEVENT\r\n`).join('');
    expect(failure(db, wrap(good + vevent('DTSTART:nonsense\r\n'))).error).toMatch(/^VEVENT at line \d+: DTSTART/);
    expect(snapshot(db)).toEqual(before);
  });

  it('reads one event at a time: zones and the calendar name from anywhere in the file, a changed occurrence before its event, a late bad event refuses the whole import', () => {
    const zone = 'BEGIN:VTIMEZONE\r\nTZID:Own\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0300\r\nTZOFFSETTO:+0300\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n';
    const moved = 'BEGIN:VEVENT\r\nUID:r1\r\nSUMMARY:Moved\r\nRECURRENCE-ID:20300102T100000Z\r\nDTSTART:20300102T150000Z\r\nDTEND:20300102T160000Z\r\nEND:VEVENT\r\n';
    const daily = 'BEGIN:VEVENT\r\nUID:r1\r\nSUMMARY:Daily\r\nDTSTART:20300101T100000Z\r\nDTEND:20300101T110000Z\r\nRRULE:FREQ=DAILY;COUNT=3\r\nEND:VEVENT\r\n';
    const owned = 'BEGIN:VEVENT\r\nUID:o1\r\nSUMMARY:Own zone\r\nDTSTART;TZID=Own:20300105T120000\r\nEND:VEVENT\r\n';
    // The zone and X-WR-CALNAME come after the events that use them.
    const text = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${moved}${daily}${owned}X-WR-CALNAME:Late name\r\n${zone}END:VCALENDAR\r\n`;
    const stream = streamIcs(text);
    expect(stream.name).toBe('Late name');
    const seen: string[] = [];
    for (const e of stream.events) seen.push(`${e.title} ${e.start} ${e.recurrence_id ?? ''}`.trim());
    expect(seen).toEqual(['Daily 2030-01-01T10:00:00', 'Own zone 2030-01-05T09:00:00', 'Moved 2030-01-02T15:00:00 2030-01-02T10:00:00']);
    const { db } = tempDb();
    imported(db, 'late.ics', text);
    // A file's text is in its rows, not again in the action's logged arguments (a 64 MB file was logged whole).
    const padded = text.replace('SUMMARY:Own zone', `SUMMARY:Own zone\r\nDESCRIPTION:${'n'.repeat(12_000)}`);
    const { db: big } = tempDb();
    const again = imported(big, 'padded.ics', padded);
    expect(getActionRow(big, again.actionId)!.args.length).toBeLessThan(1_000);
    expect(titlesAt(db, '2030-01-01T00:00:00Z', '2030-01-06T00:00:00Z', 'UTC')).toEqual([
      '2030-01-01T10:00:00+00:00 Daily',
      '2030-01-02T15:00:00+00:00 Moved',
      '2030-01-03T10:00:00+00:00 Daily',
      '2030-01-05T09:00:00+00:00 Own zone',
    ]);
    // Events are parsed as they are read: the first comes out before a broken one further on is reached,
    // and the import of such a file (its transaction) keeps nothing.
    const broken = wrap(daily + 'BEGIN:VEVENT\r\nthis is not a property\r\nEND:VEVENT\r\n');
    const it = streamIcs(broken).events[Symbol.iterator]();
    expect(it.next().value).toMatchObject({ title: 'Daily' });
    expect(() => it.next()).toThrow(/^line 12: invalid line/);
    const { db: other } = tempDb();
    const before = snapshot(other);
    expect(failure(other, broken).error).toMatch(/^line 12: invalid line/);
    expect(snapshot(other)).toEqual(before);
  });

  it('refuses deep nesting and oversized files before parsing them', () => {
    const { db } = tempDb();
    const deep = `BEGIN:VCALENDAR\r\n${'BEGIN:X\r\n'.repeat(100_000)}${'END:X\r\n'.repeat(100_000)}END:VCALENDAR\r\n`;
    expect(failure(db, deep).error).toBe(`line ${ICS_LIMITS.maxDepth + 1}: components nested more than ${ICS_LIMITS.maxDepth} deep`);
    const saved = ICS_LIMITS.maxBytes;
    ICS_LIMITS.maxBytes = 1000;
    try {
      expect(failure(db, wrap(vevent('DTSTART:20300101T100000Z\r\n')) + ' '.repeat(2000)).error).toMatch(/^the file is [\d,]+ bytes$/);
      // The limit is bytes of the file: 600 characters of three bytes each are over 1,000 bytes.
      expect(failure(db, wrap(vevent(`DTSTART:20300101T100000Z\r\nDESCRIPTION:${'€'.repeat(600)}\r\n`))).error).toMatch(/^the file is [\d,]+ bytes$/);
    } finally {
      ICS_LIMITS.maxBytes = saved;
    }
  });

  it('bounds absurd rules: SECONDLY becomes one event, COUNT=10^9 and impossible rules cannot hang a listing', () => {
    const { db } = tempDb();
    const r = imported(
      db,
      'absurd.ics',
      wrap(
        vevent('DTSTART:20300101T100000Z\r\nRRULE:FREQ=SECONDLY;COUNT=1000000000\r\n') +
          vevent('DTSTART:20300101T110000Z\r\nRRULE:FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30\r\n').replace('UID:u1', 'UID:u2') +
          vevent('DTSTART:20000101T090000Z\r\nDTEND:20000101T100000Z\r\nRRULE:FREQ=DAILY;COUNT=1000000000\r\n').replace('UID:u1', 'UID:u3') +
          vevent('DTSTART:20000101T090000Z\r\nRRULE:FREQ=HOURLY\r\n').replace('UID:u1', 'UID:u4'),
      ),
    );
    expect(r.value.warnings.join('\n')).toMatch(/secondly, which is not supported/);
    expect(r.value.warnings.join('\n')).toMatch(/never happens/);
    const t = performance.now();
    const listed = listEvents(db, { fromMs: Date.parse('2040-06-01T00:00:00Z'), toMs: Date.parse('2040-06-02T00:00:00Z'), zone: 'UTC' });
    expect(performance.now() - t).toBeLessThan(10_000); // bounded, not timed: a hang would never return
    expect(listed.events.length).toBeLessThanOrEqual(5_000);
    expect(listed.truncated).toBe(true); // COUNT rules cannot skip ahead: the step bound stops them
  });
});

describe('time zones and free time', () => {
  it('maps Windows and path-like zone names to IANA, and places DST gaps and overlaps', () => {
    expect(ianaZone('W. Europe Standard Time')).toBe('Europe/Berlin');
    expect(ianaZone('"Pacific Standard Time"')).toBe('America/Los_Angeles');
    expect(ianaZone('(UTC+01:00) Romance Standard Time')).toBe('Europe/Paris');
    expect(ianaZone('/mozilla.org/20050126_1/Europe/Berlin')).toBe('Europe/Berlin');
    expect(ianaZone('Not A Zone')).toBeNull();
    // 02:30 on 2030-03-31 does not exist in Berlin: moved forward to 03:30 CEST.
    expect(isoInZone(wallToUtc({ y: 2030, m: 3, d: 31, h: 2, mi: 30, s: 0 }, 'Europe/Berlin'), 'Europe/Berlin')).toBe('2030-03-31T03:30:00+02:00');
    // 02:30 on 2030-10-27 happens twice: the first one.
    expect(isoInZone(wallToUtc({ y: 2030, m: 10, d: 27, h: 2, mi: 30, s: 0 }, 'Europe/Berlin'), 'Europe/Berlin')).toBe('2030-10-27T02:30:00+02:00');
  });

  it('never offers the past, keeps to working days and hours, and knows an unknown attendee', () => {
    const { db } = tempDb();
    const base = { durationMin: 60, zone: 'Europe/Berlin', workStart: '09:00', workEnd: '17:00', workDays: ['mon', 'tue', 'wed', 'thu', 'fri'] as const };
    // Friday 15:20: the rest of Friday (from 15:30), then Monday.
    const r = findFreeSlots(db, { ...base, workDays: [...base.workDays], now: Date.parse('2030-11-15T15:20:00+01:00'), toMs: Date.parse('2030-11-19T00:00:00+01:00') });
    expect(r.slots.slice(0, 2)).toEqual([
      { start: '2030-11-15T15:30:00+01:00', end: '2030-11-15T17:00:00+01:00' },
      { start: '2030-11-18T09:00:00+01:00', end: '2030-11-18T17:00:00+01:00' },
    ]);
    expect(() => findFreeSlots(db, { ...base, workDays: [...base.workDays], now: Date.now(), attendees: ['Zed'] })).toThrow(/no imported calendar belongs to 'Zed'/);
  });

  it('the fast walk of DAILY and WEEKLY rules gives exactly the walls ical.js gives', () => {
    const D = ['SU', 'MO', 'TU', 'WE', 'TH', 'FR', 'SA'];
    const p2 = (n: number): string => String(n).padStart(2, '0');
    fc.assert(
      fc.property(
        fc.record({
          freq: fc.constantFrom('DAILY', 'WEEKLY'),
          interval: fc.option(fc.integer({ min: 1, max: 5 }), { nil: undefined }),
          byday: fc.option(fc.uniqueArray(fc.integer({ min: 0, max: 6 }), { minLength: 1, maxLength: 7 }), { nil: undefined }),
          wkst: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
          end: fc.oneof(fc.constant(null), fc.record({ count: fc.integer({ min: 0, max: 40 }) }), fc.record({ untilDays: fc.integer({ min: -3, max: 300 }), h: fc.integer({ min: 0, max: 23 }) })),
          allDay: fc.boolean(),
          start: fc.record({ y: fc.integer({ min: 2019, max: 2036 }), m: fc.integer({ min: 1, max: 12 }), d: fc.integer({ min: 1, max: 28 }), h: fc.integer({ min: 0, max: 23 }), mi: fc.constantFrom(0, 15, 30, 45) }),
        }),
        ({ freq, interval, byday, wkst, end, allDay, start }) => {
          const w: Wall = { ...start, h: allDay ? 0 : start.h, mi: allDay ? 0 : start.mi, s: 0 };
          const parts = [`FREQ=${freq}`];
          if (interval) parts.push(`INTERVAL=${interval}`);
          if (byday) parts.push(`BYDAY=${byday.map((d) => D[d]).join(',')}`);
          if (wkst !== undefined) parts.push(`WKST=${D[wkst]}`);
          if (end && 'count' in end) parts.push(`COUNT=${end.count}`);
          if (end && 'untilDays' in end) {
            const u = new Date(Date.UTC(w.y, w.m - 1, w.d + end.untilDays, end.h));
            const date = `${u.getUTCFullYear()}${p2(u.getUTCMonth() + 1)}${p2(u.getUTCDate())}`;
            parts.push(`UNTIL=${allDay ? date : `${date}T${p2(u.getUTCHours())}0000`}`);
          }
          const rule = parts.join(';');
          const fast = wallIterator(ICAL.Recur.fromString(rule), w, allDay);
          const reference = icalWallIterator(ICAL.Recur.fromString(rule), w, allDay);
          const walls = (it: { next(): Wall | null }): Wall[] => {
            const out: Wall[] = [];
            for (let a = it.next(); a && out.length < 60; a = it.next()) out.push(a);
            return out;
          };
          expect(walls(fast), `${rule} from ${JSON.stringify(w)}`).toEqual(walls(reference));
        },
      ),
      { numRuns: 250 },
    );
  });

  it('free slots are the free runs of a minute grid, on random calendars (singles, all-day, repeating, exceptions, free events)', () => {
    // Monday 2035-01-08 in Berlin (UTC+1 all January): three days of five-minute steps.
    const { db } = tempDb();
    const DAY0 = Date.parse('2035-01-07T23:00:00Z');
    const MIN = 60_000;
    const utc = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
    const single = fc.record({ kind: fc.constant('single' as const), at: fc.integer({ min: -24, max: 3 * 288 }), len: fc.integer({ min: 1, max: 60 }), free: fc.boolean() });
    const allDay = fc.record({ kind: fc.constant('allday' as const), day: fc.integer({ min: 0, max: 2 }) });
    const daily = fc.record({ kind: fc.constant('daily' as const), at: fc.integer({ min: 0, max: 287 }), len: fc.integer({ min: 1, max: 36 }), count: fc.integer({ min: 1, max: 4 }), skip: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }) });
    fc.assert(
      fc.property(
        fc.array(fc.oneof(single, single, allDay, daily), { maxLength: 8 }),
        fc.record({
          durationMin: fc.integer({ min: 1, max: 36 }).map((n) => n * 5),
          work: fc.constantFrom(['09:00', '17:00'], ['00:00', '24:00'], ['08:15', '12:45'], ['13:00', '23:30']),
          days: fc.uniqueArray(fc.constantFrom(...WEEKDAYS), { minLength: 1, maxLength: 7 }),
          nowStep: fc.integer({ min: -100, max: 400 }),
        }),
        (events, q) => {
          const busy = new Uint8Array(3 * 1440);
          const mark = (fromMs: number, toMs: number): void => {
            for (let m = Math.max(0, (fromMs - DAY0) / MIN); m < Math.min(busy.length, (toMs - DAY0) / MIN); m++) busy[m] = 1;
          };
          const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//test//EN'];
          events.forEach((e, i) => {
            lines.push('BEGIN:VEVENT', `UID:p${i}@test`, `SUMMARY:E${i}`);
            if (e.kind === 'allday') {
              const d = new Date(DAY0 + (e.day + 1) * 86_400_000);
              const date = (x: Date): string => x.toISOString().slice(0, 10).replace(/-/g, '');
              lines.push(`DTSTART;VALUE=DATE:${date(d)}`, `DTEND;VALUE=DATE:${date(new Date(d.getTime() + 86_400_000))}`);
              mark(DAY0 + e.day * 86_400_000, DAY0 + (e.day + 1) * 86_400_000);
            } else {
              const start = DAY0 + e.at * 5 * MIN;
              lines.push(`DTSTART:${utc(start)}`, `DTEND:${utc(start + e.len * 5 * MIN)}`);
              if (e.kind === 'single') {
                if (e.free) lines.push('TRANSP:TRANSPARENT');
                else mark(start, start + e.len * 5 * MIN);
              } else {
                lines.push(`RRULE:FREQ=DAILY;COUNT=${e.count}`);
                if (e.skip !== null) lines.push(`EXDATE:${utc(start + e.skip * 86_400_000)}`);
                for (let n = 0; n < e.count; n++) if (n !== e.skip) mark(start + n * 86_400_000, start + n * 86_400_000 + e.len * 5 * MIN);
              }
            }
            lines.push('END:VEVENT');
          });
          lines.push('END:VCALENDAR', '');
          const r = importCalendar(db, userCtx(db), { fileName: 'random.ics', text: lines.join('\r\n') });
          if (!r.ok) expect(r.error).toMatch(/already matches/); // the same calendar as the run before
          const now = DAY0 + q.nowStep * 7 * MIN;
          const [ws, we] = q.work.map((t) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3))) as [number, number];
          const got = findFreeSlots(db, { durationMin: q.durationMin, fromMs: DAY0, toMs: DAY0 + 3 * 86_400_000, now, zone: 'Europe/Berlin', workStart: q.work[0]!, workEnd: q.work[1]!, workDays: q.days as Weekday[], maxSlots: 1_000 });
          // The reference: minute by minute, free runs inside each working day, from now (rounded up to a quarter hour) on.
          const earliest = Math.ceil(now / (15 * MIN)) * 15 * MIN;
          const want: { start: string; end: string }[] = [];
          for (let day = 0; day < 3; day++) {
            if (!q.days.includes(WEEKDAYS[(1 + day) % 7]!)) continue;
            let run = -1;
            for (let m = day * 1440 + ws; m <= day * 1440 + we; m++) {
              const free = m < day * 1440 + we && busy[m] === 0 && DAY0 + m * MIN >= earliest;
              if (free && run < 0) run = m;
              if (!free && run >= 0) {
                if (m - run >= q.durationMin) want.push({ start: isoInZone(DAY0 + run * MIN, 'Europe/Berlin'), end: isoInZone(DAY0 + m * MIN, 'Europe/Berlin') });
                run = -1;
              }
            }
          }
          expect(got.slots).toEqual(want);
          expect(got.total).toBe(want.length);
        },
      ),
      { numRuns: 60 },
    );
  });
});

