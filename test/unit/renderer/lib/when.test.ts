// Dates and times on screen follow the user's locale (src-renderer/lib/when.ts): one clock everywhere,
// no ISO 8601 in the window. A fixed `now` and far-away dates keep it true on any day.
import { afterEach, describe, expect, it } from 'vitest';
import { clock, clockOf, dueFieldText, setDisplayLocale, shortTime } from '../../../../src-renderer/lib/when';
import { dueLabel } from '../../../../src-renderer/lib/due';
import { parseDue } from '../../../../src-shared/date-words';

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
});
