// Calendars and repeat rules under attack (issue 28 items 5, 6, 7b, 9): one validator for rules where they
// enter, expansion that never fails a query, real calendars' quirks read instead of refused, and
// expansion bounded by the query's window. Dates are far away (2030, 1950, the year 1000) with fixed windows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTask, completeTask, getActionRow, importCalendar, listEvents, updateTask, type Db } from '../../../src-main/core';
import { MAX_QUERY_OCCURRENCES } from '../../../src-main/core/domain/calendar';
import { checkRule } from '../../../src-shared/recurrence';
import { firstOccurrence, nextOccurrence, validRecurrence } from '../../../src-shared/repeat-rules';
import { nextRuns, parseSchedule } from '../../../src-main/core/domain/routines';
import { hourlySince1950, setposSince1000, vtimezoneFlood, BAD_PROPERTIES, BAD_RULES } from '../../../bench/hostile-calendar';
import { okValue, tempDb, userCtx } from '../../support/db';

const zoneBefore = process.env['TZ'];
beforeAll(() => {
  process.env['TZ'] = 'Europe/Berlin';
});
afterAll(() => {
  if (zoneBefore === undefined) delete process.env['TZ'];
  else process.env['TZ'] = zoneBefore;
});

const wrap = (body: string, head = ''): string => `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n${head}${body}END:VCALENDAR\r\n`;
const vevent = (lines: string, uid = 'u1', title = 'Meeting'): string => `BEGIN:VEVENT\r\nUID:${uid}\r\nDTSTAMP:20300101T000000Z\r\nSUMMARY:${title}\r\n${lines}END:VEVENT\r\n`;
const DAY = 86_400_000;

function imported(db: Db, text: string, fileName = 'x.ics') {
  const r = importCalendar(db, userCtx(db), { fileName, text });
  if (!r.ok) throw new Error(`${r.error} — ${r.hint}`);
  return r.value;
}
const list = (db: Db, from: string, days: number, zone = 'UTC') => listEvents(db, { fromMs: Date.parse(from), toMs: Date.parse(from) + days * DAY, zone });

