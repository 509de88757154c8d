// End to end: reminders in Chromium through `tidy serve`. When a task's due time comes the host pushes
// `reminder.due`; the page shows a system notification when allowed (the page's Notification is replaced
// by a recorder, as headless Chromium shows none) and a card with Complete and Snooze. Settings asks for
// the permission from a click. The tasks fall due at the next whole minute, so this file waits up to a minute.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTask, listTasks, newUserRequest, openDatabase } from '../../src-main/core';
import { launchChromium, openPage, screenshot } from '../support/browser';
import { buildRendererOnce } from '../support/renderer';
import { startServe, type Served } from '../support/serve';


let browser: Browser;
let served: Served;
let dir = '';
let dbPath = '';
let dueAt = '';

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
  // Due at the next whole minute (the one after when less than 15 s are left, so the page is up in time).
  const at = new Date();
  at.setSeconds(0, 0);
  at.setMinutes(at.getMinutes() + (new Date().getSeconds() > 45 ? 2 : 1));
  dueAt = local(at);
  const db = openDatabase(dbPath);
  for (const content of ['Call the dentist', 'Water the plants']) addTask(db, newUserRequest(db), { content, due: dueAt });
  db.close();
  served = await startServe(dbPath);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function open(permission: string): Promise<{ context: BrowserContext; page: Page }> {
  const { context, page } = await openPage(browser, served.url, { viewport: { width: 1280, height: 800 }, initScript: fakeNotifications(permission), timeout: 10_000 });
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
    await dentist.waitFor({ timeout: 100_000 });
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
  }, 150_000);
});
