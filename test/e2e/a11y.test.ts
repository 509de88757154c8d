// Accessibility, checked by a real tool: axe-core over every view of the UI in Chromium (through
// `tidy serve`, the fake model answering), at 100% and 200% zoom, in light and dark. No serious or
// critical WCAG 2.1 A/AA violation may remain. Every result, whatever its impact, is written to
// test-results/axe/results.json, so a change can be compared view by view.
import { AxeBuilder } from '@axe-core/playwright';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAI, type FakeOpenAI } from '../fakes/openai-server';
import { REPO } from '../support/cli';
import { tidyIn } from '../support/cli-inproc';
import { launchChromium, openPage, screenshot } from '../support/browser';
import { buildRendererOnce } from '../support/renderer';
import { seedForFake, startServe, type Served } from '../support/serve';

const OUT = join(REPO, 'test-results', 'axe');
/** WCAG 2.1 level A and AA, as axe tags them. */
const WCAG_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

const MAIN_WINDOW = { width: 1280, height: 800 };
/** The quick-capture window's size in the desktop app (src-main/app/windows.ts). */
const CAPTURE_WINDOW = { width: 560, height: 132 };
const SCHEMES = ['light', 'dark'] as const;
const ZOOMS = [1, 2] as const;

interface Finding {
  view: string;
  zoom: number;
  scheme: string;
  violations: { id: string; impact: string | null; help: string; nodes: string[] }[];
}
const findings: Finding[] = [];

let browser: Browser;
/** The main window at 100% and at 200% zoom (half the CSS pixels, twice the density). */
let pages: { zoom: number; page: Page }[] = [];
let page: Page;
let served: Served;
let fake: FakeOpenAI;
let dir = '';
let dbPath = '';
const ids = new Map<string, string>();

/** A window of `size` device pixels at `zoom`. */
async function open(size: { width: number; height: number }, zoom: number, path = ''): Promise<Page> {
  const { page: p } = await openPage(browser, `${served.url}${path}`, { viewport: { width: size.width / zoom, height: size.height / zoom }, deviceScaleFactor: zoom, timeout: 10_000 });
  return p;
}

beforeAll(async () => {
  const [, fakeServer] = await Promise.all([buildRendererOnce(), startFakeOpenAI()]);
  fake = fakeServer;
  dir = mkdtempSync(join(tmpdir(), 'tidy-e2e-a11y-'));
  dbPath = join(dir, 'tidy.db');
  for (const [content, id] of seedForFake(dbPath, fake.url)) ids.set(content, id);
  // Something in every view: a project with tasks, a list with items, and so entries in the action log.
  const by = async (args: string[]) => {
    const r = await tidyIn(dbPath, args);
    if (r.code !== 0) throw new Error(`tidy ${args.join(' ')}: ${r.stderr}`);
  };
  await by(['project', 'add', 'Birthday Celebration']);
  for (const task of ['Bake the birthday cake', 'Buy birthday balloons']) await by(['move', ids.get(task)!, 'Birthday Celebration']);
  await by(['list', 'add', 'Packing list']);
  for (const item of ['Passport', 'Charger']) await by(['list', 'item', 'Packing list', item]);

  served = await startServe(dbPath);
  browser = await launchChromium();
  pages = [];
  for (const zoom of ZOOMS) pages.push({ zoom, page: await open(MAIN_WINDOW, zoom) });
  page = pages[0]!.page;
  mkdirSync(OUT, { recursive: true });
}, 120_000);

