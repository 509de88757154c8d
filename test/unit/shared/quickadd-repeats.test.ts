// Quick add reads the recurring phrases of Todoist's help page on recurring dates, and never leaves a
// fragment behind: an "every …" it cannot read stays whole (and `unread` says so for the preview).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseQuickAdd, readRepeat } from '../../../src-shared/quickadd';
import { nextOccurrence, recurrenceWords, validRecurrence } from '../../../src-shared/repeat-rules';

// Monday 23 November 2026, 10:00 local time (fixed: nothing here depends on the day the tests run).
const now = new Date(2026, 10, 23, 10, 0);
const projects = [
  { id: 'p3', name: 'Work' },
  { id: 'p9', name: 'Family' },
];
const parse = (text: string) => parseQuickAdd(text, { projects, now });

type Row = [text: string, content: string, due: string | null, recurrence: string | null, unread?: string];

const TABLE: Row[] = [
  // The two examples.
  ['Submit expense report every 2nd of the month', 'Submit expense report', '2026-12-02', 'FREQ=MONTHLY;BYMONTHDAY=2'],
  ['Read 20 pages every evening', 'Read 20 pages', '2026-11-23T19:00', 'FREQ=DAILY'],
  // Todoist's basic table.
  ['Stretch every morning', 'Stretch', '2026-11-24T09:00', 'FREQ=DAILY'],
  ['Lunch walk every afternoon', 'Lunch walk', '2026-11-23T12:00', 'FREQ=DAILY'],
  ['Journal every night', 'Journal', '2026-11-23T22:00', 'FREQ=DAILY'],
  ['Read every evening at 9pm', 'Read', '2026-11-23T21:00', 'FREQ=DAILY'],
  ['Standup daily', 'Standup', '2026-11-23', 'FREQ=DAILY'],
  ['Review budget monthly', 'Review budget', '2026-11-23', 'FREQ=MONTHLY'],
  ['Meet every 3rd friday', 'Meet', '2026-12-18', 'FREQ=MONTHLY;BYDAY=3FR'],
  ['Board call every last monday of the month', 'Board call', '2026-11-30', 'FREQ=MONTHLY;BYDAY=-1MO'],
  ['Pay every 27th', 'Pay', '2026-11-27', 'FREQ=MONTHLY;BYMONTHDAY=27'],
  ['Rent every 1st of each month', 'Rent', '2026-12-01', 'FREQ=MONTHLY;BYMONTHDAY=1'],
  ['Call mom every jan 27th', 'Call mom', '2027-01-27', 'FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=27'],
  ['Anniversary every 3 march', 'Anniversary', '2027-03-03', 'FREQ=YEARLY;BYMONTH=3;BYMONTHDAY=3'],
  ['Bins every last day', 'Bins', '2026-11-30', 'FREQ=MONTHLY;BYMONTHDAY=-1'],
  ['Payroll every last workday', 'Payroll', '2026-11-30', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1'],
  ['Invoices every first workday', 'Invoices', '2026-12-01', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=1'],
  // Every other …
  ['Run every other day', 'Run', '2026-11-23', 'FREQ=DAILY;INTERVAL=2'],
  ['Call grandma every other friday', 'Call grandma', '2026-11-27', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=FR'],
  ['Haircut every other month', 'Haircut', '2026-11-23', 'FREQ=MONTHLY;INTERVAL=2'],
  ['Water cactus every 3rd week', 'Water cactus', '2026-11-23', 'FREQ=WEEKLY;INTERVAL=3'],
  ['Gym every 2 weeks on mon and thu at 7pm', 'Gym', '2026-11-23T19:00', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH'],
  // Start and end.
  ['Yoga every day starting dec 3', 'Yoga', '2026-12-03', 'FREQ=DAILY'],
  ['Yoga every day from dec 3', 'Yoga', '2026-12-03', 'FREQ=DAILY'],
  ['Yoga every monday starting dec 3', 'Yoga', '2026-12-07', 'FREQ=WEEKLY;BYDAY=MO'],
  ['Physio every day ending jan 5', 'Physio', '2026-11-23', 'FREQ=DAILY;UNTIL=20270105'],
  ['Physio every day until jan 5', 'Physio', '2026-11-23', 'FREQ=DAILY;UNTIL=20270105'],
  ['Run every day at 9am starting dec 1 ending dec 20 #Family', 'Run', '2026-12-01T09:00', 'FREQ=DAILY;UNTIL=20261220'],
  // An end before today is no end: it stays whole, and no date is read from it.
  ['Report every day ending jan 5 2020', 'Report ending jan 5 2020', '2026-11-23', 'FREQ=DAILY'],
  // Phrases it does not read stay whole, and no date is taken out of them.
  ['Take pills every 12 hours', 'Take pills every 12 hours', null, null, 'every 12 hours'],
  ['Take pills every 12 hours tomorrow', 'Take pills every 12 hours tomorrow', null, null, 'every 12 hours'],
  ['Clean filter every fortnight', 'Clean filter every fortnight', null, null, 'every fortnight'],
  ['Backup every quarter tomorrow p1', 'Backup every quarter tomorrow', null, null, 'every quarter'],
  ['Every time counts', 'Every time counts', null, null],
  ['Think of tomorrow', 'Think of tomorrow', null, null],
  // "monthly" inside a name is a word, not a repeat (only the last word of the line is read).
  ['Create monthly report', 'Create monthly report', null, null],
];

describe("quick add: Todoist's recurring phrases", () => {
  it.each(TABLE)('%j', (text, content, due, recurrence, unread) => {
    const r = parse(text);
    expect(r.content).toBe(content);
    expect(r.due).toBe(due);
    expect(r.recurrence).toBe(recurrence);
    expect(r.unread).toBe(unread ?? null);
  });

  it('keeps the project, priority and labels beside a long repeat phrase', () => {
    expect(parse('Submit expense report every 2nd of the month #Work p2')).toMatchObject({
      content: 'Submit expense report',
      project: { id: 'p3' },
      priority: 2,
      recurrence: 'FREQ=MONTHLY;BYMONTHDAY=2',
    });
  });

  it('walks the new rules to the right next dates', () => {
    expect(nextOccurrence('FREQ=MONTHLY;BYMONTHDAY=-1', '2026-11-30', '2026-11-30')).toBe('2026-12-31');
    expect(nextOccurrence('FREQ=MONTHLY;BYMONTHDAY=-1', '2027-01-31', '2027-01-31')).toBe('2027-02-28');
    expect(nextOccurrence('FREQ=MONTHLY;BYDAY=3FR', '2026-12-18', '2026-12-18')).toBe('2027-01-15');
    expect(nextOccurrence('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', '2026-11-30', '2026-11-30')).toBe('2026-12-31');
    expect(nextOccurrence('FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=27', '2027-01-27', '2027-01-27')).toBe('2028-01-27');
    expect(nextOccurrence('FREQ=DAILY;UNTIL=20261125', '2026-11-24', '2026-11-24')).toBe('2026-11-25');
    expect(nextOccurrence('FREQ=DAILY;UNTIL=20261125', '2026-11-25', '2026-11-25')).toBeNull();
  });

  it('says the new rules in words', () => {
    expect(recurrenceWords('FREQ=MONTHLY;BYMONTHDAY=2')).toBe('every month on the 2nd');
    expect(recurrenceWords('FREQ=MONTHLY;BYMONTHDAY=-1')).toBe('every last day of the month');
    expect(recurrenceWords('FREQ=MONTHLY;BYDAY=3FR')).toBe('every 3rd Friday of the month');
    expect(recurrenceWords('FREQ=MONTHLY;BYDAY=-1MO')).toBe('every last Monday of the month');
    expect(recurrenceWords('FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1')).toBe('every last workday of the month');
    expect(recurrenceWords('FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=27')).toBe('every January 27');
    expect(recurrenceWords('FREQ=DAILY;UNTIL=20270105')).toBe('every day until Jan 5, 2027');
  });

  it('lets the task editor take the same phrases on their own', () => {
    expect(readRepeat('every 3rd friday')).toEqual({ ok: true, rule: 'FREQ=MONTHLY;BYDAY=3FR' });
    expect(readRepeat('2nd of the month')).toEqual({ ok: true, rule: 'FREQ=MONTHLY;BYMONTHDAY=2' });
    expect(readRepeat('every 12 hours').ok).toBe(false);
  });

  it('refuses days no month has rather than storing a rule that never happens', () => {
    const r = parse('Party every feb 30');
    expect(r.recurrence).toBeNull();
    expect(r.content).toBe('Party every feb 30');
    expect(parse('Pay every 32nd').recurrence).toBeNull();
  });
});

describe('quick add: never a dangling fragment', () => {
  const piece = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.constantFrom(
      'every', 'of', 'the', 'month', 'evening', 'morning', 'night', '2nd', '3rd', '27th', 'last', 'day', 'workday', 'other', 'friday',
      'monday', 'week', 'starting', 'ending', 'from', 'until', 'dec', '3', '12', 'hours', 'fortnight', 'tomorrow', 'at', '9am', 'jan',
      'daily', 'monthly', '#Work', 'p1', 'on', 'each', 'and',
    ),
  );
  const line = fc.array(piece, { minLength: 1, maxLength: 14 }).map((p) => p.join(' '));
  const words = (s: string): string[] => s.split(/\s+/).filter(Boolean);

  it('loses no word: the content plus the recognised parts are the words of the text', () => {
    fc.assert(
      fc.property(line, (text) => {
        const r = parse(text);
        const got = [...words(r.content), ...r.parts.flatMap((p) => words(p.text))].sort();
        // A part may cut a word only where the text had no space (e.g. "9am" read inside "9am#x"); compare characters then.
        expect(got.join('')).toHaveLength(words(text).join('').length);
        if (r.parts.length === 0) expect(r.content).toBe(text.trim().replace(/\s+/g, ' '));
        if (r.recurrence !== null) expect(validRecurrence(r.recurrence)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('never leaves "every" or "of" just before a date or repeat it took out', () => {
    fc.assert(
      fc.property(line, (text) => {
        const r = parse(text);
        for (const p of r.parts) {
          if (p.kind !== 'date' && p.kind !== 'recurrence') continue;
          const head = text.slice(0, p.start).trimEnd();
          // The word before belongs to another part ("every day" then "at 9am"): nothing dangles.
          if (r.parts.some((q) => q.end === head.length)) continue;
          expect(['every', 'of']).not.toContain(/(\S+)$/.exec(head)?.[1]?.toLowerCase());
        }
        // Nor does the content end in an "every"/"of" whose date or repeat was taken from after it.
        const last = words(r.content).at(-1)?.toLowerCase();
        if (last === 'every' || last === 'of') {
          const at = [...text.matchAll(/\S+/g)].filter((w) => w[0].toLowerCase() === last && !r.parts.some((p) => w.index >= p.start && w.index < p.end)).at(-1)!.index;
          expect(r.parts.filter((p) => (p.kind === 'date' || p.kind === 'recurrence') && p.start > at)).toEqual([]);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('bounds hostile repeat text: many "every"s, long ordinals, deep "starting" chains', () => {
    for (const text of ['every '.repeat(160), `x ${'every 2nd of the month '.repeat(40)}`.slice(0, 1000), `x every day${' starting dec 3 ending dec 9'.repeat(30)}`.slice(0, 1000), 'every 99999999999th', `every ${'mon, '.repeat(190)}`]) {
      const r = parse(text);
      expect(r.content.length).toBeLessThanOrEqual(text.length);
      if (r.recurrence) expect(validRecurrence(r.recurrence)).toBe(true);
    }
  });
});
