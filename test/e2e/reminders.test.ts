// End to end: reminders in Chromium through the web host (what `tidy serve` runs, here in this process so
// its reminders take a clock the test moves). When a task's due time comes the host pushes `reminder.due`;
// the page shows a system notification when allowed (the page's Notification is replaced by a recorder, as
// headless Chromium shows none) and a card with Complete and Snooze. Settings asks for the permission from
// a click. The tasks fall due two minutes from now; the test moves the reminders' clock there instead of
// waiting for it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTask, listTasks, newUserRequest, openDatabase, type Db } from '../../src-main/core';
import type { ReminderClock } from '../../src-main/core/reminders';
import { createHost, type Host } from '../../src-main/host';
import { startWebHost, type WebHost } from '../../src-main/host/web';
import { launchChromium, openPage, screenshot } from '../support/browser';
import { REPO } from '../support/cli';
import { testDeps } from '../support/host';
import { buildRendererOnce } from '../support/renderer';

let browser: Browser;
let db: Db;
let host: Host;
let web: WebHost;
let dir = '';
let dbPath = '';
let dueAt = '';

/** The reminders' clock: real time until the test moves it; the timer it sets waits until the test fires it. */
let offsetMs = 0;
let pending: (() => void) | null = null;
const clock: ReminderClock = {
  now: () => new Date(Date.now() + offsetMs),
  setTimeout: (fn) => ((pending = fn), fn),
  clearTimeout: (h) => {
    if (pending === h) pending = null;
  },
};

const local = (d: Date): string =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}T${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}`;

/**
 * Replaces the page's Notification with one that records what it is asked to show, with the given
 * permission (requestPermission grants it). Page code as a string: the node tsconfig has no DOM types.
 */
const fakeNotifications = (permission: string) => `(() => {
  window.__shown = [];
  window.__asked = 0;
  class Recorder {
    static permission = ${JSON.stringify(permission)};
    static async requestPermission() { window.__asked++; Recorder.permission = 'granted'; return 'granted'; }
    constructor(title, options) { window.__shown.push({ title, body: options && options.body }); }
    close() {}
  }
  window.Notification = Recorder;
})()`;

beforeAll(async () => {
  await buildRendererOnce();
  dir = mkdtempSync(join(tmpdir(), 'tidy-e2e-reminders-'));
  dbPath = join(dir, 'tidy.db');
  // Due two whole minutes from now: not yet due when the host starts, whatever the second.
  const at = new Date();
  at.setSeconds(0, 0);
  at.setMinutes(at.getMinutes() + 2);
  dueAt = local(at);
  const seed = openDatabase(dbPath);
  for (const content of ['Call the dentist', 'Water the plants']) addTask(seed, newUserRequest(seed), { content, due: dueAt });
  seed.close();
  // The web host as `tidy serve` builds it (src-main/cli/commands/serve.ts), its reminders on the clock above.
  db = openDatabase(dbPath);
  host = createHost(testDeps(db), { reminders: { clock } });
  web = await startWebHost({ dispatch: host.dispatch, hub: host.hub, rendererDir: join(REPO, 'out', 'renderer') });
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await web?.close();
  await host?.close();
  db?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Moves the reminders' clock to `to` and lets their timer go off, as it would at that time. */
function timeComes(to: Date): void {
  offsetMs = to.getTime() - Date.now();
  const fire = pending;
  pending = null;
  expect(fire, 'the reminders wait on their timer').not.toBeNull();
  fire!();
}

async function open(permission: string): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await openPage(browser, web.url, { viewport: { width: 1280, height: 800 }, initScript: fakeNotifications(permission), timeout: 10_000 });
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
  return { context, page };
}

function stored(content: string) {
  const db = openDatabase(dbPath);
  try {
    return listTasks(db, { status: 'all' }).tasks.find((t) => t.content === content)!;
  } finally {
    db.close();
  }
}

describe('reminders', () => {
  it('Settings asks for the permission from a click, and says what it is', async () => {
    const { context, page } = await open('default');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    const section = page.getByRole('region', { name: 'Reminders' });
    await section.getByText('Not allowed yet').waitFor();
    await section.getByRole('button', { name: 'Allow notifications' }).click();
    await section.getByText(/^Allowed:/).waitFor();
    expect(await page.evaluate('window.__asked')).toBe(1);
    await context.close();
  });

  it('when the due time comes: a notification, and a card whose Snooze and Complete are logged changes', async () => {
    const { context, page } = await open('granted');
    const dentist = page.getByRole('group', { name: 'Reminder: Call the dentist' });
    // The page is connected once the Inbox it asked for shows the tasks; nothing was announced before their time.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Inbox/ }).click();
    await page.getByRole('list', { name: 'Inbox tasks' }).getByText('Call the dentist').waitFor();
    expect(await dentist.count()).toBe(0);
    timeComes(new Date(`${dueAt}:00.500`));
    await dentist.waitFor({ timeout: 20_000 });
    const plants = page.getByRole('group', { name: 'Reminder: Water the plants' });
    await plants.waitFor();
    const shown = (await page.evaluate('window.__shown')) as { title: string }[];
    expect(shown.map((n) => n.title).sort()).toEqual(['Due: Call the dentist', 'Due: Water the plants']);
    await screenshot(page, 'tasks-reminders');

    await dentist.getByRole('button', { name: 'Snooze 10 min' }).click();
    await expect.poll(() => stored('Call the dentist').due! > dueAt).toBe(true);
    await expect.poll(() => dentist.count()).toBe(0);
    await plants.getByRole('button', { name: 'Complete' }).click();
    await expect.poll(() => stored('Water the plants').status).toBe('done');
    await expect.poll(() => plants.count()).toBe(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Actions' }).click();
    const log = page.getByRole('list', { name: 'Action log' });
    await log.getByText(/Completed 'Water the plants'/).first().waitFor();
    await log.getByText(/Call the dentist/).first().waitFor();
    await context.close();
  }, 60_000);
});