afterAll(async () => {
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(findings, null, 2)}\n`);
  await browser?.close();
  await served?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const nav = (p: Page, name: string | RegExp) => p.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });

/** Runs axe on one page (a zoom) in each colour scheme, in turn. */
async function checkPage(view: string, zoom: number, p: Page): Promise<{ found: Finding[]; serious: string[] }> {
  const found: Finding[] = [];
  const serious: string[] = [];
  for (const scheme of SCHEMES) {
    await p.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
    // Let the virtual lists measure their rows in the new layout.
    await p.waitForTimeout(150);
    const result = await new AxeBuilder({ page: p }).withTags(WCAG_TAGS).analyze();
    const violations = result.violations.map((v) => ({ id: v.id, impact: v.impact ?? null, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }));
    found.push({ view, zoom, scheme, violations });
    for (const v of violations) {
      if (v.impact === 'serious' || v.impact === 'critical') serious.push(`${view} at ${zoom * 100}% ${scheme}: ${v.id} (${v.impact}) — ${v.help}: ${v.nodes.slice(0, 3).join(', ')}`);
    }
    if (zoom === 2) await screenshot(p, `a11y-${view.toLowerCase().replace(/\W+/g, '-')}-200-${scheme}`);
  }
  await p.emulateMedia({ colorScheme: 'light' });
  return { found, serious };
}

/**
 * Runs axe on each page (a zoom) in each colour scheme; returns the serious and critical violations found.
 * The pages are separate browser contexts (their own renderer processes), so they are checked at the same
 * time; the findings are kept in page order.
 */
async function check(view: string, on: { zoom: number; page: Page }[] = pages): Promise<string[]> {
  const results = await Promise.all(on.map(({ zoom, page: p }) => checkPage(view, zoom, p)));
  for (const r of results) findings.push(...r.found);
  return results.flatMap((r) => r.serious);
}

/** Opens a view in every zoom. */
async function openView(name: string | RegExp, heading: string, ready: (p: Page) => Promise<unknown>): Promise<void> {
  await Promise.all(
    pages.map(async ({ page: p }) => {
      await nav(p, name).click();
      await p.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await ready(p);
    }),
  );
}

describe('axe-core finds no serious or critical WCAG 2.1 A/AA violation', () => {
  it('is run at 200% zoom on 640×400 CSS pixels', async () => {
    const zoomed = pages.find((p) => p.zoom === 2)!.page;
    expect(await zoomed.evaluate('[innerWidth, innerHeight, devicePixelRatio]')).toEqual([640, 400, 2]);
  });

  it('in the chat, with a run going on and an approval card waiting', async () => {
    fake.enqueue({ text: 'I will complete it.', toolCalls: [{ name: 'complete_task', arguments: { task_id: ids.get('Buy milk birthday cake')! } }] }, { text: 'Done: the milk is bought.' });
    await nav(page, 'Chat').click();
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Complete the milk task');
    await box.press('Enter');
    const card = (p: Page) => p.getByRole('group', { name: /^Approval needed/ });
    await card(page).waitFor();
    // The other window opens the same conversation, its run still waiting.
    for (const { page: p } of pages.slice(1)) {
      await nav(p, 'Chat').click();
      await p.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^Complete the milk task/ }).click();
      await card(p).waitFor();
    }
    const problems = await check('Chat');
    await card(page).getByRole('button', { name: 'Approve' }).click();
    for (const { page: p } of pages) await p.getByRole('log', { name: 'Messages' }).getByText('Done: the milk is bought.').waitFor();
    expect(problems).toEqual([]);
  }, 120_000); // a model run and two windows: generous, the machine may be loaded

  it('in the chat after the run, with its trace', async () => {
    await page.getByRole('list', { name: 'Trace steps' }).getByText('Finished: Done').waitFor();
    // In the narrow window the trace is an overlay, opened on demand.
    const zoomed = pages.find((p) => p.zoom === 2)!.page;
    await zoomed.getByRole('log', { name: 'Messages' }).getByRole('button', { name: /^Trace/ }).last().click();
    await zoomed.getByRole('list', { name: 'Trace steps' }).getByText('Finished: Done').waitFor();
    expect(await check('Chat finished')).toEqual([]);
    await zoomed.getByRole('button', { name: 'Hide trace' }).click();
  }, 120_000); // a model run and two windows: generous, the machine may be loaded

  it('in the Inbox', async () => {
    await openView(/^Inbox/, 'Inbox', (p) => p.getByRole('list', { name: 'Inbox tasks' }).waitFor());
    expect(await check('Inbox')).toEqual([]);
  }, 60_000);

  it('in Projects', async () => {
    await openView('Projects', 'Projects', (p) => p.getByRole('list', { name: 'Tasks in Birthday Celebration' }).waitFor());
    expect(await check('Projects')).toEqual([]);
  }, 60_000);

  it('in Lists', async () => {
    await openView('Lists', 'Lists', (p) => p.getByRole('checkbox', { name: 'Passport' }).waitFor());
    expect(await check('Lists')).toEqual([]);
  }, 60_000);

  it('in Actions', async () => {
    await openView('Actions', 'Actions', (p) => p.getByRole('list', { name: 'Action log' }).getByRole('listitem').first().waitFor());
    expect(await check('Actions')).toEqual([]);
  }, 60_000);

  it('in Settings', async () => {
    await openView('Settings', 'Settings', (p) => p.getByRole('textbox', { name: 'Endpoint (base URL)' }).waitFor());
    expect(await check('Settings')).toEqual([]);
  }, 60_000);

  it('in the keyboard shortcuts dialog', async () => {
    for (const { page: p } of pages) {
      await p.getByRole('button', { name: 'Keyboard shortcuts' }).click();
      await p.getByRole('dialog', { name: 'Keyboard shortcuts' }).waitFor();
    }
    expect(await check('Help dialog')).toEqual([]);
    for (const { page: p } of pages) {
      await p.keyboard.press('Escape');
      expect(await p.getByRole('dialog').count()).toBe(0);
    }
  }, 60_000);

  it('in the quick-capture window', async () => {
    const small = [];
    for (const zoom of ZOOMS) {
      const p = await open(CAPTURE_WINDOW, zoom, '#/capture');
      await p.getByRole('textbox', { name: 'Quick capture' }).waitFor();
      small.push({ zoom, page: p });
    }
    expect(await check('Quick capture', small)).toEqual([]);
    for (const { page: p } of small) await p.context().close();
  }, 60_000);
});
