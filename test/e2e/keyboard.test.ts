// Keyboard only: the UI in Chromium through `tidy serve` (the fake model answering), driven by keys alone.
// Approvals are answered on purpose and never by keys meant for the message box; the focus follows the
// user (never left on the page body); what changed is said in the polite status region; the layout
// holds at 200% zoom (640×400 CSS pixels).
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeOpenAI, FakeToolCall } from '../fakes/openai-server';
import { tidyIn } from '../support/cli-inproc';
import { openPage, screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';
import type { Served } from '../support/serve';

const WINDOW = { width: 1280, height: 800 };

let stage: Stage | undefined;
let browser: Browser;
let page: Page;
let served: Served;
let fake: FakeOpenAI;
let dbPath = '';
let ids: Map<string, string>;

beforeAll(async () => {
  stage = await startStage('keys', { page: { viewport: WINDOW, timeout: 10_000 } });
  ({ fake, dbPath, served, browser, page, ids } = stage);
  // The app is up (and its shortcuts listen) once the message box is there.
  await page.getByRole('textbox', { name: 'Message' }).waitFor();
}, 120_000);

afterAll(() => stage?.close());

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
    const name = el.getAttribute('aria-label') || (by && document.getElementById(by)?.textContent) || el.labels?.[0]?.textContent || (el.textContent || '').trim().slice(0, 60);
    return (el.getAttribute('role') || el.tagName.toLowerCase()) + ':' + name;
  })()`) as Promise<string>;
const taskStatus = async (content: string): Promise<string> => {
  const r = await tidyIn(dbPath, ['tasks', '--all', '--json']);
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
    expect(await taskStatus('Buy milk birthday cake')).toBe('open');
    expect(fake.chatRequests).toHaveLength(1);
    // It was announced, with its shortcuts, which the card shows too.
    await expect.poll(() => status().innerText()).toMatch(/Approval needed: Complete task 'Buy milk birthday cake'\?.*Alt\+A approves/);
    await visible(card.getByText('Alt+A'));
    await screenshot(page, 'keyboard-approval-pending');

    // Alt+A is the deliberate answer: approved, and the typing is still there.
    await page.keyboard.press('Alt+A');
    await visible(messages().getByText('Completed: Buy milk birthday cake.'));
    await expect.poll(() => taskStatus('Buy milk birthday cake')).toBe('done');
    await expect.poll(() => status().innerText()).toMatch(/Approved: Complete task/);
    await expect.poll(() => status().innerText()).toContain('Tidy has finished.');
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
    expect(await taskStatus('Buy sugar for the birthday cake')).toBe('open');
    await page.keyboard.press('Alt+D');
    await visible(messages().getByText('Left the sugar task open.'));
    expect(await taskStatus('Buy sugar for the birthday cake')).toBe('open');
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

describe('the focus follows the user and what changed is said', () => {
  it('ticking a task with Space hands the focus to the next task and says so', async () => {
    await page.keyboard.press('Alt+2');
    await expect.poll(focused).toBe('h1:Inbox');
    // The focused heading is underlined, not boxed like a text field.
    const heading = page.getByRole('heading', { name: 'Inbox', level: 1 });
    const look = await heading.evaluate((el) => {
      const s = (globalThis as unknown as { getComputedStyle(e: unknown): { outlineStyle: string; textDecorationLine: string } }).getComputedStyle(el);
      return { outline: s.outlineStyle, decoration: s.textDecorationLine };
    });
    expect(look).toEqual({ outline: 'none', decoration: 'underline' });
    const list = page.getByRole('list', { name: 'Inbox tasks' });
    await visible(list);
    // Tab goes from task to task and stays in the list past the last one.
    const names = await list.getByRole('checkbox').evaluateAll((els) => els.map((el) => el.getAttribute('aria-label') ?? ''));
    await list.getByRole('checkbox').nth(names.length - 2).focus();
    await page.keyboard.press('Tab');
    await expect.poll(focused).toBe(`input:${names.at(-1)}`);
    await page.keyboard.press('Tab');
    await expect.poll(focused).toBe(`input:${names.at(-1)}`);
    await expect.poll(() => status().innerText()).toContain('Last task.');
    await page.keyboard.press('Shift+Tab');
    await expect.poll(focused).toBe(`input:${names.at(-2)}`);
    const first = list.getByRole('checkbox').first();
    const [ticked, next] = await list.getByRole('listitem').allInnerTexts();
    await first.focus();
    await page.keyboard.press('Space');
    // The ticked task leaves the list; the focus goes on to the one that took its place.
    await expect.poll(() => list.getByRole('listitem').first().innerText()).toBe(next);
    await expect.poll(focused).toBe(`input:${next}`);
    await expect.poll(() => status().innerText()).toContain(`Completed: ${ticked}`);
    expect(await taskStatus(ticked!)).toBe('done');
  }, 30_000);

  it('Undo hands the focus to the new Redo, Redo back to Undo, each said in the status region', async () => {
    await page.keyboard.press('Alt+8');
    await expect.poll(focused).toBe('h1:Actions');
    const log = page.getByRole('list', { name: 'Action log' });
    const undo = log.getByRole('button', { name: /^Undo: Completed/ }).first();
    const summary = (await undo.getAttribute('aria-label'))!.replace(/^Undo: /, '');
    await undo.focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe(`button:Redo: ${summary}`);
    await expect.poll(() => status().innerText()).toContain(`Undid: ${summary}`);
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe(`button:Undo: ${summary}`);
    await expect.poll(() => status().innerText()).toContain(`Redid: ${summary}`);
  }, 30_000);

  it('a view opened by shortcut from a field puts the focus on its start, never on the page body', async () => {
    await page.keyboard.press('Alt+6');
    const field = page.getByRole('textbox', { name: 'New project name' });
    await field.focus();
    await page.keyboard.type('half a name');
    for (const [key, target] of [
      ['Alt+7', 'h1:Lists'],
      ['Alt+9', 'h1:Settings'],
      ['Alt+1', 'textarea:Message'],
      ['Alt+2', 'h1:Inbox'],
    ] as const) {
      await page.keyboard.press(key);
      await expect.poll(focused).toBe(target);
    }
  }, 30_000);

  it('renaming a conversation puts the focus on the renamed one; Esc goes back to the menu', async () => {
    await page.keyboard.press('Alt+1');
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^complete Buy milk/ }).click();
    const menu = page.getByRole('button', { name: 'Conversation actions' });
    await menu.focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('menuitem:Rename');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('input:Conversation title');
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('button:Conversation actions');
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('menuitem:Rename');
    await page.keyboard.press('Enter');
    await page.keyboard.type('Milk and lists');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toMatch(/^button:Milk and lists/);
  }, 30_000);

  it('the help dialog makes the page inert and gives the focus back however it closes', async () => {
    const opener = page.getByRole('button', { name: 'Keyboard shortcuts' });
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    for (const close of ['Escape', 'backdrop', 'Close'] as const) {
      await opener.focus();
      await page.keyboard.press('Enter');
      await visible(dialog);
      await expect.poll(focused).toBe('button:Close');
      // Tab stays in the dialog; the page behind is out of reach.
      await page.keyboard.press('Tab');
      expect(await focused()).toBe('button:Close');
      expect(await page.locator('.shell').getAttribute('inert')).not.toBeNull();
      if (close === 'Escape') await page.keyboard.press('Escape');
      else if (close === 'Close') await page.keyboard.press('Enter');
      else await page.mouse.click(5, 5);
      await expect.poll(() => dialog.count()).toBe(0);
      await expect.poll(focused).toBe('button:Keyboard shortcuts');
      expect(await page.locator('.shell').getAttribute('inert')).toBeNull();
    }
  }, 30_000);

  it('a skip link leads to the main content; F6 goes round navigation, list, main part and trace', async () => {
    await page.keyboard.press('Alt+1');
    await page.reload();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('a:Skip to main content');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('textarea:Message');
    const round: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('F6');
      round.push(await focused());
    }
    expect(round).toEqual(['h2:Trace', 'button:Chat', expect.stringMatching(/^button:/), 'textarea:Message']);
    // The list area holds the open conversation (or "New" when none is open).
    expect(round[2]).toMatch(/^button:(New conversation|Milk and lists)/);
    await page.keyboard.press('Shift+F6');
    expect(await focused()).toBe(round[2]);
  }, 30_000);

  it('quick capture keeps the focus in its box after a send', async () => {
    const { page: small } = await openPage(browser, `${served.url}#/capture`, { viewport: { width: 560, height: 132 } });
    const box = small.getByRole('textbox', { name: 'Quick capture' });
    await box.fill('Water the plants');
    await box.press('Enter');
    await visible(small.getByText('Added to the inbox: Water the plants'));
    expect(await small.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Quick capture');
    await small.keyboard.type('Feed the cat');
    expect(await box.inputValue()).toBe('Feed the cat');
    await small.context().close();
  }, 30_000);
});

