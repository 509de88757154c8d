// End to end: the Calendar view in Chromium through `tidy serve`, with the fake model server. A
// colleague's .ics imported by the file picker and another by drag and drop, the week shown with its
// events (by role and accessible name), free time, keyboard navigation, event details, a bad file's
// one-line refusal, removing a calendar, and seed 004's editable confirmation: the approval card shows
// book_event as a form, the title and time are edited, the event is booked with them and the answered card and
// the trace show them; a concurrent move on another device shows in the event's sync history, and Restore moves it
// back. A calendar all in the past is found by Go to date / Previous event / Next event, and renamed.
// Screenshots: light, dark, an 800 px window, and a busy week.
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/core';
import type { FakeOpenAI } from '../fakes/openai-server';
import { tidy } from '../support/cli';
import { screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';

let stage: Stage | undefined;
let page: Page;
let fake: FakeOpenAI;
let dbPath = '';
let consoleProblems: string[] = [];

/** Local midnight of this week's Monday, and a local time on a day of this week (0 = Monday). */
const monday = (() => {
  const d = new Date();
  const back = (d.getDay() + 6) % 7;
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() - back);
})();
const onDay = (day: number, h: number, m = 0) => new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + day, h, m);
/** iCalendar UTC date-time: 20261124T100000Z. */
const icsTime = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
/** A datetime-local field's value: 2026-11-30T14:00 (local time). */
const localInput = (d: Date) => `${icsDate(d).replace(/^(\d{4})(\d{2})(\d{2})$/, '$1-$2-$3')}T${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;
const icsDate = (d: Date) => `${d.getFullYear()}${String(d.getMonth() + 1).padStart(2, '0')}${String(d.getDate()).padStart(2, '0')}`;

interface IcsEvent {
  uid: string;
  title: string;
  start: Date;
  end: Date;
  allDay?: boolean;
  rrule?: string;
}
function ics(name: string, events: IcsEvent[]): string {
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tidy tests//EN', `X-WR-CALNAME:${name}`];
  for (const e of events) {
    lines.push('BEGIN:VEVENT', `UID:${e.uid}`, `DTSTAMP:${icsTime(new Date(Date.UTC(2026, 0, 1)))}`, `SUMMARY:${e.title}`);
    if (e.allDay) lines.push(`DTSTART;VALUE=DATE:${icsDate(e.start)}`, `DTEND;VALUE=DATE:${icsDate(e.end)}`);
    else lines.push(`DTSTART:${icsTime(e.start)}`, `DTEND:${icsTime(e.end)}`);
    if (e.rrule) lines.push(`RRULE:${e.rrule}`);
    lines.push('END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

const ALICE_ICS = ics('Alice', [
  { uid: 'a1@test', title: 'Design review', start: onDay(1, 10), end: onDay(1, 11) },
  { uid: 'a2@test', title: 'Budget call', start: onDay(1, 10, 30), end: onDay(1, 11, 30) },
  { uid: 'a3@test', title: 'Team standup', start: onDay(0, 9, 30), end: onDay(0, 9, 45), rrule: 'FREQ=DAILY;COUNT=5' },
  { uid: 'a4@test', title: 'Offsite', start: onDay(3, 0), end: onDay(5, 0), allDay: true },
]);
const BOB_ICS = ics('Bob', [{ uid: 'b1@test', title: 'Dentist', start: onDay(2, 15), end: onDay(2, 16) }]);

/** Forty events over the week, many overlapping: the busy week of the screenshot. */
const BUSY_ICS = ics(
  'Team',
  Array.from({ length: 40 }, (_, i) => {
    const day = i % 5;
    const start = onDay(day, 8 + ((i * 7) % 9), (i % 4) * 15);
    return { uid: `busy${i}@test`, title: ['Planning', 'Interview', '1:1', 'Review', 'Sync', 'Lunch talk', 'Demo', 'Retro'][i % 8]!, start, end: new Date(start.getTime() + (30 + (i % 3) * 30) * 60_000) };
  }),
);

beforeAll(async () => {
  // en-GB: 24-hour times, so the names the test looks for do not depend on the machine's locale.
  stage = await startStage('calendar', { page: { viewport: { width: 1360, height: 860 }, locale: 'en-GB', timezoneId: Intl.DateTimeFormat().resolvedOptions().timeZone, timeout: 10_000 } });
  ({ fake, dbPath, page, problems: consoleProblems } = stage);
}, 120_000);

afterAll(() => stage?.close());

const shot = (name: string) => screenshot(page, name);
const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const main = () => page.getByRole('main');
const legend = () => main().getByRole('list', { name: 'Calendars' });
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const event = (name: RegExp) => main().getByRole('button', { name });
/** The calendars in the legend, by name (the free-time key aside). */
const calendarNames = async () => (await legend().getByRole('listitem').allInnerTexts()).filter((t) => !t.startsWith('Free')).map((t) => t.split('\n')[0]!.replace(/(\s*(Rename|Remove))+$/, '').trim());
const rangeText = () => main().locator('.cal-range').innerText();

/** axe-core's serious and critical WCAG 2.1 A/AA findings on the page as it is (as test/e2e/a11y.test.ts checks the other views). */
async function seriousA11yProblems(): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help} (${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')})`);
}

