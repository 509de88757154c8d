// End to end: the real UI in Debian's Chromium, through `tidy serve`, with the fake OpenAI-compatible
// server as the model. The seed inbox scenario (seed 001: nine inbox tasks → Birthday Celebration,
// Personal Website, PyData Amsterdam), the live trace, undo from the Actions panel, approvals, cancel,
// an error state, settings and quick capture. Elements are found by role and accessible name.
import { readFileSync } from 'node:fs';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SEED_INBOX } from '../support/agent';
import { fakeError, type FakeOpenAI, type FakeReply, type FakeToolCall } from '../fakes/openai-server';
import { tidy } from '../support/cli';
import { inKeyringSession } from '../support/keyring';
import { screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';
import type { Served } from '../support/serve';

/** Seed 001's inbox, by the project each task belongs in. */
const SEED: Record<string, string[]> = {
  'PyData Amsterdam': ['Finish presentation for PyData Amsterdam', "Don't forget laptop with presentation", 'Make demo video for Pydata Amsterdam'],
  'Birthday Celebration': ['Bake the birthday cake', 'Buy birthday balloons', 'Buy milk birthday cake', 'Buy sugar for the birthday cake'],
  'Personal Website': ['Migrate personal website server from python 3.10 to 3.11', 'Setup version control for personal website'],
};
const PROJECTS = Object.keys(SEED);
// The grouping covers exactly seed 001's inbox.
if ([...Object.values(SEED).flat()].sort().join('|') !== [...SEED_INBOX].sort().join('|')) throw new Error('SEED does not match SEED_INBOX');
const ALL_TASKS = Object.values(SEED).flat();
const REQUEST =
  'Get all tasks in my inbox and group related ones. Create a project for each group if none fits, then move every task to its project so the inbox is empty.';

let stage: Stage | undefined;
let context: BrowserContext;
let page: Page;
let served: Served;
let fake: FakeOpenAI;
let dbPath = '';
/** Task ids by content, as seeded. */
let ids: Map<string, string>;
/** Answers model requests when the queue is empty (a reply held back until the test lets it go). */
let whenEmpty: (() => Promise<FakeReply | undefined>) | undefined;
let consoleProblems: string[] = [];

beforeAll(async () => {
  stage = await startStage('ui', { fake: { handler: () => whenEmpty?.() }, page: { viewport: { width: 1360, height: 820 }, timeout: 10_000 } });
  ({ fake, dbPath, served, context, page, problems: consoleProblems, ids } = stage);
}, 120_000);

afterAll(() => stage?.close());

const shot = (name: string, p: Page = page) => screenshot(p, name);
const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const composer = () => page.getByRole('textbox', { name: 'Message' });
const trace = () => page.getByRole('complementary', { name: 'Trace' });
const traceSteps = () => trace().getByRole('list', { name: 'Trace steps' }).getByRole('listitem');
const lastAnswer = () => page.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Tidy' }).last();
const inboxItems = () => page.getByRole('list', { name: 'Inbox tasks' }).getByRole('listitem');

const call = (name: string, args: Record<string, unknown> = {}): FakeToolCall => ({ name, arguments: args });

async function send(text: string): Promise<void> {
  await nav('Chat').click();
  await composer().fill(text);
  await composer().press('Enter');
}

async function newConversation(): Promise<void> {
  await nav('Chat').click();
  await page.getByRole('button', { name: 'New conversation' }).click();
  await page.getByRole('heading', { name: 'New conversation' }).waitFor();
}

/** Inbox task texts, once the view shows the list (or says it is empty). */
async function inboxTexts(): Promise<string[]> {
  await nav(/^Inbox/).click();
  await page.getByRole('list', { name: 'Inbox tasks' }).or(page.getByText('The inbox is empty')).first().waitFor();
  return inboxItems().allInnerTexts();
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

const visible = (l: Locator) => l.waitFor({ state: 'visible' });

describe('the UI in Chromium through tidy serve', () => {
  it('clears the seed inbox into three projects, with the trace live and the views following', async () => {
    const moves = deferred();
    fake.enqueue(
      { text: 'Let me read your inbox first.', toolCalls: [call('get_inbox_tasks')] },
      { toolCalls: [call('get_all_projects')] },
      {
        text: 'Three groups: the birthday, the personal website and PyData Amsterdam. None of these projects exists, so I create them.',
        toolCalls: PROJECTS.map((name) => call('create_project', { name })),
      },
    );
    // The moves wait until the test has seen the run half way: projects made, inbox still full.
    let asked = 0;
    whenEmpty = async () => {
      asked++;
      if (asked === 1) {
        await moves.promise;
        return { toolCalls: Object.entries(SEED).flatMap(([project, tasks]) => tasks.map((t) => call('move_task', { task_id: ids.get(t)!, project_id: project }))) };
      }
      return { text: 'Done: your inbox is empty. I created Birthday Celebration, Personal Website and PyData Amsterdam and moved all nine tasks into them.', chunkDelayMs: 5 };
    };

    await send(REQUEST);
    // The message shows at once; the trace follows the run live.
    await visible(page.getByRole('log', { name: 'Messages' }).getByText(REQUEST));
    await visible(traceSteps().filter({ hasText: /^Create project/ }).nth(2));
    await visible(traceSteps().filter({ hasText: 'Three groups' }).first());
    expect(await traceSteps().filter({ hasText: /^Get inbox tasks/ }).count()).toBe(1);
    expect(await trace().getByLabel('Run summary').innerText()).toMatch(/Running/);
    await expect.poll(() => page.getByRole('button', { name: 'Stop' }).count()).toBe(1);
    await shot('chat-running-trace');

    // Half way: the projects exist (live, no reload) and the inbox is still full.
    await nav('Projects').click();
    for (const name of PROJECTS) await visible(page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: new RegExp(`^${name}`) }));
    expect(await inboxTexts()).toHaveLength(9);
    await nav('Chat').click();

    moves.resolve();
    await visible(lastAnswer().getByText(/Done: your inbox is empty/));
    await visible(traceSteps().filter({ hasText: 'Finished: Done' }));
    expect(await traceSteps().filter({ hasText: /^Move task/ }).count()).toBe(9);
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    expect(await trace().getByLabel('Run summary').innerText()).toMatch(/\d+ tokens/);
    await shot('chat-done');

    await expect.poll(inboxTexts).toEqual([]);
    await shot('inbox-empty');
    await nav('Projects').click();
    await page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: /^Birthday Celebration/ }).click();
    const inProject = page.getByRole('list', { name: 'Tasks in Birthday Celebration' }).getByRole('listitem');
    await expect.poll(() => inProject.allInnerTexts()).toEqual(SEED['Birthday Celebration']);
    await shot('projects');
    expect(asked).toBe(2);
    whenEmpty = undefined;
  }, 60_000);

  it('undoes one action, explains a conflict, then undoes the whole request from the Actions panel', async () => {
    await nav('Actions').click();
    const log = page.getByRole('list', { name: 'Action log' });
    const moved = "Moved 'Bake the birthday cake' to Birthday Celebration";
    // The request is named by what the user asked (actions.list carries it).
    await visible(log.getByText(`“${REQUEST}”`));
    await log.getByRole('button', { name: `Undo: ${moved}` }).click();
    await visible(log.getByRole('button', { name: `Redo: ${moved}` }));
    await expect.poll(inboxTexts).toEqual(['Bake the birthday cake']);

    // The project cannot go while tasks are in it: the refusal names the later changes and offers the way out.
    await nav('Actions').click();
    await log.getByRole('button', { name: "Undo: Created project 'Birthday Celebration'" }).click();
    const alert = log.getByRole('alert').filter({ hasText: "Can't undo this yet" });
    await visible(alert);
    expect(await alert.innerText()).toMatch(/Later changes touched the same data: .*Moved 'Buy/);
    await visible(alert.getByRole('button', { name: 'Undo with later changes' }));
    await shot('actions-conflict');
    await alert.getByRole('button', { name: 'Dismiss' }).click();

    await log.getByRole('button', { name: `Undo request: “${REQUEST}”` }).click();
    await expect.poll(async () => (await inboxTexts()).sort()).toEqual([...ALL_TASKS].sort());
    await nav('Projects').click();
    await visible(page.getByText('No projects yet'));
    await nav('Actions').click();
    // Every change of the request now shows as undone, with Redo.
    await expect.poll(() => log.getByRole('button', { name: /^Undo: (Moved|Created)/ }).count()).toBe(0);
    await visible(log.getByRole('button', { name: `Redo: ${moved}` }));
    await shot('actions-undone');
  }, 40_000);

  it('asks before completing tasks: one approved with the keyboard, one declined', async () => {
    await newConversation();
    fake.enqueue(
      { toolCalls: [call('complete_task', { task_id: ids.get('Bake the birthday cake')! })] },
      { toolCalls: [call('complete_task', { task_id: ids.get('Buy birthday balloons')! })] },
      { text: 'I completed the cake; you declined the balloons, so they stay open.' },
    );
    await send('Complete the cake and the balloons tasks');
    const card = page.getByRole('group', { name: 'Approval needed: Complete task' });
    await visible(card.getByText("Complete task 'Bake the birthday cake'?"));
    await shot('approval');
    // Approved on purpose with the keyboard, by its shortcut: the card never takes the focus from the message box.
    // (Page code as a string: the node tsconfig has no DOM types.)
    await expect.poll(() => page.evaluate('document.activeElement?.getAttribute("aria-label")')).toBe('Message');
    await page.keyboard.press('Alt+A');

    await visible(card.getByText("Complete task 'Buy birthday balloons'?"));
    await card.getByRole('button', { name: 'Decline' }).click();
    await visible(lastAnswer().getByText('you declined the balloons'));
    await visible(traceSteps().filter({ hasText: /^Declined/ }));
    await visible(traceSteps().filter({ hasText: 'Error, fed back to the model' }));

    const texts = await inboxTexts();
    expect(texts).toContain('Buy birthday balloons');
    expect(texts).not.toContain('Bake the birthday cake');
    // The model was told about the decline.
    const lastRequest = fake.chatRequests.at(-1)!.body!;
    expect(JSON.stringify(lastRequest.messages)).toContain('the user declined');
  }, 30_000);

  it('streams an answer as it arrives, and Esc stops the run', async () => {
    await newConversation();
    fake.enqueue({ fault: 'stall', turn: { text: 'Looking at your inbox now, one task after the other, to see what belongs together' }, afterEvents: 4 });
    await send('Sort my inbox');
    // Part of the answer is there while the run goes on.
    await expect.poll(async () => (await lastAnswer().innerText()).includes('Looking')).toBe(true);
    expect(await lastAnswer().getAttribute('aria-busy')).toBe('true');
    await visible(page.getByRole('button', { name: 'Stop' }));
    await composer().press('Escape');
    await visible(lastAnswer().getByText('Stopped', { exact: true }));
    expect(await lastAnswer().getAttribute('aria-busy')).toBe('false');
    expect(await page.getByRole('button', { name: 'Stop' }).count()).toBe(0);
    await visible(traceSteps().filter({ hasText: 'Finished: Stopped' }));
    await expect.poll(() => fake.chatRequests.at(-1)!.clientClosed).toBe(true);
  }, 30_000);

  it('says what to do when the endpoint wants a key', async () => {
    await newConversation();
    const requestsBefore = fake.chatRequests.length;
    fake.enqueue(fakeError(401, 'Incorrect API key provided: sk-bad', { code: 'invalid_api_key', type: 'invalid_request_error' }));
    // Shift+Enter is a new line, not a send.
    await composer().fill('What is in');
    await composer().press('Shift+Enter');
    await composer().pressSequentially('my inbox?');
    expect(await composer().inputValue()).toBe('What is in\nmy inbox?');
    expect(fake.chatRequests.length).toBe(requestsBefore);
    await composer().press('Enter');
    const alert = lastAnswer().getByRole('alert');
    // No key is stored for the profile, so the endpoint's 401 reads as a missing key.
    await visible(alert.getByText('No API key set'));
    expect(await alert.innerText()).toContain('Incorrect API key provided');
    expect(await alert.innerText()).toMatch(/Set a valid key/);
    await shot('chat-error');
    await alert.getByRole('button', { name: 'Open settings' }).click();
    await visible(page.getByRole('heading', { name: 'Settings', level: 1 }));
  }, 30_000);

  it('saves settings, refuses invalid values inline, tests the connection and never echoes the key', async () => {
    await nav('Settings').click();
    const config = (key: string) => tidy(dbPath, ['config', 'get', key]).stdout.trim();

    const endpoint = page.getByRole('textbox', { name: 'Endpoint (base URL)' });
    expect(await endpoint.inputValue()).toBe(fake.url);
    await page.getByRole('button', { name: 'Test connection' }).click();
    await visible(page.getByRole('status', { name: 'Connection test result' }).getByText(/Connected in \d+ ms/));

    await endpoint.fill('ftp://example.org');
    await endpoint.press('Enter');
    await visible(page.getByRole('alert').filter({ hasText: 'http(s) URL' }));
    expect(await endpoint.getAttribute('aria-invalid')).toBe('true');
    expect(config('baseUrl')).toBe(fake.url);

    const temperature = page.getByRole('spinbutton', { name: 'Temperature' });
    await temperature.fill('5');
    await temperature.press('Enter');
    await visible(page.getByRole('alert').filter({ hasText: 'must be from 0 to 2' }));
    expect(await temperature.getAttribute('aria-invalid')).toBe('true');
    const shortcut = page.getByRole('textbox', { name: 'Global shortcut' });
    await shortcut.fill('Space');
    await page.getByRole('button', { name: 'Save shortcut' }).click();
    await visible(page.getByRole('alert').filter({ hasText: 'needs a modifier' }));
    await temperature.scrollIntoViewIfNeeded();
    await shot('settings-invalid');
    expect(config('temperature')).toBe('0.2');

    await temperature.fill('0.7');
    await temperature.press('Enter');
    await expect.poll(() => config('temperature')).toBe('0.7');
    expect(await temperature.getAttribute('aria-invalid')).toBeNull();
    const maxActions = page.getByRole('spinbutton', { name: 'Max actions' });
    await maxActions.fill('30');
    await maxActions.press('Tab');
    await expect.poll(() => config('maxActions')).toBe('30');
    expect(await page.getByRole('slider', { name: 'Max actions' }).inputValue()).toBe('30');
    await page.getByRole('combobox', { name: 'Approval for Archive list item' }).selectOption('auto');
    await expect.poll(() => JSON.parse(config('approvals') || '{}') as Record<string, string>).toMatchObject({ archive_list_item: 'auto' });
    // Back to the stored endpoint: nothing to save, and the error goes.
    await endpoint.fill(fake.url);
    await endpoint.press('Tab');
    await expect.poll(() => endpoint.getAttribute('aria-invalid')).toBeNull();

    // The key goes in and never comes back: once saved the field empties, and only "a key is set" shows.
    // A key the keychain refused stays in the (masked) field, never silently cleared.
    const key = page.getByLabel('API key', { exact: true });
    expect(await key.getAttribute('type')).toBe('password');
    await key.fill('sk-test-e2e-0123456789');
    await page.getByRole('button', { name: 'Save key' }).click();
    if (inKeyringSession) {
      await visible(page.getByRole('status', { name: 'Key status' }).getByText('A key is set'));
      expect(await key.inputValue()).toBe('');
      expect(await page.content()).not.toContain('sk-test-e2e-0123456789');
      await page.getByRole('button', { name: 'Clear key' }).click();
      await visible(page.getByRole('status', { name: 'Key status' }).getByText(/No key (set|stored)/));
    } else {
      // Without a keychain it is refused, and the UI says so in one sentence.
      await visible(page.getByRole('alert').filter({ hasText: /^The key was not saved: no OS keychain available/ }));
      expect(await key.inputValue()).toBe('sk-test-e2e-0123456789');
      await key.fill('');
    }
    await shot('settings');
  }, 40_000);

  it('quick capture adds to the inbox at once or asks the agent, and the main window follows', async () => {
    const small = await context.newPage();
    await small.setViewportSize({ width: 560, height: 110 });
    await small.goto(`${served.url}#/capture`);
    const box = small.getByRole('textbox', { name: 'Quick capture' });
    await box.fill('Call the florist');
    await shot('quick-capture', small);
    await box.press('Enter');
    await expect.poll(inboxTexts).toContain('Call the florist');

    // Ctrl+Enter sends it to the agent instead: the main window shows the new conversation.
    fake.enqueue({ text: 'Noted: ask the florist about the flowers.' });
    await box.fill('Ask the florist which flowers are in season');
    await box.press('Control+Enter');
    await nav('Chat').click();
    await visible(page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^Ask the florist which flowers/ }));
    await small.close();
  }, 30_000);

  it('shows a past run’s trace on demand, renames the conversation and exports it as Markdown and JSON', async () => {
    // A fresh page knows no run: the trace comes from the store when the conversation opens.
    await page.reload();
    await nav('Chat').click();
    const conversations = page.getByRole('navigation', { name: 'Conversations' });
    await conversations.getByRole('button').filter({ hasText: 'Get all tasks in my inbox' }).click();
    await visible(traceSteps().filter({ hasText: 'Finished: Done' }));
    expect(await traceSteps().filter({ hasText: /^Move task/ }).count()).toBe(9);
    expect(await traceSteps().filter({ hasText: 'Thought' }).count()).toBe(2);

    await page.getByRole('button', { name: 'Conversation actions' }).click();
    await page.getByRole('menuitem', { name: 'Rename' }).click();
    const title = page.getByRole('textbox', { name: 'Conversation title' });
    await title.fill('Inbox clean-up');
    await title.press('Enter');
    await visible(page.getByRole('heading', { name: 'Inbox clean-up', level: 1 }));
    await visible(conversations.getByRole('button', { name: /^Inbox clean-up/ }));

    const exported = async (button: string) => {
      await page.getByRole('button', { name: 'Conversation actions' }).click();
      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('menuitem', { name: button }).click()]);
      return { name: download.suggestedFilename(), text: readFileSync((await download.path())!, 'utf8') };
    };
    const md = await exported('Export Markdown');
    expect(md.name).toMatch(/\.md$/);
    expect(md.text).toContain('Inbox clean-up');
    expect(md.text).toContain(REQUEST);
    const json = await exported('Export JSON');
    expect(json.name).toMatch(/\.json$/);
    expect(JSON.stringify(JSON.parse(json.text))).toContain('move_task');
  }, 30_000);

  it('keeps lists by hand: make one, add items, check one off', async () => {
    await nav('Lists').click();
    await visible(page.getByText('No lists yet'));
    const name = page.getByRole('textbox', { name: 'New list name' });
    await name.fill('Packing list');
    await name.press('Enter');
    await visible(page.getByRole('list', { name: 'Lists' }).getByRole('button', { name: 'Packing list' }));
    const item = page.getByRole('textbox', { name: 'New item in Packing list' });
    for (const text of ['Passport', 'Laptop with the presentation', 'Charger']) {
      await item.fill(text);
      await item.press('Enter');
      await visible(page.getByRole('checkbox', { name: text }));
    }
    await page.getByRole('checkbox', { name: 'Passport' }).check();
    await expect.poll(() => page.getByRole('checkbox', { name: 'Passport' }).isChecked()).toBe(true);
    await visible(page.getByText('1/3 done'));
    await shot('lists');
  }, 30_000);

  it('gives every control an accessible name, in every view', async () => {
    const unnamed: string[] = [];
    for (const view of ['Chat', /^Inbox/, 'Projects', 'Lists', 'Actions', 'Settings'] as const) {
      await nav(view).click();
      await page.getByRole('main').getByRole('heading', { level: 1 }).first().waitFor();
      const tree = await page.locator('body').ariaSnapshot();
      for (const line of tree.split('\n')) {
        // A control without a quoted name: `- button`, `- textbox [disabled]`, `- checkbox [checked]:`…
        if (/^\s*- (button|textbox|checkbox|combobox|slider|spinbutton|link|radio|switch|listbox)\b(?!\s+")/.test(line)) unnamed.push(`${String(view)}: ${line.trim()}`);
      }
    }
    expect(unnamed).toEqual([]);
  }, 30_000);

  it('follows the OS theme (dark), shows the shortcuts, and logs no errors', async () => {
    await page.emulateMedia({ colorScheme: 'dark' });
    await nav('Chat').click();
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^Inbox clean-up/ }).click();
    await visible(lastAnswer().getByText(/Done: your inbox is empty/));
    const background = await page.evaluate('getComputedStyle(document.documentElement).backgroundColor');
    expect(background).toBe('rgb(23, 25, 29)');
    await shot('chat-dark');
    await page.setViewportSize({ width: 1000, height: 680 });
    await shot('chat-dark-narrow');
    await page.setViewportSize({ width: 1360, height: 820 });
    await nav('Actions').click();
    await shot('actions-dark');
    await page.locator('body').press('?');
    await visible(page.getByRole('dialog', { name: 'Keyboard shortcuts' }));
    await shot('help');
    await page.keyboard.press('Escape');
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.emulateMedia({ colorScheme: 'light' });
    expect(consoleProblems).toEqual([]);
  }, 30_000);
});