describe('the help lists every key', () => {
  it('? shows the Calendar’s and the task list’s keys, and the keys it shows work in the Calendar', async () => {
    await page.keyboard.press('Alt+5');
    await page.getByRole('heading', { name: 'Calendar', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'Calendar', level: 1 }).focus();
    await page.keyboard.press('?');
    const dialog = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await visible(dialog);
    /** A section's rows as "keys = what", read from its <dt> and <dd>. */
    const section = async (name: string) => {
      const region = dialog.getByRole('region', { name });
      await visible(region);
      return region.locator('dt').evaluateAll((dts) => dts.map((dt) => `${(dt.textContent ?? '').replace(/\s+/g, ' ')} = ${dt.nextElementSibling?.textContent ?? ''}`));
    };
    expect(await section('In the calendar')).toEqual([
      '←, Page Up = Previous week or day',
      '→, Page Down = Next week or day',
      'T = Go to today',
      'W = Show a week',
      'D = Show a day',
      'Esc = Close the event’s details',
      'N = Go to the next event (after the shown week or day)',
      'P = Go to the previous event (before the shown week or day)',
    ]);
    expect(await section('In a task list')).toEqual(
      expect.arrayContaining(['↓, J = Next task', 'Home = First task', 'X, Space = Complete the task (or reopen a done one)', 'R = Edit how it repeats', 'M = Move it to a project', 'Alt + ↑ = In a project: move the task up']),
    );
    expect(await section('In the task editor')).toContain('Esc = Leave the editor without saving');
    await dialog.getByRole('region', { name: 'In the calendar' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'keyboard-help-sections');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
    // D and W, as the help says, switch the Calendar between a day and a week.
    await page.getByRole('heading', { name: 'Calendar', level: 1 }).focus();
    await page.keyboard.press('d');
    await expect.poll(() => page.getByRole('button', { name: 'Day', exact: true }).getAttribute('aria-pressed')).toBe('true');
    await page.keyboard.press('w');
    await expect.poll(() => page.getByRole('button', { name: 'Week', exact: true }).getAttribute('aria-pressed')).toBe('true');
  }, 30_000);
});

describe('at 200% zoom (640×400 CSS pixels)', () => {
  /** Whether the page as a whole scrolls, and any control cut off or pushed out of the window. */
  const layoutProblems = () =>
    page.evaluate(`(() => {
      const problems = [];
      const root = document.scrollingElement;
      if (root.scrollHeight > innerHeight + 1 || root.scrollWidth > innerWidth + 1) problems.push('the page scrolls: ' + root.scrollWidth + 'x' + root.scrollHeight);
      for (const el of document.querySelectorAll('button, input, select, textarea, a[href]')) {
        const r = el.getBoundingClientRect();
        if (r.width === 0 || el.closest('.visually-hidden, [hidden], .skip-link')) continue;
        const name = el.getAttribute('aria-label') || el.textContent.trim() || el.tagName;
        if (r.left < -1 || r.right > innerWidth + 1) problems.push('outside the window: ' + name);
        if (el.tagName === 'BUTTON' && el.scrollWidth > el.clientWidth + 1) problems.push('clipped: ' + name);
      }
      return problems;
    })()`) as Promise<string[]>;
  const width = (l: Locator) => l.evaluate((el) => el.getBoundingClientRect().width);

  beforeAll(async () => {
    await page.setViewportSize({ width: WINDOW.width / 2, height: WINDOW.height / 2 });
  });
  afterAll(async () => {
    await page.setViewportSize(WINDOW);
  });

  it('keeps the message box at least 200 px wide, the trace an overlay opened on demand, nothing clipped', async () => {
    await page.keyboard.press('Alt+1');
    await expect.poll(focused).toBe('textarea:Message');
    expect(await width(composer())).toBeGreaterThanOrEqual(200);
    expect(await page.getByRole('complementary', { name: 'Trace' }).count()).toBe(0);
    expect((await layoutProblems()).join('; ')).toBe('');
    // Alt+T opens the trace over the conversation and gives it the focus; Esc closes it and gives the focus back.
    await page.keyboard.press('Alt+T');
    await expect.poll(focused).toBe('h2:Trace');
    expect(await width(composer())).toBeGreaterThanOrEqual(200);
    await screenshot(page, 'keyboard-200-trace-overlay');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('complementary', { name: 'Trace' }).count()).toBe(0);
    await expect.poll(focused).toBe('textarea:Message');
  }, 30_000);

  it('keeps every Settings field at least 120 px wide and nothing clipped', async () => {
    await page.keyboard.press('Alt+9');
    await visible(page.getByRole('textbox', { name: 'Endpoint (base URL)' }));
    const narrow = await page
      .getByRole('main')
      .locator('input:not([type=checkbox]), select, textarea')
      .evaluateAll((els) => els.map((el) => ({ name: el.getAttribute('aria-label') ?? el.id, width: Math.round(el.getBoundingClientRect().width) })).filter((f) => f.width < 120));
    expect(narrow).toEqual([]);
    expect(await layoutProblems()).toEqual([]);
  }, 30_000);

  it('shows every view without clipping or scrolling the page', async () => {
    for (const key of ['Alt+2', 'Alt+3', 'Alt+4', 'Alt+5', 'Alt+6', 'Alt+7', 'Alt+8']) {
      await page.keyboard.press(key);
      await page.getByRole('main').getByRole('heading', { level: 1 }).waitFor();
      await page.waitForTimeout(100);
      expect(await layoutProblems(), key).toEqual([]);
    }
    // Actions (Alt+6): the request titles and summaries keep room to be read.
    const titles = await page.locator('.log-group .title, .log-entry .summary').evaluateAll((els) => els.map((el) => el.getBoundingClientRect().width));
    expect(Math.min(...titles)).toBeGreaterThanOrEqual(100);
  }, 30_000);
});