describe('checkRule: one validator for repeat rules', () => {
  it('refuses what ical.js accepts and then fails on, misreads or loops on, naming the part', () => {
    const refused: [string, RegExp][] = [
      ['FREQ=MONTHLY;BYDAY=6MO', /^BYDAY=6MO: a month has at most 5/],
      ['FREQ=DAILY;INTERVAL=-1', /^INTERVAL=-1 must be a whole number/],
      ['FREQ=DAILY;INTERVAL=0', /^INTERVAL=0 /],
      ['FREQ=DAILY;COUNT=1000000000000000000000', /^COUNT=1000000000000000000000 is more than 2\^53/],
      [`FREQ=DAILY;COUNT=${2 ** 53 + 2}`, /more than 2\^53/],
      ['FREQ=DAILY;COUNT=1e21', /^COUNT=1E21 is not a whole number/],
      ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', /^BYMONTH=2;BYMONTHDAY=30 never happens/],
      ['FREQ=WEEKLY;BYDAY=2MO', /^BYDAY=2MO: a numbered weekday needs FREQ=MONTHLY or YEARLY/],
      ['FREQ=YEARLY;BYDAY=54MO', /^BYDAY=54MO: a year has at most 53/],
      ['FREQ=DAILY;BYHOUR=24', /^BYHOUR=24 is out of range/],
      ['FREQ=DAILY;BYSETPOS=1', /^BYSETPOS needs another BY/],
      ['FREQ=DAILY;BYDAY=XX', /^BYDAY=XX is not a weekday/],
      ['FREQ=NEVER', /^FREQ=NEVER is not a frequency/],
      ['FREQ=DAILY;FREQ=WEEKLY', /^FREQ is given twice/],
      ['INTERVAL=2', /no FREQ/],
      ['FREQ=DAILY;UNTIL=2030-01-01', /^UNTIL=2030-01-01 is not a date/],
      ['FREQ=DAILY;UNTIL=20300230', /^UNTIL=20300230 is not a date/],
      ['FREQ=DAILY;BOGUS=1', /^BOGUS is not a part/],
      [`FREQ=DAILY;BYMONTH=${'1,'.repeat(400)}1`, /more than 366 values/],
      ['F'.repeat(5000), /characters long/],
    ];
    for (const [rule, message] of refused) {
      const r = checkRule(rule);
      expect(r.ok, rule).toBe(false);
      if (!r.ok) {
        expect(r.error, rule).toMatch(message);
        expect(r.error).not.toMatch(/\n/);
      }
    }
    for (const rule of ['FREQ=WEEKLY;BYDAY=MO', 'RRULE:freq=monthly;byday=-1fr', 'FREQ=MONTHLY;BYDAY=5MO', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=29', 'FREQ=DAILY;COUNT=9007199254740992', 'FREQ=DAILY;UNTIL=20301231T235959Z;WKST=SU'])
      expect(checkRule(rule).ok, rule).toBe(true);
    expect(checkRule('FREQ=HOURLY', { freqs: ['DAILY', 'WEEKLY'] })).toEqual({ ok: false, error: 'FREQ=HOURLY is not supported here (DAILY, WEEKLY)' });
    expect(checkRule(null as unknown as string).ok).toBe(false);
  });

  it('tasks: tidy edit --every and the tools refuse the same rules in one line naming the part', () => {
    const { db } = tempDb();
    const task = okValue(addTask(db, userCtx(db), { content: 'Pay rent' }));
    for (const [rule, part] of [
      ['FREQ=MONTHLY;BYDAY=6MO', 'BYDAY=6MO'],
      ['FREQ=DAILY;INTERVAL=-1', 'INTERVAL=-1'],
      ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', 'BYMONTH=2;BYMONTHDAY=30'],
      ['FREQ=DAILY;COUNT=1000000000000000000000', 'COUNT='],
    ] as const) {
      expect(validRecurrence(rule)).toBe(false);
      const r = updateTask(db, userCtx(db), { task: task.id, recurrence: rule });
      expect(r.ok).toBe(false);
      if (!r.ok) {
        expect(r.error).toContain(part);
        expect(r.error).not.toMatch(/\n|unexpected/);
      }
    }
    expect(okValue(updateTask(db, userCtx(db), { task: task.id, recurrence: 'FREQ=MONTHLY;BYDAY=-1FR' })).recurrence).toBe('FREQ=MONTHLY;BYDAY=-1FR');
  });

  it('a task whose stored rule cannot be used can still be completed, with a note', () => {
    const { db } = tempDb();
    const task = okValue(addTask(db, userCtx(db), { content: 'Water plants', due: '2030-01-07', recurrence: 'every week' }));
    // A rule saved before rules were checked (or restored from an old file).
    db.prepare(`UPDATE tasks SET recurrence = 'FREQ=MONTHLY;BYDAY=6MO' WHERE id = ?`).run(task.id);
    const r = completeTask(db, userCtx(db), { task: task.id });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.status).toBe('done');
    expect(getActionRow(db, r.actionId)?.summary).toMatch(/its repeat rule cannot be used \(BYDAY=6MO: .*\), so it does not repeat/);
  });
});

describe('expansion is total', () => {
  it('an imported BYDAY=6MO rule is kept as one event with a warning; listings and get_events keep working', () => {
    const { db } = tempDb();
    const report = imported(
      db,
      wrap(vevent('DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=MONTHLY;BYDAY=6MO\r\n') + vevent('DTSTART:20300106T090000Z\r\nDTEND:20300106T100000Z\r\n', 'u2', 'Other')),
    );
    expect(report.warnings).toEqual(['VEVENT at line 4: "Meeting" has a repeat rule that cannot be used (BYDAY=6MO: a month has at most 5 of each weekday); imported as a single event']);
    expect(list(db, '2030-01-01T00:00:00Z', 60).events.map((e) => `${e.start} ${e.title}`)).toEqual(['2030-01-05T09:00:00+00:00 Meeting', '2030-01-06T09:00:00+00:00 Other']);
    for (const [rule, n] of [['FREQ=DAILY;INTERVAL=-1', 1], ['FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', 1], ['FREQ=DAILY;COUNT=1000000000000000000000', 1]] as const) {
      const { db: other } = tempDb();
      const r = imported(other, wrap(vevent(`DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:${rule}\r\n`)));
      expect(r.warnings.join('\n')).toMatch(/repeat rule that cannot be used/);
      expect(list(other, '2030-01-01T00:00:00Z', 60).events).toHaveLength(n);
    }
  });

  it('a daily rule every 7th day on a weekday it never reaches (ical.js loops forever on it) gives DTSTART alone', () => {
    // 2030-01-07 is a Monday; every 7 or 14 days is always a Monday, never a Tuesday.
    for (const rule of ['FREQ=DAILY;INTERVAL=7;BYDAY=TU', 'FREQ=DAILY;INTERVAL=14;BYDAY=TU,WE;COUNT=5']) {
      const { db } = tempDb();
      imported(db, wrap(vevent(`DTSTART:20300107T090000Z\r\nDTEND:20300107T100000Z\r\nRRULE:${rule}\r\n`)));
      expect(list(db, '2030-01-01T00:00:00Z', 90).events.map((e) => e.start)).toEqual(['2030-01-07T09:00:00+00:00']);
    }
  });

  it('a stored rule that cannot be expanded shows its event once with a note, never failing the query', () => {
    const { db } = tempDb();
    imported(db, wrap(vevent('DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=WEEKLY\r\n') + vevent('DTSTART:20300106T090000Z\r\nDTEND:20300106T100000Z\r\n', 'u2', 'Other')));
    db.prepare(`UPDATE events SET rrule = 'FREQ=MONTHLY;BYDAY=6MO', exdates = '{not json' WHERE uid = 'u1'`).run();
    const { events } = list(db, '2030-01-01T00:00:00Z', 60);
    expect(events.map((e) => e.title)).toEqual(['Meeting', 'Other']);
    expect(events[0]!.note).toMatch(/^its repeat rule cannot be used \(BYDAY=6MO: a month has at most 5 of each weekday\); shown once$/);
    expect(events[1]!.note).toBeUndefined();
  });
});

describe('rules walked outside the calendar: tasks, quick add, routines (one bounded walk)', () => {
  // 2030-01-07 is a Monday: every 7th day from it is a Monday, never a Tuesday. ical.js searched for ever.
  const NEVER = ['FREQ=DAILY;INTERVAL=7;BYDAY=TU', 'FREQ=DAILY;INTERVAL=7;BYDAY=TU;BYHOUR=9'];

  it('checkRule takes the rule (it is sound from a Tuesday); the walk finds no date after a Monday, in bounded time', () => {
    for (const rule of NEVER) {
      expect(checkRule(rule).ok).toBe(true);
      expect(nextOccurrence(rule, '2030-01-07T09:00', '2030-01-07')).toBeNull();
      expect(firstOccurrence(rule, '2030-01-07')).toBe('2030-01-07');
    }
    expect(nextOccurrence(NEVER[0]!, '2030-01-08', '2030-01-08')).toBe('2030-01-15');
    expect(nextOccurrence(NEVER[1]!, '2030-01-08T09:00', '2030-01-08')).toBe('2030-01-15T09:00');
  });

  it('a task with the rule (tidy add --every, tidy edit --every) completes; from a Tuesday it rolls over', () => {
    const { db } = tempDb();
    for (const rule of NEVER) {
      const task = okValue(addTask(db, userCtx(db), { content: `Water plants ${rule}`, due: '2030-01-07T09:00', recurrence: rule }));
      expect(task.recurrence).toBe(rule);
      expect(okValue(completeTask(db, userCtx(db), { task: task.id })).status).toBe('done');
    }
    const tuesday = okValue(addTask(db, userCtx(db), { content: 'Tuesdays', due: '2030-01-08T09:00', recurrence: 'every monday' }));
    okValue(updateTask(db, userCtx(db), { task: tuesday.id, recurrence: NEVER[1]! }));
    expect(okValue(completeTask(db, userCtx(db), { task: tuesday.id }))).toMatchObject({ status: 'open', due: '2030-01-15T09:00' });
  });

  it('a routine with the rule schedules nothing after its start, in bounded time; a schedule that never runs is refused in one line', () => {
    for (const rrule of NEVER) {
      const s = { rrule, start: '2030-01-07T09:00', tz: 'UTC' };
      expect(nextRuns(s, Date.UTC(2030, 0, 1), 3)).toEqual([Date.UTC(2030, 0, 7, 9)]);
      expect(nextRuns(s, Date.UTC(2030, 0, 7, 10), 3)).toEqual([]);
    }
    expect(() => parseSchedule('every day until jan 1', new Date(2035, 0, 1, 10, 0), 'UTC')).toThrow(/^"every day until jan 1" never runs after 2035-01-01 09:00$/);
  });

  it('the calendar lists such an event at DTSTART with a note when ical.js has to walk it', () => {
    const { db } = tempDb();
    imported(db, wrap(vevent(`DTSTART:20300107T090000Z\r\nDTEND:20300107T100000Z\r\nRRULE:${NEVER[1]!}\r\n`)));
    const events = list(db, '2030-01-01T00:00:00Z', 90).events;
    expect(events.map((e) => e.start)).toEqual(['2030-01-07T09:00:00+00:00']);
  });
});

describe('real calendars (7b): read, fixed with a note, or the broken part skipped alone', () => {
  it('a date-only EXDATE on a timed event (with or without VALUE=DATE) excludes that day', () => {
    for (const exdate of ['EXDATE:20300107', 'EXDATE;VALUE=DATE:20300107']) {
      const { db } = tempDb();
      const r = imported(db, wrap(vevent(`DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=DAILY;COUNT=5\r\n${exdate}\r\n`)));
      expect(r.warnings).toEqual([]);
      expect(list(db, '2030-01-01T00:00:00Z', 30).events.map((e) => e.start.slice(0, 10))).toEqual(['2030-01-05', '2030-01-06', '2030-01-08', '2030-01-09']);
    }
  });

  it('a broken EXDATE or RDATE value is skipped alone, naming its line', () => {
    const { db } = tempDb();
    const r = imported(db, wrap(vevent('DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=DAILY;COUNT=3\r\nEXDATE:2030X107T090000Z,20300106T090000Z\r\nRDATE:20301345T090000Z\r\n')));
    expect(r.warnings).toEqual(['line 11: EXDATE "2030X107T090000Z" is not a date or time; skipped', 'line 12: RDATE "20301345T090000Z" is not a date or time; skipped']);
    expect(list(db, '2030-01-01T00:00:00Z', 30).events.map((e) => e.start.slice(0, 10))).toEqual(['2030-01-05', '2030-01-07']);
  });

  it('RDATE adds occurrences, with a rule or without one, and zoned', () => {
    const { db } = tempDb();
    imported(
      db,
      wrap(
        vevent('DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:FREQ=DAILY;COUNT=2\r\nRDATE:20300110T090000Z,20300112T090000Z\r\n') +
          vevent('DTSTART;TZID=Europe/Berlin:20300201T100000\r\nDTEND;TZID=Europe/Berlin:20300201T110000\r\nRDATE;TZID=Europe/Berlin:20300301T100000\r\n', 'u2', 'Zoned'),
      ),
    );
    expect(list(db, '2030-01-01T00:00:00Z', 30).events.map((e) => e.start)).toEqual([
      '2030-01-05T09:00:00+00:00',
      '2030-01-06T09:00:00+00:00',
      '2030-01-10T09:00:00+00:00',
      '2030-01-12T09:00:00+00:00',
    ]);
    expect(list(db, '2030-01-31T00:00:00Z', 60, 'Europe/Berlin').events.map((e) => `${e.start} ${e.title}`)).toEqual(['2030-02-01T10:00:00+01:00 Zoned', '2030-03-01T10:00:00+01:00 Zoned']);
  });

  it("Outlook's broken TZID quoting is repaired with a note; a bare-date DTSTART is a date", () => {
    const { db } = tempDb();
    const r = imported(
      db,
      wrap(
        vevent('DTSTART;TZID="W. Europe Standard Time:20300105T090000\r\nDTEND;TZID=W. Europe Standard Time":20300105T100000\r\n') +
          vevent('DTSTART:20300110\r\nDTEND:20300111\r\n', 'u2', 'Holiday'),
      ),
    );
    expect(r.warnings).toEqual(['line 8, 9: a time zone name with broken quotes was read as if quoted']);
    const events = list(db, '2030-01-01T00:00:00Z', 30, 'Europe/Berlin').events;
    expect(events.map((e) => `${e.start} ${e.allDay} ${e.title}`)).toEqual(['2030-01-05T09:00:00+01:00 false Meeting', '2030-01-10T00:00:00+01:00 true Holiday']);
  });

  it('old Exchange zone names "(GMT+10:00) Canberra, Melbourne, Sydney" land at the right UTC time', () => {
    const cases: [string, string][] = [
      ['(GMT+10:00) Canberra, Melbourne, Sydney', '2030-01-04T22:00:00Z'], // summer in Sydney: UTC+11
      ['(GMT+01:00) Amsterdam, Berlin, Bern, Rome, Stockholm, Vienna', '2030-01-05T08:00:00Z'],
      ['(GMT-05:00) Eastern Time (US & Canada)', '2030-01-05T14:00:00Z'],
      ['(UTC+10:00) Canberra, Melbourne, Sydney', '2030-01-04T22:00:00Z'],
      ['(GMT+04:00) Nowhere Known', '2030-01-05T05:00:00Z'], // the prefix's fixed offset
    ];
    for (const [tzid, utc] of cases) {
      const { db } = tempDb();
      const r = imported(db, wrap(vevent(`DTSTART;TZID="${tzid}":20300105T090000\r\nDTEND;TZID="${tzid}":20300105T100000\r\n`)));
      expect(r.warnings, tzid).toEqual([]);
      const [e] = list(db, '2030-01-03T00:00:00Z', 5).events;
      expect(new Date(Date.parse(e!.start)).toISOString().replace('.000', ''), tzid).toBe(utc);
    }
  });

  it('a bad TZOFFSETTO names its line; the zone is not used and the file imports', () => {
    const { db } = tempDb();
    const r = imported(
      db,
      wrap(
        vevent('DTSTART;TZID=Custom:20300105T090000\r\nDTEND;TZID=Custom:20300105T100000\r\n'),
        'BEGIN:VTIMEZONE\r\nTZID:Custom\r\nBEGIN:STANDARD\r\nDTSTART:16010101T000000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+01xx\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n',
      ),
    );
    expect(r.warnings[0]).toBe('line 9: TZOFFSETTO "+01:xx" is not an offset like +0100; time zone "Custom" was not used');
    expect(r.warnings.join('\n')).not.toMatch(/extract integer/);
    expect(list(db, '2030-01-01T00:00:00Z', 30).events).toHaveLength(1);
  });

  it('X-WR-CALNAME names the imported calendar', () => {
    const { db } = tempDb();
    expect(imported(db, wrap(vevent('DTSTART:20300105T090000Z\r\n'), 'X-WR-CALNAME:Team Holidays\r\n'), 'basic.ics').calendar.name).toBe('Team Holidays');
  });

  it('DURATION:P99999999W gives no end, with a note (it stored 0NaN-NaN… before)', () => {
    const { db } = tempDb();
    const r = imported(db, wrap(vevent('DTSTART:20300105T090000Z\r\nDURATION:P99999999W\r\n')));
    expect(r.warnings).toEqual(['VEVENT at line 4: "Meeting" DURATION "P99999999W" cannot be used (the length (699,999,993 days) is more than ten years); it was given no end']);
    const [e] = list(db, '2030-01-01T00:00:00Z', 30).events;
    expect(e).toMatchObject({ start: '2030-01-05T09:00:00+00:00', end: '2030-01-05T09:00:00+00:00' });
  });

  it('every hostile rule and property of the bench imports beside a good event, never an unexpected error', () => {
    for (const body of [...BAD_RULES.map((rule) => vevent(`DTSTART:20300105T090000Z\r\nDTEND:20300105T100000Z\r\nRRULE:${rule}\r\n`, 'bad')), ...BAD_PROPERTIES.map((p) => vevent(p, 'bad'))]) {
      const { db } = tempDb();
      const r = importCalendar(db, userCtx(db), { fileName: 'x.ics', text: wrap(vevent('DTSTART:20300106T120000Z\r\nDTEND:20300106T130000Z\r\n', 'good', 'Good') + body) });
      expect(r.ok, body).toBe(true);
      const titles = list(db, '2030-01-01T00:00:00Z', 30).events.map((e) => e.title);
      expect(titles, body).toContain('Good');
    }
  });
});

describe('expansion bounded by the query window (9)', () => {
  it('an event from the year 1000 with BYSETPOS=-1 lists the right occurrences near the window', () => {
    const { db } = tempDb();
    imported(db, setposSince1000());
    const { events, truncated } = list(db, '2030-01-01T00:00:00Z', 90);
    expect(truncated).toBe(false);
    // The last weekday of January, February and March 2030.
    expect(events.map((e) => e.start)).toEqual(['2030-01-31T09:00:00+00:00', '2030-02-28T09:00:00+00:00', '2030-03-29T09:00:00+00:00']);
  });

  it('monthly and yearly rules without BY parts keep their day when the walk starts near the window', () => {
    const { db } = tempDb();
    imported(
      db,
      wrap(
        vevent('DTSTART:19500131T090000Z\r\nDTEND:19500131T100000Z\r\nRRULE:FREQ=MONTHLY\r\n', 'm', 'Month end') +
          vevent('DTSTART:19480229T090000Z\r\nDTEND:19480229T100000Z\r\nRRULE:FREQ=YEARLY\r\n', 'y', 'Leap day') +
          vevent('DTSTART:19500101T003000Z\r\nDTEND:19500101T010000Z\r\nRRULE:FREQ=HOURLY;INTERVAL=5\r\n', 'h', 'Every 5 hours'),
      ),
    );
    const month = list(db, '2030-01-01T00:00:00Z', 120).events.filter((e) => e.title === 'Month end').map((e) => e.start.slice(0, 10));
    expect(month).toEqual(['2030-01-31', '2030-03-31']); // no 31st in February or April
    expect(list(db, '2031-01-01T00:00:00Z', 365 * 2).events.filter((e) => e.title === 'Leap day').map((e) => e.start.slice(0, 10))).toEqual(['2032-02-29']);
    // 1950-01-01T00:30Z plus multiples of 5 hours: 2030-01-01 is 29,220 days later, 701,280 hours = 5 × 140,256.
    const hours = list(db, '2030-01-01T00:00:00Z', 1).events.filter((e) => e.title === 'Every 5 hours').map((e) => e.start.slice(11, 16));
    expect(hours).toEqual(['00:30', '05:30', '10:30', '15:30', '20:30']);
  });

  it('2,000 events repeating every hour since 1950: a week and a year answer, cut at the per-query cap with a note', () => {
    const { db } = tempDb();
    imported(db, hourlySince1950(2_000));
    const week = list(db, '2030-01-01T00:00:00Z', 7);
    expect(week.truncated).toBe(true);
    expect(week.events.length).toBe(5_000);
    const year = listEvents(db, { fromMs: Date.parse('2030-01-01T00:00:00Z'), toMs: Date.parse('2031-01-01T00:00:00Z'), zone: 'UTC', limit: 100_000 });
    expect(year.truncated).toBe(true);
    expect(year.events.length).toBe(MAX_QUERY_OCCURRENCES);
    expect(year.events[0]!.note).toMatch(/later occurrences were cut/);
  }, 120_000);

  it('a VTIMEZONE repeating every second or hour since 1601 is not expanded: the file imports with a note', () => {
    for (const freq of ['SECONDLY', 'HOURLY'] as const) {
      const { db } = tempDb();
      const r = imported(db, vtimezoneFlood(freq));
      expect(r.warnings[0]).toBe(`a time zone's STANDARD time repeats ${freq.toLowerCase()} (time zones change at most monthly); time zone "Flood" was not used`);
      expect(list(db, '2030-01-01T00:00:00Z', 30).events).toHaveLength(1);
    }
  });
});