async function pick(name: string, text: string, mimeType = 'text/calendar'): Promise<void> {
  const chooser = page.waitForEvent('filechooser');
  await main().getByRole('button', { name: /^Import \.ics/ }).click();
  await (await chooser).setFiles({ name, mimeType, buffer: Buffer.from(text) });
}

/** Drops a file on the view as the OS would (page code as a string: the node tsconfig has no DOM types). */
async function drop(name: string, text: string): Promise<void> {
  await page.evaluate(`(() => {
    const dt = new DataTransfer();
    dt.items.add(new File([${JSON.stringify(text)}], ${JSON.stringify(name)}, { type: 'text/calendar' }));
    const target = document.querySelector('.cal-scroll');
    for (const type of ['dragenter', 'dragover', 'drop']) target.dispatchEvent(new DragEvent(type, { dataTransfer: dt, bubbles: true, cancelable: true }));
  })()`);
}

describe('the calendar in Chromium through tidy serve', () => {
  it('imports a colleague’s .ics by the file picker and shows the week: overlapping events, recurring ones, all-day, free time', async () => {
    await nav('Calendar').click();
    await visible(page.getByRole('heading', { name: 'Calendar', level: 1 }));
    // Today is marked in the header.
    await visible(main().locator('[aria-current="date"]'));

    await main().getByRole('textbox', { name: 'Whose calendar (optional)' }).fill('Alice');
    await pick('alice.ics', ALICE_ICS);
    await visible(page.getByText(/^Imported alice\.ics as /));
    await visible(legend().getByText('Alice', { exact: false }).first());

    // Every event is a button named by its title, time and calendar.
    const design = event(/^Design review, .*10:00 to 11:00, Alice$/);
    await visible(design);
    await visible(event(/^Budget call, .*10:30 to 11:30, Alice$/));
    expect(await main().getByRole('button', { name: /^Team standup, / }).count()).toBe(5);
    await visible(main().getByRole('list', { name: 'All-day events' }).getByRole('button', { name: /^Offsite, all day/ }));
    // The overlapping two sit side by side, not on top of each other.
    const a = (await design.boundingBox())!;
    const b = (await event(/^Budget call/).boundingBox())!;
    expect(a.x + a.width <= b.x + 1 || b.x + b.width <= a.x + 1).toBe(true);
    await shot('calendar-week');
    // A colleague's events are not the user's busy time: free time in working hours shows on work days still
    // ahead. Next week's, so that it holds on any day (on a Friday evening or a weekend no work day of this
    // week is ahead).
    await main().getByRole('button', { name: 'Next week' }).click();
    await expect.poll(() => main().locator('.cal-free').count()).toBeGreaterThan(0);
    await main().getByRole('button', { name: 'Today', exact: true }).click();
    await visible(design);
  }, 60_000);

  it('imports by drag and drop, shows an event’s details, and refuses a bad file in one line', async () => {
    await drop('bob.ics', BOB_ICS);
    await visible(page.getByText(/^Imported bob\.ics as /));
    const dentist = event(/^Dentist, .*15:00 to 16:00, Bob$/);
    await dentist.click();
    const details = main().getByRole('region', { name: 'Dentist' });
    await visible(details);
    expect(await details.innerText()).toMatch(/Bob/);
    await page.keyboard.press('Escape');
    await expect.poll(() => details.count()).toBe(0);

    await pick('broken.ics', 'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nDTSTART:yesterday-ish\r\n');
    const alert = main().getByRole('alert').filter({ hasText: 'Could not import broken.ics' });
    await visible(alert);
    // One line: the file, what is wrong, what to do.
    expect((await alert.locator('p').innerText()).split('\n')).toHaveLength(1);
    await alert.getByRole('button', { name: 'Dismiss' }).click();
    // The same file again changes nothing: said in words, and the log gets no empty entry.
    await pick('bob.ics', BOB_ICS);
    const again = main().getByRole('alert').filter({ hasText: "Could not import bob.ics: calendar 'Bob' already matches bob.ics (1 event, none changed)" });
    await visible(again);
    await again.getByRole('button', { name: 'Dismiss' }).click();
    await pick('notes.txt', 'just some notes', 'text/plain');
    await visible(main().getByRole('alert').filter({ hasText: 'Could not import notes.txt: it is not an iCalendar file' }));
    await main().getByRole('alert').getByRole('button', { name: 'Dismiss' }).click();
    // Nothing of the bad files was imported.
    expect(await calendarNames()).toEqual(['Personal', 'Alice', 'Bob']);
  }, 60_000);

  it('moves between weeks and days from the keyboard', async () => {
    const thisWeek = await rangeText();
    await main().getByRole('button', { name: 'Today', exact: true }).focus();
    await page.keyboard.press('ArrowRight');
    await expect.poll(rangeText).not.toBe(thisWeek);
    expect(await main().getByRole('button', { name: /^Design review/ }).count()).toBe(0);
    await page.keyboard.press('t');
    await expect.poll(rangeText).toBe(thisWeek);
    await page.keyboard.press('d');
    await expect.poll(() => main().getByRole('button', { name: 'Day', pressed: true }).count()).toBe(1);
    await page.keyboard.press('w');
    await expect.poll(rangeText).toBe(thisWeek);
  });

  it('finds the events of a calendar that is all in the past: go to date, previous and next event; renames it in the window and the CLI', async () => {
    // Far in the past (2020), so nothing of it is near today: the week shows nothing of it.
    const OLD_ICS = ics('Old team', [
      { uid: 'o1@test', title: 'Kickoff 2020', start: new Date(Date.UTC(2020, 1, 4, 10)), end: new Date(Date.UTC(2020, 1, 4, 11)) },
      { uid: 'o2@test', title: 'Retro 2020', start: new Date(Date.UTC(2020, 2, 12, 10)), end: new Date(Date.UTC(2020, 2, 12, 11)) },
    ]);
    await main().getByRole('button', { name: 'Today', exact: true }).click();
    const thisWeek = await rangeText();
    await pick('export-1234.ics', OLD_ICS);
    // Named from the file's X-WR-CALNAME, not its file name.
    await visible(page.getByText(/^Imported export-1234\.ics as Old team/));
    await expect.poll(calendarNames).toEqual(['Personal', 'Alice', 'Bob', 'Old team']);
    expect(await main().getByRole('button', { name: /, Old team$/ }).count()).toBe(0);

    // Go to a date.
    await main().getByLabel('Go to date').fill('2020-03-12');
    await visible(event(/^Retro 2020, .*, Old team$/));
    await main().getByRole('button', { name: 'Today', exact: true }).click();
    await expect.poll(rangeText).toBe(thisWeek);

    // Previous event: the last one before the shown week, in any calendar, however far back.
    await main().getByRole('button', { name: '‹ Previous event' }).click();
    await visible(event(/^Retro 2020, .*, Old team$/));
    await shot('calendar-previous-event');
    await main().getByRole('button', { name: '‹ Previous event' }).click();
    await visible(event(/^Kickoff 2020, .*, Old team$/));
    await main().getByRole('button', { name: '‹ Previous event' }).click();
    await visible(page.getByText('No earlier event in any calendar'));
    // Next event, and its key (N).
    await main().getByRole('button', { name: 'Next event ›' }).click();
    await visible(event(/^Retro 2020, .*, Old team$/));
    await main().getByRole('button', { name: 'Today', exact: true }).focus();
    await page.keyboard.press('n');
    await expect.poll(rangeText).not.toMatch(/2020/);

    // Renamed in the window: a refusal stays by the field, then the new name shows.
    await legend().getByRole('button', { name: 'Rename calendar Old team' }).click();
    const field = legend().getByRole('textbox', { name: 'New name for calendar Old team' });
    await field.fill('Alice');
    await field.press('Enter');
    await visible(legend().getByRole('alert').filter({ hasText: /already exists/ }));
    await shot('calendar-rename-refused');
    await field.fill('Team 2020');
    await field.press('Enter');
    await expect.poll(calendarNames).toEqual(['Personal', 'Alice', 'Bob', 'Team 2020']);
    // The CLI renames it too, logged and undoable; the window follows.
    const renamed = tidy(dbPath, ['cal', 'rename', 'Team 2020', 'Archive', '2020']);
    expect(renamed.stdout).toMatch(/^Renamed calendar 'Team 2020' to 'Archive 2020' \((\w+); undo with: tidy undo \1\)/);
    await expect.poll(calendarNames).toEqual(['Personal', 'Alice', 'Archive 2020', 'Bob']);
    const actionId = /undo with: tidy undo (\w+)/.exec(renamed.stdout)![1]!;
    expect(tidy(dbPath, ['undo', actionId]).code).toBe(0);
    await expect.poll(calendarNames).toEqual(['Personal', 'Alice', 'Bob', 'Team 2020']);
    await legend().getByRole('button', { name: 'Remove calendar Team 2020' }).click();
    await expect.poll(calendarNames).toEqual(['Personal', 'Alice', 'Bob']);
  }, 90_000);

  it('books the event with the title edited on the approval card', async () => {
    const start = onDay(7, 11); // Monday next week, always in the future
    const end = onDay(7, 11, 30);
    fake.enqueue(
      { toolCalls: [{ name: 'book_event', arguments: { title: 'Sync with Alice and Bob', start: start.toISOString(), end: end.toISOString(), attendees: ['Alice'] } }] },
      { text: 'Booked it.' },
    );
    await nav('Chat').click();
    await page.getByRole('textbox', { name: 'Message' }).fill('Book a 30-minute meeting with Alice and Bob next week');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');
    const card = page.getByRole('group', { name: 'Approval needed: Book event' });
    const title = card.getByRole('textbox', { name: 'Title' });
    await visible(title);
    expect(await title.inputValue()).toBe('Sync with Alice and Bob');
    expect(await card.getByRole('textbox', { name: 'Attendees' }).inputValue()).toBe('Alice');
    // Typing in the form never answers the card: Enter in a field does nothing.
    await title.fill('');
    await visible(card.getByRole('alert').filter({ hasText: 'give the event a title' }));
    expect(await card.getByRole('button', { name: 'Approve' }).isDisabled()).toBe(true);
    await title.fill('Quarterly planning');
    await title.press('Enter');
    // The time too: 14:00–14:30 the same day instead of the model's 11:00–11:30.
    await card.getByLabel('Start', { exact: true }).fill(localInput(onDay(7, 14)));
    await card.getByLabel('End', { exact: true }).fill(localInput(onDay(7, 14, 30)));
    expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    await shot('calendar-approval-form');
    await card.getByRole('button', { name: 'Approve' }).click();
    await visible(page.getByRole('log', { name: 'Messages' }).getByText('Booked it.'));
    // The answered card shows what was done: the edited title and time, not the model's.
    const done = page.getByRole('group', { name: 'Approval: Book event' });
    await visible(done.getByRole('status').filter({ hasText: 'Approved with your changes to title, start and end' }));
    const doneText = await done.innerText();
    expect(doneText).toMatch(/Book 'Quarterly planning' on [A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}(?: \d{4})?, 14:00–14:30 with Alice/);
    expect(doneText).not.toMatch(/Sync with Alice and Bob|11:00|\d{4}-\d{2}-\d{2}/);
    // So does the trace's approval step.
    const step = page.getByRole('list', { name: 'Trace steps' }).getByRole('listitem').filter({ hasText: /^Approved with your changes/ });
    await visible(step);
    expect(await step.innerText()).toMatch(/Book 'Quarterly planning' on [A-Z][a-z]{2} \d{1,2} [A-Z][a-z]{2}(?: \d{4})?, 14:00–14:30/);
    await shot('calendar-approval-done');

    // The tool ran with the edited title, and the model was told.
    const result = fake.chatRequests.at(-1)?.body?.messages?.at(-1);
    expect(result?.role).toBe('tool');
    expect(String(result?.content)).not.toMatch(/"error"/);
    expect(String(result?.content)).toMatch(/Quarterly planning/);
    const events = JSON.parse(tidy(dbPath, ['events', '--from', start.toISOString().slice(0, 10), '--to', new Date(end.getTime() + 86_400_000).toISOString().slice(0, 10), '--json']).stdout) as { title: string }[];
    expect(events.map((e) => e.title)).toContain('Quarterly planning');
    expect(events.map((e) => e.title)).not.toContain('Sync with Alice and Bob');

    await nav('Calendar').click();
    await main().getByRole('button', { name: 'Next week' }).click();
    await visible(event(/^Quarterly planning, .*14:00 to 14:30, Personal$/));

    // Moved on another device at the same time and overwritten here (as sync records it: the start and the end
    // the other move wrote): the event's details show its sync history, and Restore moves it back, undoably.
    const db = openDatabase(dbPath);
    try {
      const id = (db.prepare(`SELECT id FROM events WHERE title = 'Quarterly planning'`).get() as { id: string }).id;
      const stamp = (ms: number, n: number, device: string) => `${new Date(ms).toISOString()}-000${n}-${device}`;
      const [desktop, laptop] = ['00000000000000b2', '00000000000000a1'];
      db.prepare(`INSERT INTO sync_devices (device, name) VALUES (?, 'Desktop'), (?, 'Laptop')`).run(desktop, laptop);
      const lostAt = Date.now() - 120_000;
      const record = db.prepare(`INSERT INTO sync_conflicts (tbl, row, col, lost_value, lost_hlc, lost_device, won_hlc, won_device, recorded_at) VALUES ('events', ?, ?, ?, ?, ?, ?, ?, ?)`);
      for (const [n, col, value] of [[0, 'start', onDay(7, 16).toISOString()], [1, 'end', onDay(7, 16, 30).toISOString()], [2, 'start_ms', onDay(7, 16).getTime()]] as const)
        record.run(id, col, value, stamp(lostAt, n, desktop), desktop, stamp(lostAt + 60_000, n, laptop), laptop, new Date().toISOString());
    } finally {
      db.close();
    }
    await event(/^Quarterly planning, .*14:00 to 14:30, Personal$/).click();
    const details = main().getByRole('region', { name: 'Quarterly planning' });
    const history = details.getByRole('list', { name: 'Sync history of Quarterly planning' });
    await visible(history.getByText(/^Start changed on Desktop at .+ to “.+ 16:00”, overwritten by Laptop at .+ · Restore$/));
    await visible(history.getByText(/^End changed on Desktop at .+ to “.+ 16:30”, overwritten by Laptop at .+ · Restore$/));
    expect(await history.getByRole('listitem').count()).toBe(2); // the derived milliseconds are not said again
    await screenshot(details, 'calendar-event-sync-history');
    const moves = () => {
      const d = openDatabase(dbPath);
      try {
        return (d.prepare(`SELECT count(*) AS n FROM actions WHERE tool = 'move_event' AND undone_at IS NULL`).get() as { n: number }).n;
      } finally {
        d.close();
      }
    };
    expect(moves()).toBe(0);
    await history.getByRole('button', { name: /^Restore start “.+ 16:00”$/ }).click();
    await visible(event(/^Quarterly planning, .*16:00 to 16:30, Personal$/));
    await visible(details.getByRole('status').filter({ hasText: 'Restored the start written on Desktop. Undo it in Actions.' }));
    expect(moves()).toBe(1);
  }, 60_000);

  it('removes an imported calendar, and looks right in dark, narrow and busy weeks', async () => {
    await nav('Calendar').click();
    await main().getByRole('button', { name: 'Today', exact: true }).click();
    await legend().getByRole('button', { name: 'Remove calendar Bob' }).click();
    await expect.poll(() => main().getByRole('button', { name: /^Dentist/ }).count()).toBe(0);
    await expect.poll(calendarNames).toEqual(['Personal', 'Alice']);

    await pick('team.ics', BUSY_ICS);
    await visible(page.getByText(/^Imported team\.ics as /));
    await expect.poll(() => main().getByRole('button', { name: /, Team$/ }).count()).toBe(40);
    await shot('calendar-busy-week');
    expect(await seriousA11yProblems()).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('calendar-busy-week-dark');
    expect(await seriousA11yProblems()).toEqual([]);
    await page.setViewportSize({ width: 800, height: 760 });
    await shot('calendar-narrow-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await shot('calendar-narrow');
    await main().getByRole('button', { name: 'Day', exact: true }).click();
    await shot('calendar-day-narrow');
    await page.setViewportSize({ width: 1360, height: 860 });
    expect(consoleProblems).toEqual([]);
    // Two axe runs and five screenshots: slow on a loaded machine.
  }, 120_000);
});
