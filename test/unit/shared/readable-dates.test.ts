// Tidy's own machine dates in the user's locale (src-shared/readable-dates.ts), shared by the window and the
// CLI's human output. A fixed `now` and far-away dates keep it true on any day.
import { afterEach, describe, expect, it } from 'vitest';
import { dueDateText, localeFromEnv, readableDates, setDisplayLocale } from '../../../src-shared/readable-dates';

const NOW = new Date(2035, 5, 12, 10, 30); // Tuesday 12 June 2035, 10:30 local time

afterEach(() => setDisplayLocale(undefined));

describe('readable dates', () => {
  it('shows a stored due as a date, never as ISO', () => {
    setDisplayLocale('en-US');
    expect(dueDateText('2035-12-01T10:00', NOW)).toBe('Sat, Dec 1, 10:00 AM');
    expect(dueDateText('2036-01-05', NOW)).toBe('Sat, Jan 5, 2036');
    setDisplayLocale('en-GB');
    expect(dueDateText('2035-12-01T16:00', NOW)).toBe('Sat 1 Dec, 16:00');
    // Not a due: as it was.
    for (const odd of ['', 'tomorrow', '2035-02-30', '2035-13-01T10:00']) expect(dueDateText(odd, NOW)).toBe(odd);
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
  it('takes a locale per call, leaving the display locale alone', () => {
    setDisplayLocale('en-GB');
    expect(readableDates('every weekday at 08:00', NOW, 'en-US')).toBe('every weekday at 8:00 AM');
    expect(readableDates('every weekday at 08:00', NOW)).toBe('every weekday at 08:00');
    expect(dueDateText('2035-12-01T16:00', NOW, 'en-US')).toBe('Sat, Dec 1, 4:00 PM');
  });

  it("reads the terminal's locale from LC_ALL, then LC_TIME, then LANG; C, POSIX and junk leave Intl's default", () => {
    expect(localeFromEnv({ LANG: 'en_GB.UTF-8' })).toBe('en-GB');
    expect(localeFromEnv({ LC_ALL: 'en_US.UTF-8', LC_TIME: 'de_DE.UTF-8', LANG: 'en_GB.UTF-8' })).toBe('en-US');
    expect(localeFromEnv({ LC_TIME: 'de_DE@euro', LANG: 'en_GB.UTF-8' })).toBe('de-DE');
    expect(localeFromEnv({ LC_ALL: '', LANG: 'fr' })).toBe('fr');
    for (const odd of ['C', 'C.UTF-8', 'POSIX', 'en_GB;rm -rf /', '../../etc', 'x'.repeat(100_000), 'en_GB.' + 'U'.repeat(200)])
      expect(localeFromEnv({ LC_ALL: odd, LANG: 'en_GB.UTF-8' })).toBeUndefined();
    expect(localeFromEnv({})).toBeUndefined();
  });

  it("rewrites a printed plan's day, block times and reasons, never the task's own title", () => {
    expect(readableDates('Mon 2035-01-08', NOW, 'en-US')).toBe('Mon, Jan 8');
    // The reason's deadline and time are machine forms (core/plan/schedule.ts), read in the locale.
    expect(readableDates('  09:00–10:30  Call at 10:00 (t1) — p1, deadline 2035-01-10; first free 8 h after 09:00', NOW, 'en-US')).toBe(
      '  9:00 AM–10:30 AM  Call at 10:00 (t1) — p1, deadline Wed, Jan 10; first free 8 h after 9:00 AM',
    );
    expect(readableDates('  09:00–10:30  Call at 10:00 (t1) — p1', NOW, 'en-GB')).toBe('  09:00–10:30  Call at 10:00 (t1) — p1');
    // A title that looks like a plan line itself, pinned and kept flags, a synced id, and a task that did not fit.
    expect(readableDates('  14:00–15:00  Sat 2035-01-13 — at 10:00 (t9) — x (t7.k2) [pinned] [kept] — pinned: kept where you put it', NOW, 'en-US')).toBe(
      '  2:00 PM–3:00 PM  Sat 2035-01-13 — at 10:00 (t9) — x (t7.k2) [pinned] [kept] — pinned: kept where you put it',
    );
    expect(readableDates('  Ring at 10:00 on 2035-01-09 (t2) — needs 3 h, nothing free before its deadline 2035-01-09', NOW, 'en-GB')).toBe(
      '  Ring at 10:00 on 2035-01-09 (t2) — needs 3 h, nothing free before its deadline Tue 9 Jan',
    );
    for (const keep of ['Not placed:', '  Sat 2035-01-08 (t2) — no free time', '2 h 30 of tasks, 8 h free']) expect(readableDates(keep, NOW, 'en-US')).toBe(keep);
    // Hostile: a huge title full of times and unclosed brackets, and a line of nothing but separators; one pass each.
    const title = 'at 10:00 ('.repeat(50_000);
    expect(readableDates(`  09:00–10:00  ${title} (t1) — after 09:00`, NOW, 'en-US')).toBe(`  9:00 AM–10:00 AM  ${title} (t1) — after 9:00 AM`);
    expect(readableDates(`  ${' (t1) — '.repeat(100_000)}x`, NOW, 'en-US')).toHaveLength(800_003);
    // The summary quotes the titles that do not fit.
    expect(readableDates('3 h does not fit: move "Call at 10:00", "2035-01-09 review" to a later day', NOW, 'en-US')).toBe('3 h does not fit: move "Call at 10:00", "2035-01-09 review" to a later day');
  });

  it("keeps what a message quotes of the user's as written, in the window as in the CLI (an action's summary in Actions)", () => {
    setDisplayLocale('en-US');
    expect(readableDates("Added 'Call at 10:00 on 2035-06-19' to Inbox", NOW)).toBe("Added 'Call at 10:00 on 2035-06-19' to Inbox");
    expect(readableDates("Updated 'Standup at 10:00': due 2035-06-19T16:00", NOW)).toBe("Updated 'Standup at 10:00': due Tue, Jun 19, 4:00 PM");
    expect(readableDates("Snoozed 'Pay 2035-06-20 bill' to 2035-06-19T09:00", NOW)).toBe("Snoozed 'Pay 2035-06-20 bill' to Tue, Jun 19, 9:00 AM");
    // One line's quote never reaches into the next.
    expect(readableDates("Moved 'a\nat 10:00 '", NOW)).toBe("Moved 'a\nat 10:00 AM '");
  });
});

describe("the CLI's human lines", () => {
  it("words the dates of Tidy's messages but never what they quote of the user's", async () => {
    const { shownDates } = await import('../../../src-main/cli/readable');
    expect(shownDates("Book 'Call at 10:00' on Sat 2035-06-16 14:00–14:30?", NOW, 'en-US')).toBe("Book 'Call at 10:00' on Sat, Jun 16, 2:00 PM–2:30 PM?");
    expect(shownDates("Added “Bob's call at 10:00 2035-06-19”; next due 2035-06-19T16:00", NOW, 'en-GB')).toBe("Added “Bob's call at 10:00 2035-06-19”; next due Tue 19 Jun, 16:00");
    expect(shownDates("Moved Tidy's 'Bob's call at 10:00' to 2035-06-19", NOW, 'en-US')).toBe("Moved Tidy's 'Bob's call at 10:00' to Tue, Jun 19");
    // Hostile: quotes that never close, private-use characters, a huge message — one pass, nothing lost.
    const open = " 'x at 08:00".repeat(20_000);
    expect(shownDates(open, NOW, 'en-US')).toBe(" 'x at 8:00 AM".repeat(20_000));
    expect(shownDates('\uE0000\uE001 at 08:00 “a”', NOW, 'en-GB')).toBe('\uE0000\uE001 at 08:00 “a”');
  });

  it('shows a stored moment (a log entry, an approval) as local time in the locale, junk as it was', async () => {
    const { shownMoment } = await import('../../../src-main/cli/readable');
    const at = new Date(2035, 5, 19, 16, 5, 30).toISOString();
    expect(shownMoment(at, NOW, 'en-GB')).toBe('Tue 19 Jun, 16:05');
    expect(shownMoment(at, NOW, 'en-US')).toBe('Tue, Jun 19, 4:05 PM');
    for (const odd of ['', 'yesterday', 'x'.repeat(10_000)]) expect(shownMoment(odd, NOW, 'en-US')).toBe(odd);
  });

  it("prints an approval's question in the trace with the terminal's dates, never ISO", async () => {
    const { createPrinter } = await import('../../../src-main/cli/commands/agent');
    let out = '';
    createPrinter((t) => (out += t))({ type: 'approval_requested', approvalId: 'w1', callId: 'c1', tool: 'create_event', args: {}, message: 'Book “Dentist” on Sat 2035-06-16 14:00–14:30?' } as never);
    expect(out.startsWith('  ? Book “Dentist” on ')).toBe(true);
    expect(out).not.toContain('2035-06-16');
  });
});
