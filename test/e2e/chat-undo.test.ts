// End to end, in Chromium through `tidy serve` with the fake model: what an answer changed, under it, with
// Undo all and Redo; Redo request and the window's redo keys (Ctrl+Z, Ctrl+Shift+Z, Ctrl+Y); refusal
// cards that offer what they recommend; an Actions list that does not move under the pointer; the trace
// and approvals in words; the trace with the chat unless pinned; the conversation menu with Archive; 800 px.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAI, FakeToolCall } from '../fakes/openai-server';
import { tidyIn } from '../support/cli-inproc';
import { screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';

const SEED: Record<string, string[]> = {
  'PyData Amsterdam': ['Finish presentation for PyData Amsterdam', "Don't forget laptop with presentation", 'Make demo video for Pydata Amsterdam'],
  'Birthday Celebration': ['Bake the birthday cake', 'Buy birthday balloons', 'Buy milk birthday cake', 'Buy sugar for the birthday cake'],
  'Personal Website': ['Migrate personal website server from python 3.10 to 3.11', 'Setup version control for personal website'],
};
const PROJECTS = Object.keys(SEED);
const REQUEST = 'Get all tasks in my inbox and group related ones. Create a project for each group if none fits, then move every task to its project so the inbox is empty.';
const SUMMARY = 'Created 3 projects · moved 9 tasks';

let stage: Stage | undefined;
let page: Page;
let fake: FakeOpenAI;
let dbPath = '';
let ids: Map<string, string>;
let consoleProblems: string[] = [];

beforeAll(async () => {
  stage = await startStage('chat-undo', { page: { viewport: { width: 1360, height: 820 }, timeout: 10_000 } });
  ({ fake, dbPath, page, problems: consoleProblems, ids } = stage);
}, 120_000);

afterAll(() => stage?.close());

const shot = (name: string) => screenshot(page, name);
const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const composer = () => page.getByRole('textbox', { name: 'Message' });
const trace = () => page.getByRole('complementary', { name: 'Trace' });
const traceSteps = () => trace().getByRole('list', { name: 'Trace steps' }).getByRole('listitem');
const lastAnswer = () => page.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Tidy' }).last();
const changes = () => lastAnswer().getByRole('region', { name: 'Changes' });
const status = () => page.locator('[role=status][aria-live=polite]');
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const call = (name: string, args: Record<string, unknown> = {}): FakeToolCall => ({ name, arguments: args });
const inbox = async (): Promise<string[]> => (JSON.parse((await tidyIn(dbPath, ['tasks', '--inbox', '--json'])).stdout) as { content: string }[]).map((t) => t.content);
/** Where an element is on screen (its top), to see that it does not move. */
const top = async (l: Locator): Promise<number> => (await l.boundingBox())!.y;

async function send(text: string): Promise<void> {
  await nav('Chat').click();
  await composer().fill(text);
  await composer().press('Enter');
}

/** Presses keys with the focus on the view's heading: outside a text field, where Ctrl+Z is the app's. */
async function pressOutsideFields(keys: string): Promise<void> {
  await page.locator('main [data-view-heading]').focus();
  await page.keyboard.press(keys);
}

describe('undo where you are', () => {
  it('clears the seed inbox and says under the answer what changed, with Undo all and Redo working from the chat', async () => {
    fake.enqueue(
      { text: 'Let me read your inbox first.', toolCalls: [call('get_inbox_tasks')] },
      { toolCalls: [call('get_all_projects')] },
      { text: 'Three groups; I create their projects.', toolCalls: PROJECTS.map((name) => call('create_project', { name })) },
      { toolCalls: Object.entries(SEED).flatMap(([project, tasks]) => tasks.map((t) => call('move_task', { task_id: ids.get(t)!, project_id: project }))) },
      { text: 'Done: your inbox is empty. I created three projects and moved all nine tasks into them.' },
    );
    await send(REQUEST);
    await visible(lastAnswer().getByText(/Done: your inbox is empty/));
    await expect.poll(() => changes().count()).toBe(1);
    await expect.poll(() => changes().innerText()).toContain(SUMMARY);
    // The summary comes after the answer it belongs to.
    const order = await lastAnswer().evaluate(
      (el) => el.querySelector('.md, .markdown, p')!.compareDocumentPosition(el.querySelector('[aria-label="Changes"]')!) & 4 /* DOCUMENT_POSITION_FOLLOWING */,
    );
    expect(order).toBeTruthy();
    expect(await inbox()).toEqual([]);
    await shot('chat-undo-summary');

    // Expandable to the list of changes, each with its own Undo.
    await changes().getByText(SUMMARY).click();
    const list = changes().getByRole('list', { name: 'Changes, newest first' });
    await expect.poll(() => list.getByRole('listitem').count()).toBe(12);
    expect(await list.getByRole('button', { name: /^Undo: / }).count()).toBe(12);
    await shot('chat-undo-summary-open');

    await changes().getByRole('button', { name: 'Undo all changes' }).click();
    await visible(changes().getByText('Undone', { exact: true }).first());
    await expect.poll(async () => (await inbox()).length).toBe(9);
    await expect.poll(() => status().innerText()).toContain('Undid 12 changes');
    expect(await changes().getByRole('button', { name: 'Undo all changes' }).count()).toBe(0);
    // Undo all hands the focus to Redo, and Redo puts everything back.
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Redo');
    await shot('chat-undo-undone');
    await changes().getByRole('button', { name: 'Redo all changes' }).click();
    await expect.poll(() => inbox()).toEqual([]);
    await expect.poll(() => status().innerText()).toContain('Redid 12 changes');
    await visible(changes().getByRole('button', { name: 'Undo all changes' }));

    // One change on its own: the summary says how many are undone; Redo brings it back.
    const moved = "Moved 'Bake the birthday cake' to Birthday Celebration";
    await list.getByRole('button', { name: `Undo: ${moved}` }).click();
    await visible(list.getByRole('button', { name: `Redo: ${moved}` }));
    await expect.poll(() => changes().innerText()).toContain('1 undone');
    expect(await inbox()).toEqual(['Bake the birthday cake']);
    await list.getByRole('button', { name: `Redo: ${moved}` }).click();
    await expect.poll(() => inbox()).toEqual([]);
    expect(consoleProblems).toEqual([]);
  }, 60_000);

  it('shows the trace in words: names instead of ids, JSON only on demand', async () => {
    const bake = ids.get('Bake the birthday cake')!;
    const step = traceSteps().filter({ hasText: /^Move task/ }).filter({ hasText: 'Bake the birthday cake' });
    await visible(step);
    expect(await step.innerText()).toContain('Birthday Celebration');
    expect(await step.innerText()).not.toContain(bake);
    const json = step.getByText('JSON', { exact: true });
    expect(await step.locator('pre').count()).toBe(0);
    await json.click();
    await expect.poll(() => step.locator('pre').innerText()).toContain(bake);
    // A read's result is a sentence about what it found.
    await visible(traceSteps().filter({ hasText: /^Result\s*Get inbox tasks/ }).filter({ hasText: '9 tasks: Finish presentation for PyData Amsterdam' }));
    await shot('chat-undo-trace-words');
  }, 30_000);

  it('keeps the Actions list still under the pointer, with Redo request beside an undone request', async () => {
    await nav('Actions').click();
    const log = page.getByRole('list', { name: 'Action log' });
    const first = "Moved 'Setup version control for personal website' to Personal Website";
    const second = "Moved 'Migrate personal website server from python 3.10 to 3.11' to Personal Website";
    const undoFirst = log.getByRole('button', { name: `Undo: ${first}` });
    const undoSecond = log.getByRole('button', { name: `Undo: ${second}` });
    await visible(undoFirst);
    const [y1, y2] = [await top(undoFirst), await top(undoSecond)];
    await undoFirst.click();
    const redoFirst = log.getByRole('button', { name: `Redo: ${first}` });
    await visible(redoFirst);
    // No row was added above: what was under the pointer is still there, and the next Undo too.
    expect(await top(redoFirst)).toBe(y1);
    expect(await top(undoSecond)).toBe(y2);
    await undoSecond.click();
    await visible(log.getByRole('button', { name: `Redo: ${second}` }));
    await redoFirst.click();
    await log.getByRole('button', { name: `Redo: ${second}` }).click();
    await expect.poll(() => inbox()).toEqual([]);

    const request = `“${REQUEST}”`;
    await log.getByRole('button', { name: `Undo request: ${request}` }).click();
    const redoRequest = log.getByRole('button', { name: `Redo request: ${request}` });
    await visible(redoRequest);
    await expect.poll(async () => (await inbox()).length).toBe(9);
    await shot('chat-undo-actions-redo-request');
    await redoRequest.click();
    await expect.poll(() => inbox()).toEqual([]);
    await visible(log.getByRole('button', { name: `Undo request: ${request}` }));
  }, 40_000);

  it('Ctrl+Z undoes the last request, Ctrl+Shift+Z and Ctrl+Y redo it (never an older capture), in every view', async () => {
    await nav('Inbox').click();
    await pressOutsideFields('Control+z');
    await expect.poll(async () => (await inbox()).length).toBe(9);
    await expect.poll(() => status().innerText()).toContain('Undid 12 changes');
    // Redo brings back the request Ctrl+Z took back, not the undo of an older hand-made change.
    await pressOutsideFields('Control+Shift+z');
    await expect.poll(() => inbox()).toEqual([]);
    await expect.poll(() => status().innerText()).toContain('Redid 12 changes');
    expect(JSON.parse((await tidyIn(dbPath, ['tasks', '--all', '--json'])).stdout)).toHaveLength(9);

    await nav('Projects').click();
    await pressOutsideFields('Control+z');
    await expect.poll(async () => (await inbox()).length).toBe(9);
    await pressOutsideFields('Control+y');
    await expect.poll(() => inbox()).toEqual([]);
    // Nothing left to redo: said so, nothing changes.
    await pressOutsideFields('Control+y');
    await expect.poll(() => page.getByText(/There is nothing to redo/).count()).toBeGreaterThan(0);
    expect(await inbox()).toEqual([]);
    // In a text field the keys are the field's own.
    await nav('Chat').click();
    await composer().fill('typing');
    await composer().press('Control+z');
    expect(await inbox()).toEqual([]);
    await composer().fill('');
  }, 40_000);

  it('offers on every refusal card the action it recommends, for undo and for redo', async () => {
    await nav('Chat').click();
    const list = changes().getByRole('list', { name: 'Changes, newest first' });
    if (!(await list.isVisible())) await changes().getByText(SUMMARY).click();
    await list.getByRole('button', { name: "Undo: Created project 'Birthday Celebration'" }).click();
    const refusal = changes().getByRole('alert').filter({ hasText: "Can't undo this yet" });
    await visible(refusal);
    expect(await refusal.innerText()).toContain('"Undo with later changes"');
    await shot('chat-undo-refusal');
    await refusal.getByRole('button', { name: 'Undo with later changes' }).click();
    await expect.poll(async () => (await inbox()).length).toBe(4);

    // A redo blocked by a later edit by hand: the card says redo, and its button does what it says.
    const sugar = ids.get('Buy sugar for the birthday cake')!;
    expect((await tidyIn(dbPath, ['edit', sugar, '--content', 'Buy brown sugar for the birthday cake'])).code).toBe(0);
    await list.getByRole('button', { name: "Redo: Created project 'Birthday Celebration'" }).click();
    await visible(list.getByRole('button', { name: "Undo: Created project 'Birthday Celebration'" }));
    const moveSugar = "Moved 'Buy sugar for the birthday cake' to Birthday Celebration";
    await list.getByRole('button', { name: `Redo: ${moveSugar}` }).click();
    const redoRefusal = changes().getByRole('alert').filter({ hasText: "Can't redo this yet" });
    await visible(redoRefusal);
    expect(await redoRefusal.innerText()).toContain('"Redo, undoing later changes"');
    expect(await redoRefusal.innerText()).toContain("Updated 'Buy sugar for the birthday cake'");
    await shot('chat-undo-redo-refusal');
    await redoRefusal.getByRole('button', { name: 'Redo, undoing later changes' }).click();
    await visible(list.getByRole('button', { name: `Undo: ${moveSugar}` }));
    expect((await inbox()).sort()).toEqual(['Bake the birthday cake', 'Buy birthday balloons', 'Buy milk birthday cake']);
    await changes().getByRole('button', { name: 'Redo all changes' }).click();
    await expect.poll(() => inbox()).toEqual([]);
    expect(JSON.parse((await tidyIn(dbPath, ['tasks', '--all', '--json'])).stdout).map((t: { content: string }) => t.content)).toContain('Buy sugar for the birthday cake');
  }, 40_000);

  it('puts an approval card, in words, before the answer it leads to', async () => {
    await page.getByRole('button', { name: 'New conversation' }).click();
    const cake = ids.get('Bake the birthday cake')!;
    fake.enqueue({ toolCalls: [call('complete_task', { task_id: cake })] }, { text: 'Completed the cake.' });
    await send('Complete the cake task');
    const card = page.getByRole('group', { name: 'Approval needed: Complete task' });
    await visible(card);
    expect(await card.innerText()).toContain('Bake the birthday cake');
    // In words: the task's id gives way to its name once the names are looked up (it is in no view loaded yet).
    await expect.poll(() => card.innerText()).not.toContain(cake);
    await card.getByRole('button', { name: 'Approve' }).click();
    await visible(lastAnswer().getByText('Completed the cake.'));
    // The card, then the answer's paragraph (polled: the answer may still be arriving).
    const order = () =>
      lastAnswer().evaluate((el) => {
        const cardEl = el.querySelector('.approval');
        const answer = [...el.querySelectorAll('p')].find((p) => p.textContent === 'Completed the cake.');
        return cardEl && answer ? Boolean(cardEl.compareDocumentPosition(answer) & 4 /* DOCUMENT_POSITION_FOLLOWING */) : null;
      });
    await expect.poll(order).toBe(true);
    await visible(changes().getByText('Completed 1 task'));
    await shot('chat-undo-approval-first');
  }, 30_000);

  it('keeps the trace with the chat unless pinned', async () => {
    await visible(trace());
    await nav(/^Inbox/).click();
    expect(await trace().count()).toBe(0);
    await nav('Chat').click();
    await trace().getByRole('button', { name: /^Pin/ }).click();
    await nav(/^Inbox/).click();
    await visible(trace());
    expect(await trace().getByRole('button', { name: /^Pinned/ }).getAttribute('aria-pressed')).toBe('true');
    await trace().getByRole('button', { name: /^Pinned/ }).click();
    expect(await trace().count()).toBe(0);
    await nav('Chat').click();
    await visible(trace());
  }, 30_000);

  it('gives the title the header, with rename, export and archive in a menu', async () => {
    const conversations = page.getByRole('navigation', { name: 'Conversations' });
    await conversations.getByRole('button').filter({ hasText: 'Get all tasks in my inbox' }).click();
    const heading = page.getByRole('heading', { level: 1 });
    await expect.poll(() => heading.innerText()).toContain('Get all tasks');
    const header = page.locator('.thread .view-head');
    // The title takes the header, less the one menu button.
    expect((await heading.boundingBox())!.width).toBeGreaterThan((await header.boundingBox())!.width - 90);
    const menuButton = page.getByRole('button', { name: 'Conversation actions' });
    await menuButton.click();
    const menu = page.getByRole('menu', { name: 'Conversation actions' });
    expect(await menu.getByRole('menuitem').allInnerTexts()).toEqual(['Rename', 'Export Markdown', 'Export JSON', 'Archive conversation']);
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Rename');
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => page.evaluate('document.activeElement?.textContent')).toBe('Archive conversation');
    await shot('chat-undo-menu');
    await page.keyboard.press('Escape');
    expect(await menu.count()).toBe(0);
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Conversation actions');

    await menuButton.click();
    await menu.getByRole('menuitem', { name: 'Archive conversation' }).click();
    await visible(page.getByRole('heading', { name: 'New conversation', level: 1 }));
    await expect.poll(() => conversations.getByRole('button').filter({ hasText: 'Get all tasks in my inbox' }).count()).toBe(0);
    await conversations.getByRole('button', { name: 'Show archived' }).click();
    await conversations.getByRole('button').filter({ hasText: 'Get all tasks in my inbox' }).click();
    await visible(page.getByRole('note').filter({ hasText: 'This conversation is archived' }));
    await menuButton.click();
    await menu.getByRole('menuitem', { name: 'Unarchive conversation' }).click();
    await conversations.getByRole('button', { name: 'Back to conversations' }).click();
    await visible(conversations.getByRole('button').filter({ hasText: 'Get all tasks in my inbox' }));
  }, 30_000);

  it('looks right in dark mode', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button').filter({ hasText: 'Get all tasks in my inbox' }).click();
    await visible(changes());
    const list = changes().getByRole('list', { name: 'Changes, newest first' });
    if (!(await list.isVisible())) await changes().getByText(SUMMARY).click();
    await shot('chat-undo-dark');
    await page.emulateMedia({ colorScheme: 'light' });
  }, 30_000);

  it('keeps the composer and the settings fields usable at 800 px', async () => {
    await page.setViewportSize({ width: 800, height: 700 });
    await nav('Chat').click();
    const box = (await composer().boundingBox())!;
    expect(box.width).toBeGreaterThanOrEqual(300);
    expect(box.x + box.width).toBeLessThanOrEqual(800);
    const heading = page.getByRole('heading', { level: 1 });
    expect((await heading.boundingBox())!.width).toBeGreaterThanOrEqual(200);
    // A notice (here: a conversation archived) never covers the message box.
    await page.getByRole('button', { name: 'Conversation actions' }).click();
    await page.getByRole('menuitem', { name: 'Archive conversation' }).click();
    const notice = page.locator('.notice').filter({ hasText: 'Archived the conversation' }).last();
    await visible(notice);
    const nb = (await notice.boundingBox())!;
    const c = (await composer().boundingBox())!;
    expect(nb.y + nb.height).toBeLessThanOrEqual(c.y);
    await shot('chat-undo-800');
    const conversations = page.getByRole('navigation', { name: 'Conversations' });
    await conversations.getByRole('button', { name: 'Show archived' }).click();
    await conversations.getByRole('button').filter({ hasText: 'Get all tasks in my inbox' }).click();
    await page.getByRole('button', { name: 'Conversation actions' }).click();
    await page.getByRole('menuitem', { name: 'Unarchive conversation' }).click();
    await conversations.getByRole('button', { name: 'Back to conversations' }).click();
    await nav('Settings').click();
    const fields = page.locator('main').locator('input:not([type=checkbox]), select');
    await visible(fields.first());
    const n = await fields.count();
    expect(n).toBeGreaterThan(0);
    for (let i = 0; i < n; i++) {
      const f = (await fields.nth(i).boundingBox())!;
      if (!f) continue;
      expect(f.width).toBeGreaterThanOrEqual(100);
      expect(f.x + f.width).toBeLessThanOrEqual(800);
    }
    await shot('chat-undo-800-settings');
    await page.setViewportSize({ width: 1360, height: 820 });
  }, 30_000);
});
