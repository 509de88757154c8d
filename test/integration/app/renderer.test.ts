// The built renderer in Chromium as the desktop app's windows run it: pages from the app's app:// handler
// (with its CSP), the built preload as `window.tidy`, every request through the app's ipcMain handlers
// (test/support/electron-renderer.ts). Checks the quick-capture window and the main window end to end.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { electronInvokeName } from '../../../src-shared/ipc';
import { launchChromium } from '../../support/browser';
import { REPO, tidy } from '../../support/cli';
import { launchApp, OUR_FRAME, prepareApp, type AppUnderTest } from '../../support/electron-app';
import { asAppWindow, serveAppProtocol } from '../../support/electron-renderer';
import type { Snapshot } from '../../support/electron/protocol';

const SHOTS = join(REPO, 'test-results', 'screenshots');

let browser: Browser;

beforeAll(async () => {
  await prepareApp();
  browser = await launchChromium();
  mkdirSync(SHOTS, { recursive: true });
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

const windowAt = (s: Snapshot, url: string) => s.windows.find((w) => !w.destroyed && w.url === url)!;

/** A page playing the app's window that loaded `url`, at the window's size; console errors, page errors and failed loads collected. */
async function openWindow(app: AppUnderTest, s: Snapshot, url: string): Promise<{ page: Page; problems: string[] }> {
  const server = await serveAppProtocol(app);
  // The window's own size: what the user sees of the page.
  const { width, height } = windowAt(s, url).options as { width: number; height: number };
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('response', (r) => {
    if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
  });
  const win = await asAppWindow(page, app, windowAt(s, url).id, server);
  onTestFinished(async () => {
    win.stop();
    await context.close();
    await server.close();
  });
  await page.goto(`${server.origin}${url.slice('app://tidy'.length)}`);
  return { page, problems };
}

describe('the renderer in an app window', () => {
  it('the quick-capture window renders under the CSP and adds to the inbox through the preload and ipcMain', async () => {
    const app = await launchApp();
    const s = await app.start();
    const { page, problems } = await openWindow(app, s, 'app://tidy/index.html#/capture');
    const capture = windowAt(s, 'app://tidy/index.html#/capture').id;
    await app.send({ op: 'press', accelerator: 'CommandOrControl+Shift+Space' });

    expect(await page.evaluate(() => Object.keys((globalThis as unknown as { tidy: object }).tidy).sort())).toEqual(['invoke', 'on']);
    const box = page.getByRole('textbox', { name: 'Quick capture' });
    await box.fill('Buy stamps');
    await page.screenshot({ path: join(SHOTS, 'app-capture.png') });
    await box.press('Enter');
    await expect.poll(() => tidy(app.dbPath, ['tasks', '--inbox', '--json']).stdout, { timeout: 10_000 }).toContain('Buy stamps');
    // The view closes its window after a capture: the app hides it, ready for the next one.
    const after = await app.waitFor('the capture window to hide', (x) => x.windows.find((w) => w.id === capture)?.visible === false);
    expect(after.windows.find((w) => w.id === capture)!.destroyed).toBe(false);
    // The preload refuses a channel outside the contract before anything reaches the main process.
    expect(await page.evaluate(() => (globalThis as unknown as { tidy: { invoke: (c: string, i: unknown) => Promise<unknown> } }).tidy.invoke('db.exec', {}))).toMatchObject({
      ok: false,
      code: 'unknown_channel',
    });
    expect(problems).toEqual([]);
  });

  it('the main window shows the inbox and follows changes the app sends it', async () => {
    const app = await launchApp();
    const s = await app.start();
    await app.send({ op: 'invoke', window: 1, channel: electronInvokeName('tasks.add'), input: { content: 'Bake the birthday cake' }, frame: OUR_FRAME });
    const { page, problems } = await openWindow(app, s, 'app://tidy/index.html');

    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Inbox/ }).click();
    await expect.poll(() => page.getByText('Bake the birthday cake').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    // Another process adds a task: the app notices and sends data.changed to its windows; the inbox updates.
    expect(tidy(app.dbPath, ['add', 'Buy balloons']).code).toBe(0);
    await expect.poll(() => page.getByText('Buy balloons').count(), { timeout: 10_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, 'app-main-inbox.png') });
    expect(problems).toEqual([]);
  });
});
