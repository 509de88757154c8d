// The quick-add grammar (src-shared/quickadd.ts) over real phrasing, and its invariants over any text.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDue } from '../../../src-shared/date-words';
import { parseQuickAdd, QUICK_ADD_MAX_CHARS } from '../../../src-shared/quickadd';
import { nextOccurrence, validRecurrence } from '../../../src-shared/repeat-rules';

// Monday 23 November 2026, 10:00 local time.
const now = new Date(2026, 10, 23, 10, 0);
const projects = [
  { id: 'p1', name: 'Birthday Celebration' },
  { id: 'p2', name: 'Birthday' },
  { id: 'p3', name: 'Work' },
  { id: 'p4', name: 'Home Renovation' },
];
const parse = (text: string) => parseQuickAdd(text, { projects, now });

type Row = [text: string, content: string, due: string | null, extra?: { priority?: number; project?: string; recurrence?: string; unknownProject?: string }];

const TABLE: Row[] = [
  // Relative days and weekdays.
  ['Buy milk tomorrow', 'Buy milk', '2026-11-24'],
  ['Buy milk today', 'Buy milk', '2026-11-23'],
  ['tonight call mom', 'call mom', '2026-11-23'],
  ['Pay the bill yesterday', 'Pay the bill', '2026-11-22'],
  ['Call Anna friday', 'Call Anna', '2026-11-27'],
  ['Call Anna on friday', 'Call Anna', '2026-11-27'],
  ['Submit report by friday', 'Submit report', '2026-11-27'],
  ['Dentist next friday', 'Dentist', '2026-12-04'],
  ['Plan trip next week', 'Plan trip', '2026-11-30'],
  ['Renew passport in 2 days', 'Renew passport', '2026-11-25'],
  ['Renew passport in 3 weeks', 'Renew passport', '2026-12-14'],
  ['Water plants this weekend', 'Water plants', '2026-11-28'],
  // Times.
  ['call mom next friday 3pm', 'call mom', '2026-12-04T15:00'],
  ['Standup tomorrow at 9am', 'Standup', '2026-11-24T09:00'],
  ['Standup tomorrow 9:30', 'Standup', '2026-11-24T09:30'],
  ['Lunch with Sam at noon', 'Lunch with Sam', '2026-11-23T12:00'],
  ['Gym at 18:00', 'Gym', '2026-11-23T18:00'],
  ['Take pills at 8am', 'Take pills', '2026-11-24T08:00'],
  // Calendar dates, either order, ISO; past ones move forward to the coming one.
  ['Party dec 5', 'Party', '2026-12-05'],
  ['Party 5 dec', 'Party', '2026-12-05'],
  ['Party December 24', 'Party', '2026-12-24'],
  ['Party 24th december', 'Party', '2026-12-24'],
  ['File taxes 2027-04-15', 'File taxes', '2027-04-15'],
  ['Anniversary march 3', 'Anniversary', '2027-03-03'],
  ['Old thing 2026-01-05', 'Old thing', '2026-01-05'],
  // Projects: longest existing name, case-insensitive, multi-word; unknown ones stay.
  ['Buy milk tomorrow #Birthday Celebration p1', 'Buy milk', '2026-11-24', { priority: 1, project: 'p1' }],
  ['Buy balloons #birthday celebration', 'Buy balloons', null, { project: 'p1' }],
  ['Buy balloons #Birthday', 'Buy balloons', null, { project: 'p2' }],
  ['#work prepare slides', 'prepare slides', null, { project: 'p3' }],
  ['Tiles #Home Renovation p2', 'Tiles', null, { project: 'p4', priority: 2 }],
  ['Paint the shed #Garden', 'Paint the shed #Garden', null, { unknownProject: 'Garden' }],
  ['Email #Workshop people', 'Email #Workshop people', null, { unknownProject: 'Workshop' }],
  ['Learn C# basics', 'Learn C# basics', null],
  // Priorities as whole words only.
  ['Fix the leak p1', 'Fix the leak', null, { priority: 1 }],
  ['P3 tidy the garage', 'tidy the garage', null, { priority: 3 }],
  ['Fix the leak p4', 'Fix the leak', null, { priority: 4 }],
  ['Buy a p5 sensor', 'Buy a p5 sensor', null],
  ['Upgrade to mp3 player', 'Upgrade to mp3 player', null],
  // Recurrence.
  ['Water plants every day', 'Water plants', '2026-11-23', { recurrence: 'FREQ=DAILY' }],
  ['Standup every weekday at 9am', 'Standup', '2026-11-24T09:00', { recurrence: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR' }],
  ['Review every monday', 'Review', '2026-11-23', { recurrence: 'FREQ=WEEKLY;BYDAY=MO' }],
  ['Gym every mon and thu', 'Gym', '2026-11-23', { recurrence: 'FREQ=WEEKLY;BYDAY=MO,TH' }],
  ['Bins every tuesday', 'Bins', '2026-11-24', { recurrence: 'FREQ=WEEKLY;BYDAY=TU' }],
  ['Sprint review every 2 weeks', 'Sprint review', '2026-11-23', { recurrence: 'FREQ=WEEKLY;INTERVAL=2' }],
  ['One-on-one every other week', 'One-on-one', '2026-11-23', { recurrence: 'FREQ=WEEKLY;INTERVAL=2' }],
  ['Pay rent every month', 'Pay rent', '2026-11-23', { recurrence: 'FREQ=MONTHLY' }],
  ['Pay rent every month on the 1st', 'Pay rent', '2026-12-01', { recurrence: 'FREQ=MONTHLY;BYMONTHDAY=1' }],
  ['Invoice every 3 months on the 23rd p2', 'Invoice', '2026-11-23', { recurrence: 'FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=23', priority: 2 }],
  ['Meter reading every month on day 5', 'Meter reading', '2026-12-05', { recurrence: 'FREQ=MONTHLY;BYMONTHDAY=5' }],
  // A day no month has stays text; a day of the month is no part of a weekly repeat.
  ['Report every month on the 45th', 'Report on the 45th', '2026-11-23', { recurrence: 'FREQ=MONTHLY' }],
  ['Birthday card every year', 'Birthday card', '2026-11-23', { recurrence: 'FREQ=YEARLY' }],
  ['Clean every weekend', 'Clean', '2026-11-28', { recurrence: 'FREQ=WEEKLY;BYDAY=SA,SU' }],
  ['Backup every 3 days #Work p2', 'Backup', '2026-11-23', { recurrence: 'FREQ=DAILY;INTERVAL=3', project: 'p3', priority: 2 }],
  // Text that only looks like a date stays text.
  ['Migrate from python 3.10 to 3.11', 'Migrate from python 3.10 to 3.11', null],
  ['Buy 2 apples', 'Buy 2 apples', null],
  ['Read chapter 7', 'Read chapter 7', null],
  ['Meeting at 5', 'Meeting at 5', null],
  ['Report due 3/4', 'Report due 3/4', null],
  ['March of the penguins', 'March of the penguins', null],
  ['May I borrow the car', 'May I borrow the car', null],
  ['Buy sun cream', 'Buy sun cream', null],
  ['sat exam prep', 'sat exam prep', null],
  ['Read 1984', 'Read 1984', null],
  ['Call 911 drill', 'Call 911 drill', null],
  ['Run 5k in under 30 min', 'Run 5k in under 30 min', null],
  ['Boil eggs 10 mins', 'Boil eggs 10 mins', null],
  ['Do it now', 'Do it now', null],
  ['Every time counts', 'Every time counts', null],
  ['Version 2.0 release notes', 'Version 2.0 release notes', null],
  // Nothing but a date is no task: the words are kept and nothing is taken out.
  ['tomorrow', 'tomorrow', null],
  ['#Work', '#Work', null],
];

describe('quick add: real phrasing', () => {
  it.each(TABLE)('%j', (text, content, due, extra = {}) => {
    const r = parse(text);
    expect(r.content).toBe(content);
    expect(r.due).toBe(due);
    expect(r.priority).toBe(extra.priority ?? null);
    expect(r.project?.id ?? null).toBe(extra.project ?? null);
    expect(r.recurrence).toBe(extra.recurrence ?? null);
    expect(r.unknownProject).toBe(extra.unknownProject ?? null);
  });

  it('reports each recognised part with its offsets in the text, in order', () => {
    const text = 'Buy milk tomorrow #Birthday Celebration p1';
    expect(parse(text).parts).toEqual([
      { kind: 'date', start: 9, end: 17, text: 'tomorrow' },
      { kind: 'project', start: 18, end: 39, text: '#Birthday Celebration' },
      { kind: 'priority', start: 40, end: 42, text: 'p1' },
    ]);
    const every = parse('Standup every weekday at 9am');
    expect(every.parts.map((p) => [p.kind, p.text])).toEqual([
      ['recurrence', 'every weekday'],
      ['date', 'at 9am'],
    ]);
  });

  it('reads a date around a part inside it as two date pieces', () => {
    const r = parse('call tomorrow p1 9am');
    expect(r).toMatchObject({ content: 'call', due: '2026-11-24T09:00', priority: 1 });
    expect(r.parts.map((p) => p.kind)).toEqual(['date', 'priority', 'date']);
  });
});

describe('parseDue', () => {
  it.each([
    ['tomorrow', '2026-11-24'],
    ['next friday', '2026-12-04'],
    ['next friday 3pm', '2026-12-04T15:00'],
    ['friday', '2026-11-27'],
    ['dec 24', '2026-12-24'],
    ['24 dec', '2026-12-24'],
    ['2026-12-24', '2026-12-24'],
    ['2026-12-24T15:30', '2026-12-24T15:30'],
    ['2026-12-24 15:30', '2026-12-24T15:30'],
    ['in 3 days', '2026-11-26'],
    ['on monday', '2026-11-23'],
  ])('%s → %s', (text, due) => {
    expect(parseDue(text, now)).toBe(due);
  });

  it.each(['', 'whenever', 'friday lunch with Anna', '2026-02-30', '2026-12-24T25:00', '3.10', 'p1', 'x'.repeat(500)])('%j is not a date', (text) => {
    expect(parseDue(text, now)).toBeNull();
  });
});

describe('recurrence', () => {
  it('rolls to the next occurrence after a day, keeping the time', () => {
    expect(nextOccurrence('FREQ=WEEKLY;BYDAY=MO', '2026-11-23', '2026-11-23')).toBe('2026-11-30');
    expect(nextOccurrence('FREQ=DAILY', '2026-11-20T09:00', '2026-11-23')).toBe('2026-11-24T09:00');
    expect(nextOccurrence('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', '2026-11-27', '2026-11-27')).toBe('2026-11-30');
    expect(nextOccurrence('FREQ=MONTHLY', '2026-01-15', '2026-01-15')).toBe('2026-02-15');
    expect(nextOccurrence('FREQ=YEARLY', '2026-03-15', '2026-12-01')).toBe('2027-03-15');
  });

  it('refuses rules it does not store, and answers null when a rule has no more occurrences', () => {
    for (const bad of ['', 'FREQ=SECONDLY', 'FREQ=BOGUS', 'every day', 'FREQ=DAILY;INTERVAL=0', `FREQ=DAILY;${'X=1;'.repeat(100)}`]) expect(validRecurrence(bad)).toBe(false);
    expect(nextOccurrence('FREQ=DAILY;COUNT=2', '2026-01-01', '2026-01-05')).toBeNull();
  });
});

describe('quick add: invariants over any text', () => {
  const names = fc.array(fc.record({ id: fc.string({ minLength: 1, maxLength: 4 }), name: fc.string({ maxLength: 20 }) }), { maxLength: 5 });
  const piece = fc.oneof(
    fc.string({ maxLength: 12 }),
    fc.constantFrom('tomorrow', 'every', 'day', 'monday', 'p1', 'p4', '#', '#Work', 'at', '9am', '3pm', 'dec', '5', 'next', 'friday', ' ', '  ', 'in', '2', 'weeks', 'other', ',', 'and'),
  );
  const line = fc.array(piece, { maxLength: 16 }).map((p) => p.join(' '));

  it('never throws, never grows the content, and its parts are non-overlapping spans of the text', () => {
    fc.assert(
      fc.property(line, names, fc.date({ min: new Date(1990, 0, 1), max: new Date(2090, 0, 1), noInvalidDate: true }), (text, ps, at) => {
        const r = parseQuickAdd(text, { projects: ps, now: at });
        expect(r.content.length).toBeLessThanOrEqual(text.length);
        let last = 0;
        for (const p of r.parts) {
          expect(p.start).toBeGreaterThanOrEqual(last);
          expect(p.end).toBeGreaterThan(p.start);
          expect(text.slice(p.start, p.end)).toBe(p.text);
          last = p.end;
        }
        if (r.due !== null) expect(r.due).toMatch(/^\d{4}-\d\d-\d\d(T\d\d:\d\d)?$/);
        if (r.recurrence !== null) expect(validRecurrence(r.recurrence)).toBe(true);
        if (r.project) expect(ps.some((p) => p.id === r.project!.id)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });

  it('keeps every word that is no recognised part', () => {
    fc.assert(
      fc.property(line, (text) => {
        const r = parseQuickAdd(text, { projects, now });
        let rest = text;
        for (const p of [...r.parts].reverse()) rest = rest.slice(0, p.start) + ' ' + rest.slice(p.end);
        expect(r.content).toBe(r.parts.length ? rest.replace(/\s+/g, ' ').trim() : text.trim().replace(/\s+/g, ' '));
      }),
      { numRuns: 300 },
    );
  });

  it('bounds huge and hostile input: long text is kept as it is, and nothing takes long', () => {
    const hostile = [
      'x'.repeat(QUICK_ADD_MAX_CHARS + 1),
      'every '.repeat(5000),
      '#'.repeat(QUICK_ADD_MAX_CHARS),
      `${'1 '.repeat(490)}tomorrow`,
      `${'dec 5 '.repeat(160)}`,
      '\u0000\u001b[2J\u202e tomorrow p1',
      `${'#Birthday '.repeat(95)}`,
    ];
    const many = Array.from({ length: 2000 }, (_, i) => ({ id: `p${i}`, name: `Project ${i} ${'y'.repeat(i % 50)}` }));
    for (const text of hostile) {
      const cpu0 = process.cpuUsage();
      const r = parseQuickAdd(text, { projects: many, now });
      // Generous, and CPU time so a loaded machine does not count: a pathological regex would take seconds or minutes.
      const cpu = process.cpuUsage(cpu0);
      expect((cpu.user + cpu.system) / 1000).toBeLessThan(2000);
      expect(r.content.length).toBeLessThanOrEqual(text.length);
    }
    expect(parseQuickAdd('x'.repeat(QUICK_ADD_MAX_CHARS + 1) + ' tomorrow', { projects, now })).toMatchObject({ due: null, parts: [] });
  });
});
