// End to end: `tidy serve` in Debian's Chromium. The built renderer reaches the core through the
// bridge (WebSocket transport), shows the inbox, adds to it, updates live, and takes quick capture.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTask, newUserRequest, openDatabase } from '../../src-main/core';
import { REPO, tidy } from '../support/cli';
import { launchChromium, openPage, screenshot } from '../support/browser';
import { buildRendererOnce } from '../support/renderer';
import { startServe, type Served } from '../support/serve';


let browser: Browser;
let served: Served;
let url = '';
let dir = '';
let dbPath = '';

beforeAll(async () => {
  // The bundles under test (electron-vite builds main, preload and renderer; the CLI is built by the global setup).
  await buildRendererOnce();
  dir = mkdtempSync(join(tmpdir(), 'tidy-e2e-'));
  dbPath = join(dir, 'tidy.db');
  const db = openDatabase(dbPath);
  for (const content of ['Bake the birthday cake', 'Buy balloons']) addTask(db, newUserRequest(db), { content });
  db.close();
  served = await startServe(dbPath);
  url = served.url;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// The build above also made the two bundles only Electron runs: check they would load.
describe('the Electron bundles', () => {
  it('parse, and the sandboxed preload requires nothing but electron', () => {
    for (const bundle of ['out/main/index.js', 'out/preload/index.cjs']) execFileSync(process.execPath, ['--check', join(REPO, bundle)]);
    const preload = readFileSync(join(REPO, 'out/preload/index.cjs'), 'utf8');
    expect([...new Set([...preload.matchAll(/require\(["']([^"']+)["']\)/g)].map((m) => m[1]))]).toEqual(['electron']);
  });
});

const openInbox = (page: Page) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Inbox/ }).click();

const SEEDED = ['Bake the birthday cake', 'Buy balloons'];

describe('tidy serve in Chromium', () => {
  it('shows the inbox through the bridge, updates it live, and keeps no token in the address bar', async () => {
    const context = await browser.newContext({ viewport: { width: 1000, height: 640 } });
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    await page.goto(url);
    await openInbox(page);
    for (const text of SEEDED) await expect.poll(() => page.getByText(text).count()).toBeGreaterThan(0);
    expect(page.url()).not.toContain('token');

    // A change from another process (the CLI) shows up without a reload: data.changed over the socket.
    expect(tidy(dbPath, ['add', 'Book the venue']).code).toBe(0);
    await expect.poll(() => page.getByText('Book the venue').count(), { timeout: 5000 }).toBeGreaterThan(0);
    await screenshot(page, 'e2e-serve-inbox');

    // A reload keeps working: the tab kept its token.
    await page.reload();
    await openInbox(page);
    await expect.poll(() => page.getByText('Book the venue').count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('quick capture: Enter adds the text to the inbox, no model needed', async () => {
    const { context, page } = await openPage(browser, `${url}#/capture`);
    const box = page.getByRole('textbox', { name: 'Quick capture' });
    await box.fill('Call the florist');
    await box.press('Enter');
    await expect.poll(() => tidy(dbPath, ['tasks', '--inbox', '--json']).stdout).toContain('Call the florist');
    await context.close();
  });

  it('a page opened without the token reaches no data', async () => {
    const { context, page } = await openPage(browser, new URL(url).origin);
    await openInbox(page);
    await page.waitForTimeout(500);
    expect(await page.getByText(SEEDED[0]!).count()).toBe(0);
    await context.close();
  });
});
