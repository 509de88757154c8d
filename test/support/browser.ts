/**
 * The browser side of the end-to-end tests: Debian's Chromium (never a downloaded one), a page on the
 * UI served by `tidy serve` (test/support/serve.ts) with what went wrong in it collected, and screenshots.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { REPO } from './cli';
import { CHROMIUM_ARGS } from './renderer';

/** Where the screenshots go; each one is looked at before UI work is called done. */
export const SHOTS = join(REPO, 'test-results', 'screenshots');

export const launchChromium = (): Promise<Browser> => chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** Console errors and uncaught page errors, in order: a test asserts none it did not cause. */
  problems: string[];
}

export interface PageOptions extends BrowserContextOptions {
  /** Permissions granted to the served origin (e.g. the clipboard). */
  permissions?: string[];
  /** Playwright's default wait for each action (ms). */
  timeout?: number;
  /** Page code run before the app's own, in every page of the context (e.g. a stand-in for a browser API). */
  initScript?: string;
}

/** A new context and page on `url` (the served address with its token, plus a route like `#/capture`), loaded. */
export async function openPage(browser: Browser, url: string, { permissions, timeout, initScript, ...options }: PageOptions = {}): Promise<OpenedPage> {
  const context = await browser.newContext(options);
  if (initScript) await context.addInitScript(initScript);
  if (permissions) await context.grantPermissions(permissions, { origin: new URL(url).origin });
  if (timeout) context.setDefaultTimeout(timeout);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  mkdirSync(SHOTS, { recursive: true });
  await page.goto(url);
  return { context, page, problems };
}

/** Saves a page (all of it with `fullPage`) or one element as test-results/screenshots/<name>.png. */
export function screenshot(target: Page | Locator, name: string, { fullPage = false } = {}): Promise<Buffer> {
  const path = join(SHOTS, `${name}.png`);
  return 'goto' in target ? target.screenshot({ path, fullPage }) : target.screenshot({ path });
}
