// The Calendar view's week in Chromium through the web host: 500 events in one week (many overlapping),
// imported through the core, then the view opened from the sidebar, and the week left and come back
// to, each timed inside the page until every event is painted (performance.now, to the next frame).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { importCalendar, openDatabase } from '../src-main/core';
import { launchChromium } from '../test/support/browser';
import { buildRendererOnce } from '../test/support/renderer';
import { startServe } from '../test/support/serve';
import { report } from './util';

const EVENTS = 500;
const RUNS = 5;

const icsTime = (d: Date) => d.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** A week of `count` events from Monday of this week, 8:00 to 18:00, 15 to 90 minutes long, most overlapping others. */
function busyWeek(count: number): string {
  const now = new Date();
  const monday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - ((now.getDay() + 6) % 7));
  const lines = ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//Tidy bench//EN', 'X-WR-CALNAME:Bench'];
  for (let i = 0; i < count; i++) {
    const start = new Date(monday.getFullYear(), monday.getMonth(), monday.getDate() + (i % 7), 8 + ((i * 7) % 10), ((i * 13) % 4) * 15);
    const end = new Date(start.getTime() + (15 + (i % 6) * 15) * 60_000);
    lines.push('BEGIN:VEVENT', `UID:bench-${i}@tidy`, `DTSTAMP:${icsTime(monday)}`, `DTSTART:${icsTime(start)}`, `DTEND:${icsTime(end)}`, `SUMMARY:Bench meeting ${i}`, 'END:VEVENT');
  }
  lines.push('END:VCALENDAR');
  return `${lines.join('\r\n')}\r\n`;
}

/** Page code: runs `action`, then resolves with the ms until `count` events are in the grid and painted. */
const timed = (action: string, count: number) => `(async () => {
  const t0 = performance.now();
  ${action};
  await new Promise((resolve) => {
    const check = () => (document.querySelectorAll('.cal-col-events button[aria-label$=", Bench"]').length >= ${count} ? requestAnimationFrame(() => setTimeout(resolve, 0)) : requestAnimationFrame(check));
    check();
  });
  return performance.now() - t0;
})()`;
const clickNav = (label: string) => `[...document.querySelectorAll('nav[aria-label="Main"] button')].find((b) => b.textContent.trim().startsWith(${JSON.stringify(label)})).click()`;
const clickButton = (name: string) => `document.querySelector('[role="toolbar"] button[aria-label=${JSON.stringify(name)}], [role="toolbar"] button[title^=${JSON.stringify(name)}]').click()`;

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchCalendarWeek(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-cal-'));
  const dbPath = join(dir, 'cal.db');
  await buildRendererOnce();
  const db = openDatabase(dbPath);
  importCalendar(db, { requestId: 'ubench', source: 'user' }, { fileName: 'bench.ics', text: busyWeek(EVENTS) });
  db.close();
  const served = await startServe(dbPath);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1360, height: 820 } });
    await page.goto(`${served.url}#/inbox`);
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).waitFor();
    const opens: number[] = [];
    const back: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      opens.push((await page.evaluate(timed(clickNav('Calendar'), EVENTS))) as number);
      // To next week (empty) and back to this one: the week is fetched and laid out again.
      await page.evaluate(clickButton('Next week'));
      // Polled from here: the page's CSP forbids waitForFunction's eval.
      while ((await page.evaluate(`document.querySelectorAll('.cal-col-events button[aria-label$=", Bench"]').length`)) !== 0) await page.waitForTimeout(20);
      back.push((await page.evaluate(timed(clickButton('Previous week'), EVENTS))) as number);
      if (i < RUNS - 1) await page.evaluate(timed(clickNav('Inbox'), 0));
    }
    const shown = (await page.evaluate(`document.querySelectorAll('.cal-col-events button').length`)) as number;
    report(`open the Calendar on a week of ${EVENTS} events, first`, opens[0]!, 'ms', { max: 500, label: '500 ms' });
    report(`open the Calendar on a week of ${EVENTS} events, median of ${RUNS}`, median(opens), 'ms', { max: 250, label: '250 ms' });
    report(`  back to that week from the next, median of ${RUNS}`, median(back), 'ms', { max: 250, label: '250 ms' });
    console.log(`  ${'events in the grid after the last run'.padEnd(58)} ${shown}`);
    console.log(`  ${'(the machine\'s load average while measuring)'.padEnd(58)} ${loadavg()[0]!.toFixed(1)}`);
  } finally {
    await browser.close();
    await served.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
