// Dates and times on screen follow the user's locale (src-renderer/lib/when.ts): one clock everywhere,
// no ISO 8601 in the window. A fixed `now` and far-away dates keep it true on any day.
import { afterEach, describe, expect, it } from 'vitest';
import { clock, clockOf, dueDateText, dueFieldText, readableDates, setDisplayLocale, shortTime } from '../../../../src-renderer/lib/when';
import { dueLabel } from '../../../../src-renderer/lib/due';
import { parseDue } from '../../../../src-shared/quickadd';

const NOW = new Date(2035, 5, 12, 10, 30); // Tuesday 12 June 2035, 10:30 local time

afterEach(() => setDisplayLocale(undefined));

describe('dates and times in the user locale', () => {
  it('tells the time as the locale does, the same in every place', () => {
    setDisplayLocale('en-US');
    expect(clock(new Date(2035, 5, 12, 15, 5))).toBe('3:05 PM');
    expect(clockOf('09:00')).toBe('9:00 AM');
    expect(dueLabel('2035-06-12T15:00', NOW)?.text).toBe('today 3:00 PM');
    expect(shortTime(new Date(2035, 5, 12, 15, 0).toISOString(), NOW.getTime())).toBe('3:00 PM');
    setDisplayLocale('en-GB');
    expect(clockOf('15:05')).toBe('15:05');
    expect(dueLabel('2035-06-12T15:00', NOW)?.text).toBe('today 15:00');
    expect(shortTime(new Date(2035, 5, 12, 15, 0).toISOString(), NOW.getTime())).toBe('15:00');
    setDisplayLocale('de-DE');
    expect(clockOf('15:05')).toBe('15:05');
    expect(dueLabel('2035-06-20', NOW)?.text).toBe('20. Juni');
  });

  it('writes plain spaces whatever the ICU version puts before AM/PM', () => {
    setDisplayLocale('en-US');
    expect(clock(new Date(2035, 5, 12, 15, 5))).not.toMatch(/[\u202f\u00a0]/);
    expect(dueFieldText('2035-12-01T16:00')).not.toMatch(/[\u202f\u00a0]/);
  });

  it('shows a stored due as a date, never as ISO', () => {
    setDisplayLocale('en-US');
    expect(dueDateText('2035-12-01T10:00', NOW)).toBe('Sat, Dec 1, 10:00 AM');
    expect(dueDateText('2036-01-05', NOW)).toBe('Sat, Jan 5, 2036');
    setDisplayLocale('en-GB');
    expect(dueDateText('2035-12-01T16:00', NOW)).toBe('Sat 1 Dec, 16:00');
    // Not a due: as it was.
    for (const odd of ['', 'tomorrow', '2035-02-30', '2035-13-01T10:00']) expect(dueDateText(odd, NOW)).toBe(odd);
  });

  it("starts the editor's Due field with words that read back as the same due", () => {
    for (const lang of ['en-US', 'en-GB', 'de-DE']) {
      setDisplayLocale(lang);
      for (const due of ['2035-12-01T10:00', '2035-12-01T16:45', '2035-12-01T00:05', '2036-02-29', '2035-06-12T12:00']) {
        const text = dueFieldText(due);
        expect(text).not.toMatch(/\d{4}-\d{2}/);
        expect(parseDue(text, NOW)).toBe(due);
      }
    }
    setDisplayLocale('en-US');
    expect(dueFieldText('2035-12-01T16:00')).toBe('Dec 1, 2035 4:00 PM');
    setDisplayLocale('en-GB');
    expect(dueFieldText('2035-12-01T16:00')).toBe('Dec 1, 2035 16:00');
  });

  it("words the ISO dates of Tidy's own messages (an action's summary) and leaves the rest", () => {
    setDisplayLocale('en-US');
    expect(readableDates('Completed “Water plants”; next due 2035-06-19T16:00', NOW)).toBe('Completed “Water plants”; next due Tue, Jun 19, 4:00 PM');
    expect(readableDates('Set the due of “Tax” to 2036-01-05', NOW)).toBe('Set the due of “Tax” to Sat, Jan 5, 2036');
    // Timestamps with seconds or zones, version-like text and nonsense dates stay as they are.
    for (const keep of ['at 2035-06-19T16:00:00Z', 'v2035-06-19x', 'due 2035-02-30', 'id 12035-06-19']) expect(readableDates(keep, NOW)).toBe(keep);
    // A hostile, huge summary is handled in one pass.
    const huge = '2035-06-19 '.repeat(20_000);
    expect(readableDates(huge, NOW).startsWith('Tue, Jun 19 Tue, Jun 19')).toBe(true);
  });

  it("words a booking's question, a plan's lines and a routine's schedule, as the locale tells the time", () => {
    setDisplayLocale('en-US');
    expect(readableDates('Book “Dentist” on Sat 2035-06-16 14:00–14:30?', NOW)).toBe('Book “Dentist” on Sat, Jun 16, 2:00 PM–2:30 PM?');
    expect(readableDates('Plan these blocks?\nSat 2035-06-16\n  09:00–10:30  Report (t1) — due soon', NOW)).toBe('Plan these blocks?\nSat, Jun 16\n  9:00 AM–10:30 AM  Report (t1) — due soon');
    expect(readableDates('Added routine “Brief”: every weekday at 08:00', NOW)).toBe('Added routine “Brief”: every weekday at 8:00 AM');
    setDisplayLocale('en-GB');
    expect(readableDates('every weekday at 08:00', NOW)).toBe('every weekday at 08:00');
    expect(readableDates('Book “Dentist” on Sat 2035-06-16 14:00–14:30?', NOW)).toBe('Book “Dentist” on Sat 16 Jun, 14:00–14:30?');
    // Times that are not Tidy's (a version, a ratio, seconds) stay as written.
    for (const keep of ['v 08:00:00', 'score 10:30', 'at 8:00']) expect(readableDates(keep, NOW)).toBe(keep);
  });
});
