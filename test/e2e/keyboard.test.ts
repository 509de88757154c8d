// Keyboard only: the UI in Chromium through `tidy serve` (the fake model answering), driven by keys alone.
// Approvals are answered on purpose and never by keys meant for the message box; the focus follows the
// user (never left on the page body); what changed is said in the polite status region; the layout
// holds at 200% zoom (640×400 CSS pixels).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/core';
import { SEED_INBOX, seedInbox } from '../support/agent';
import { startFakeOpenAI, type FakeOpenAI, type FakeToolCall } from '../fakes/openai-server';
import { REPO, tidy } from '../support/cli';
import { buildRendererOnce, CHROMIUM_ARGS } from '../support/renderer';
import { startServe, type Served } from '../support/serve';

const SHOTS = join(REPO, 'test-results', 'screenshots');
const WINDOW = { width: 1280, height: 800 };

let browser: Browser;
let page: Page;
let served: Served;
let fake: FakeOpenAI;
let dir = '';
let dbPath = '';
const ids = new Map<string, string>();

beforeAll(async () => {
  const [, fakeServer] = await Promise.all([buildRendererOnce(), startFakeOpenAI()]);
  fake = fakeServer;
  dir = mkdtempSync(join(tmpdir(), 'tidy-e2e-keys-'));
  dbPath = join(dir, 'tidy.db');
  const db = openDatabase(dbPath);
  seedInbox(db).forEach((id, i) => ids.set(SEED_INBOX[i]!, id));
  db.close();
  for (const [key, value] of [
    ['baseUrl', fake.url],
    ['model', 'fake-model'],
  ] as const) {
    const r = tidy(dbPath, ['config', 'set', key, value]);
    if (r.code !== 0) throw new Error(r.stderr);
  }
  served = await startServe(dbPath);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await (await browser.newContext({ viewport: WINDOW })).newPage();
  page.setDefaultTimeout(10_000);
  mkdirSync(SHOTS, { recursive: true });
  await page.goto(served.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  await fake?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => fake.reset());

const call = (name: string, args: Record<string, unknown> = {}): FakeToolCall => ({ name, arguments: args });
const messages = () => page.getByRole('log', { name: 'Messages' });
const composer = () => page.getByRole('textbox', { name: 'Message' });
const status = () => page.locator('[role=status][aria-live=polite]');
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
/** The focused element, described: its role or tag, and its accessible name or text. */
const focused = () =>
  page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    const by = el.getAttribute('aria-labelledby');
    const name = el.getAttribute('aria-label') || (by && document.getElementById(by)?.textContent) || (el.textContent || '').trim().slice(0, 60);
    return (el.getAttribute('role') || el.tagName.toLowerCase()) + ':' + name;
  })()`) as Promise<string>;
const taskStatus = (content: string): string => {
  const r = tidy(dbPath, ['tasks', '--all', '--json']);
  const tasks = JSON.parse(r.stdout) as { content: string; status: string }[];
  return tasks.find((t) => t.content === content)?.status ?? 'missing';
};

async function newConversation(): Promise<void> {
  await page.keyboard.press('Alt+N');
  await page.getByRole('heading', { name: 'New conversation', level: 1 }).waitFor();
  await expect.poll(focused).toBe('textarea:Message');
}

describe('approvals are answered on purpose', () => {
  it('keeps typing after a send in the message box: the approval that appears meanwhile stays pending', async () => {
    await newConversation();
    fake.enqueue({ toolCalls: [call('complete_task', { task_id: ids.get('Buy milk birthday cake')! })] }, { text: 'Completed: Buy milk birthday cake.' });
    await page.keyboard.type('complete Buy milk');
    await page.keyboard.press('Enter');
    // The user goes on with the next message, 120 ms a key, while the card appears.
    const next = 'and then tidy up my lists';
    await page.keyboard.type(next, { delay: 120 });
    const card = page.getByRole('group', { name: 'Approval needed: Complete task' });
    await visible(card);
    expect(await composer().inputValue()).toBe(next);
    expect(await focused()).toBe('textarea:Message');
    // Still waiting: nothing answered, the task open, the model not asked again.
    expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    expect(taskStatus('Buy milk birthday cake')).toBe('open');
    expect(fake.chatRequests).toHaveLength(1);
    // It was announced, with its shortcuts, which the card shows too.
    await expect.poll(() => status().innerText()).toMatch(/Approval needed: Complete task 'Buy milk birthday cake'\?.*Alt\+A approves/);
    await visible(card.getByText('Alt+A'));
    await page.screenshot({ path: join(SHOTS, 'keyboard-approval-pending.png') });

    // Alt+A is the deliberate answer: approved, and the typing is still there.
    await page.keyboard.press('Alt+A');
    await visible(messages().getByText('Completed: Buy milk birthday cake.'));
    await expect.poll(() => taskStatus('Buy milk birthday cake')).toBe('done');
    await expect.poll(() => status().innerText()).toMatch(/Approved: Complete task/);
    expect(await composer().inputValue()).toBe(next);
    expect(await focused()).toBe('textarea:Message');
  }, 40_000);

  it('declines with Alt+D; a card that appears while the focus is on nothing takes it on itself, not on a button', async () => {
    await newConversation();
    fake.enqueue({ toolCalls: [call('complete_task', { task_id: ids.get('Buy sugar for the birthday cake')! })] }, { text: 'Left the sugar task open.' });
    await composer().fill('complete the sugar task');
    await page.keyboard.press('Enter');
    // The focus on nothing (e.g. after a click on an empty area) when the card arrives.
    await page.evaluate('document.activeElement.blur()');
    const card = page.getByRole('group', { name: 'Approval needed: Complete task' });
    await visible(card);
    await expect.poll(focused).toBe('group:Approval needed: Complete task');
    // Space and Enter on the card itself answer nothing.
    await page.keyboard.press('Space');
    await page.keyboard.press('Enter');
    expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    expect(taskStatus('Buy sugar for the birthday cake')).toBe('open');
    await page.keyboard.press('Alt+D');
    await visible(messages().getByText('Left the sugar task open.'));
    expect(taskStatus('Buy sugar for the birthday cake')).toBe('open');
    await expect.poll(() => status().innerText()).toMatch(/Declined: Complete task/);
    // From the card, the focus goes on to the message box.
    await expect.poll(focused).toBe('textarea:Message');
  }, 40_000);

  it('loses no key typed right after a send (the box empties at once, not when the reply comes)', async () => {
    await newConversation();
    fake.enqueue({ text: 'Hello.', delayMs: 400 });
    await page.keyboard.type('hi');
    await page.keyboard.press('Enter');
    await page.keyboard.type('x');
    await visible(messages().getByText('Hello.'));
    expect(await composer().inputValue()).toBe('x');
  }, 30_000);
});
