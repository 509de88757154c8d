// End to end: the Memory page (issue 32, item 4). Memories seeded through the core (one made in a
// conversation, one by hand, one for a project) are listed with where they apply and where they came
// from; the budget line says some were left out; search narrows the list; a memory is added by hand,
// edited in place, forgotten and brought back with the notice's Undo; "From a conversation" opens it, where
// a fact the agent remembers shows under its answer as "Remembered: … · Undo" (item 2); the switch turns
// memory off; archiving the conversation asks whether to forget the memory it made (item 5). Found by role and accessible name; every change is checked in the database.
// Then the Done-when, against a fake model that decides from what it really receives (`brain`):
// "groceries always go to Errands" is remembered (a line with Undo), a NEW conversation's "add milk" goes
// to Errands because the prompt's memory block says so, while with memory off, or in an incognito
// conversation (the chat's Incognito toggle), the same fake puts it in the Inbox; the memory's text and
// scope are edited on the Memory page and the edit is undone from Actions.
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMemory, createConversation, createProject, listMemories, newUserRequest, openDatabase, readSettings, writeSetting } from '../../src-main/core';
import { MEMORY_HEADER } from '../../src-main/core/agent/memory';
import type { FakeReply, RecordedRequest } from '../fakes/openai-server';
import { screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';
import { seedForFake } from '../support/serve';

let stage: Stage;
let conversationId = '';

const GROCERIES = 'Groceries always go to Errands';
const MEETINGS = "I don't take meetings before 10";
const PARKING = 'The car park closes at 8 pm';
const BREAD = 'Bread comes from the bakery';

/** A message's text, whether the request sent it as a string or as parts. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (p && typeof p === 'object' && 'text' in p ? String((p as { text: unknown }).text) : '')).join('');
  return '';
}

/**
 * The model when nothing is queued: it decides only from the request it receives. Told that groceries
 * always go somewhere, it remembers the user's words; asked to "add milk" (or eggs, bread: groceries), it
 * looks in the system prompt's memory block for where groceries go and files it there, else in the Inbox.
 */
function brain(request: RecordedRequest): FakeReply | undefined {
  const messages = request.body?.messages ?? [];
  const last = messages[messages.length - 1];
  if (!last) return undefined;
  if (last.role === 'tool') {
    const calls = messages.flatMap((m) => (Array.isArray(m['tool_calls']) ? (m['tool_calls'] as { function: { name: string; arguments: string } }[]) : []));
    const call = calls[calls.length - 1]?.function;
    if (call?.name === 'add_tasks') {
      const item = (JSON.parse(call.arguments) as { tasks: { content: string }[] }).tasks[0]?.content ?? '';
      return { text: `Added ${item}.` };
    }
    return { text: 'I will remember that.' };
  }
  if (last.role !== 'user') return undefined;
  // The user turn starts with a line of date and time; the user's words follow it.
  const said = textOf(last.content).split('\n').slice(1).join('\n').trim();
  if (/^groceries always go to \w+$/i.test(said)) return { toolCalls: [{ name: 'remember', arguments: { text: said } }] };
  const add = /^add (milk|eggs|bread)$/i.exec(said);
  if (add) {
    const system = messages
      .filter((m) => m.role === 'system')
      .map((m) => textOf(m.content))
      .join('\n');
    const at = system.indexOf(MEMORY_HEADER);
    const where = at < 0 ? null : /groceries (?:always )?go to (\w+)/i.exec(system.slice(at));
    return { toolCalls: [{ name: 'add_tasks', arguments: { tasks: [{ content: add[1]!, ...(where ? { project_id: where[1]! } : {}) }] } }] };
  }
  return undefined;
}

beforeAll(async () => {
  stage = await startStage('memory', {
    fake: { handler: brain },
    page: { viewport: { width: 1280, height: 800 }, timeout: 15_000, locale: 'en-US' },
    seed: (dbPath, fakeUrl) => {
      seedForFake(dbPath, fakeUrl);
      const db = openDatabase(dbPath);
      try {
        const ctx = () => newUserRequest(db);
        createProject(db, ctx(), { name: 'Errands' });
        conversationId = createConversation(db, 'groceries always go to Errands');
        addMemory(db, ctx(), { text: GROCERIES, from: { conversationId, runId: null } });
        addMemory(db, ctx(), { text: MEETINGS });
        addMemory(db, ctx(), { text: PARKING, project: 'Errands' });
        // A later conversation: the chat opens on it, not on the one the memory came from.
        createConversation(db, 'Plan the week');
        // A budget that holds only some of them: the page says the rest were left out.
        const r = writeSetting(db, 'memoryTokens', 12);
        if (!r.ok) throw new Error('memoryTokens refused');
      } finally {
        db.close();
      }
    },
  });
  await stage.page.getByRole('textbox', { name: 'Message' }).waitFor();
}, 120_000);

afterAll(async () => {
  await stage?.close();
});

function memories() {
  const db = openDatabase(stage.dbPath);
  try {
    return listMemories(db, { includeArchived: true });
  } finally {
    db.close();
  }
}

/** The project each task with this content is in, oldest first. */
function projectsOf(content: string): string[] {
  const db = openDatabase(stage.dbPath);
  try {
    return (db.prepare(`SELECT p.name FROM tasks t JOIN projects p ON p.id = t.project_id WHERE t.content = ? ORDER BY t.rowid`).all(content) as { name: string }[]).map((r) => r.name);
  } finally {
    db.close();
  }
}

function memoryOn(): boolean {
  const db = openDatabase(stage.dbPath);
  try {
    return readSettings(db).memory;
  } finally {
    db.close();
  }
}

describe('the Memory page', () => {
  it('lists, searches, adds, edits in place, forgets with Undo, opens where one came from, shows what the agent remembers with Undo, switches memory off, and asks before archiving a conversation that made memories', async () => {
    const { page } = stage;
    const list = page.getByRole('list', { name: 'Memories' });
    const row = (text: string): Locator => list.getByRole('listitem').filter({ hasText: text });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Memory/ }).click();
    await page.getByRole('heading', { name: 'Memory', level: 1 }).waitFor();
    await row(GROCERIES).waitFor();
    await expect.poll(() => list.getByRole('listitem').count(), { timeout: 10_000 }).toBe(3);
    // Where each applies and where it came from.
    await expect.poll(() => row(PARKING).textContent()).toContain('Project: Errands');
    await expect.poll(() => row(MEETINGS).textContent()).toContain('Everywhere');
    await expect.poll(() => row(MEETINGS).textContent()).toContain('You, by hand');
    await row(GROCERIES).getByRole('button', { name: `Open the conversation that made ${GROCERIES}` }).waitFor();
    // The budget (12 tokens) cannot hold the ones that apply everywhere.
    await expect.poll(() => page.getByRole('note').textContent()).toMatch(/left out by the memory budget/);

    // Search narrows the list, clearing it brings all back.
    const search = page.getByRole('searchbox', { name: 'Search memories' });
    await search.fill('meetings');
    await expect.poll(() => list.getByRole('listitem').count(), { timeout: 10_000 }).toBe(1);
    await row(MEETINGS).waitFor();
    await search.fill('');
    await expect.poll(() => list.getByRole('listitem').count(), { timeout: 10_000 }).toBe(3);

    // Added by hand.
    const add = page.getByRole('textbox', { name: 'New memory' });
    await add.fill('Call mum on Sundays');
    await page.getByRole('button', { name: 'Remember', exact: true }).click();
    await row('Call mum on Sundays').waitFor();
    await expect.poll(() => memories().find((m) => m.text === 'Call mum on Sundays')?.conversationId, { timeout: 10_000 }).toBeNull();
    // The same fact twice is refused by the field, not added again.
    await add.fill('Call mum on Sundays');
    await page.getByRole('button', { name: 'Remember', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'already remembered' }).waitFor();
    await add.fill('');

    // Edited in place.
    await row(MEETINGS).getByRole('button', { name: `Edit memory ${MEETINGS}` }).click();
    const field = page.getByRole('form', { name: `Edit memory ${MEETINGS}` }).getByRole('textbox', { name: 'Memory text' });
    await field.fill("I don't take meetings before 11");
    await field.press('Enter');
    await row("I don't take meetings before 11").waitFor();
    await expect.poll(() => memories().some((m) => m.text === "I don't take meetings before 11"), { timeout: 10_000 }).toBe(true);
    expect(memories().some((m) => m.text === MEETINGS)).toBe(false);

    // Forgotten, then brought back by the notice's Undo.
    await row(PARKING).getByRole('button', { name: `Forget ${PARKING}` }).click();
    await expect.poll(() => row(PARKING).count(), { timeout: 10_000 }).toBe(0);
    await expect.poll(() => memories().find((m) => m.text === PARKING)?.archivedAt ?? null, { timeout: 10_000 }).not.toBeNull();
    const notice = page.locator('.notice').filter({ hasText: `Forgot: ${PARKING}` });
    await notice.getByRole('button', { name: 'Undo' }).click();
    await row(PARKING).waitFor({ timeout: 10_000 });
    await expect.poll(() => memories().find((m) => m.text === PARKING)?.archivedAt, { timeout: 10_000 }).toBeNull();

    await screenshot(page, 'memory-page');
    // No serious or critical WCAG 2.1 A/AA violation on the page (as test/e2e/a11y.test.ts checks the others).
    const axe = await new AxeBuilder({ page }).include('main').withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
    expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${v.help}`)).toEqual([]);

    // Where a memory came from opens that conversation.
    await row(GROCERIES).getByRole('button', { name: `Open the conversation that made ${GROCERIES}` }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await expect.poll(() => page.locator('.conversation-item[aria-current="true"]').getAttribute('title'), { timeout: 10_000 }).toBe('groceries always go to Errands');

    // In the chat, a fact the agent remembers shows under the answer as a line with Undo.
    stage.fake.enqueue({ text: '', toolCalls: [{ name: 'remember', arguments: { text: BREAD } }] }, { text: 'Noted: bread comes from the bakery.' });
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.fill('Remember: bread always comes from the bakery');
    await box.press('Enter');
    const log = page.getByRole('log', { name: 'Messages' });
    await log.getByText('Noted: bread comes from the bakery.').waitFor({ timeout: 20_000 });
    const line = log.getByRole('list', { name: 'Remembered' }).getByRole('listitem').filter({ hasText: BREAD });
    await line.getByText(`Remembered: ${BREAD}`).waitFor({ timeout: 10_000 });
    await expect.poll(() => memories().find((m) => m.text === BREAD)?.conversationId, { timeout: 10_000 }).toBe(conversationId);
    await screenshot(page, 'memory-remembered-in-chat');
    await line.getByRole('button', { name: `Undo: remembered ${BREAD}` }).click();
    await expect.poll(() => memories().some((m) => m.text === BREAD && m.archivedAt === null), { timeout: 10_000 }).toBe(false);
    await line.getByText(`Not remembered: ${BREAD}`).waitFor({ timeout: 10_000 });

    // Back on the Memory page, the switch turns memory off (a setting), and says so.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Memory/ }).click();
    await row(GROCERIES).waitFor();
    await expect.poll(() => row(BREAD).count(), { timeout: 10_000 }).toBe(0);
    const on = page.getByRole('switch', { name: 'Use memory' });
    await expect.poll(() => on.isChecked()).toBe(true);
    await on.click();
    await expect.poll(() => memoryOn(), { timeout: 10_000 }).toBe(false);
    await expect.poll(() => on.isChecked(), { timeout: 10_000 }).toBe(false);
    await page.getByText('Off: the agent neither reads nor writes memories.').waitFor();
    await screenshot(page, 'memory-off');

    // Archiving the conversation that made a memory asks whether to forget it too (item 5).
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Chat' }).click();
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^groceries always go to Errands/ }).click();
    await page.getByRole('button', { name: 'Conversation actions' }).click();
    await page.getByRole('menuitem', { name: 'Archive conversation' }).click();
    const question = page.getByRole('dialog', { name: 'Forget the memories this conversation made?' });
    await question.waitFor({ timeout: 10_000 });
    await screenshot(page, 'memory-archive-question');
    await question.getByRole('button', { name: 'Archive and forget it' }).click();
    await expect.poll(() => memories().find((m) => m.text === GROCERIES)?.archivedAt ?? null, { timeout: 10_000 }).not.toBeNull();
    expect(memories().find((m) => m.text === "I don't take meetings before 11")?.archivedAt).toBeNull();
  }, 120_000);

  it('remembers where groceries go when told, and a new conversation files "add milk" there from memory alone (not with memory off, not incognito); the memory is edited on the Memory page and undone from Actions', async () => {
    const { page, fake } = stage;
    const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 20_000, interval: 100 });
    const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
    const log = page.getByRole('log', { name: 'Messages' });
    const newConversation = async () => {
      await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: 'New conversation' }).click();
      await page.getByRole('heading', { name: 'New conversation', level: 1 }).waitFor();
    };
    const say = async (text: string) => {
      const box = page.getByRole('textbox', { name: 'Message' });
      await box.fill(text);
      await box.press('Enter');
    };
    const setMemory = async (on: boolean) => {
      await nav(/^Memory/).click();
      const toggle = page.getByRole('switch', { name: 'Use memory' });
      if ((await toggle.isChecked()) !== on) await toggle.click();
      await poll(() => memoryOn()).toBe(on);
      await nav('Chat').click();
    };
    // A budget that holds them (the first flow left it at 12 tokens), and memory on again.
    const db = openDatabase(stage.dbPath);
    try {
      if (!writeSetting(db, 'memoryTokens', 800).ok) throw new Error('memoryTokens refused');
    } finally {
      db.close();
    }
    fake.reset();
    await setMemory(true);

    // Told once, in a conversation: remembered in the open, with Undo.
    await newConversation();
    await say(GROCERIES);
    await log.getByText('I will remember that.').waitFor({ timeout: 20_000 });
    const line = log.getByRole('list', { name: 'Remembered' }).getByRole('listitem').filter({ hasText: GROCERIES });
    await line.getByText(`Remembered: ${GROCERIES}`).waitFor({ timeout: 10_000 });
    await line.getByRole('button', { name: `Undo: remembered ${GROCERIES}` }).waitFor();
    await poll(() => memories().filter((m) => m.text === GROCERIES && m.archivedAt === null).length).toBe(1);
    const told = memories().find((m) => m.text === GROCERIES && m.archivedAt === null)!;
    expect(told.projectId).toBeNull();
    expect(told.conversationId).not.toBe(conversationId);

    // A new conversation, never told: the prompt's memory block sends milk to Errands.
    await newConversation();
    await say('add milk');
    await log.getByText('Added milk.').waitFor({ timeout: 20_000 });
    await poll(() => projectsOf('milk')).toEqual(['Errands']);
    const milk = fake.chatRequests.find((r) => r.body?.messages?.some((m) => m.role === 'user' && textOf(m.content).endsWith('add milk')));
    expect(milk?.body?.messages?.filter((m) => m.role === 'system').map((m) => textOf(m.content)).join('\n')).toContain(`: ${GROCERIES}`);
    await screenshot(page, 'memory-add-milk-errands');

    // The same model with memory off: no block, so the Inbox.
    await setMemory(false);
    await newConversation();
    await say('add eggs');
    await log.getByText('Added eggs.').waitFor({ timeout: 20_000 });
    await poll(() => projectsOf('eggs')).toEqual(['Inbox']);
    await setMemory(true);

    // Memory on, but an incognito conversation: no block either, and it shows it is incognito.
    await newConversation();
    const incognito = page.getByRole('button', { name: 'Incognito', exact: true });
    await incognito.click();
    await poll(() => incognito.getAttribute('aria-pressed')).toBe('true');
    await say('add bread');
    await log.getByText('Added bread.').waitFor({ timeout: 20_000 });
    await poll(() => projectsOf('bread')).toEqual(['Inbox']);
    await page.getByRole('status').filter({ hasText: 'Incognito: no memory' }).waitFor({ timeout: 10_000 });
    await page.getByRole('navigation', { name: 'Conversations' }).getByRole('button', { name: /^add bread/ }).filter({ hasText: 'Incognito' }).waitFor();
    await screenshot(page, 'memory-incognito');

    // Edited on the Memory page: its words and where it applies (one project).
    await nav(/^Memory/).click();
    const list = page.getByRole('list', { name: 'Memories' });
    const row = (text: string): Locator => list.getByRole('listitem').filter({ hasText: text });
    const edited = 'Groceries always go to Errands on Saturdays';
    await row(GROCERIES).getByRole('button', { name: `Edit memory ${GROCERIES}` }).click();
    const form = page.getByRole('form', { name: `Edit memory ${GROCERIES}` });
    await form.getByRole('combobox', { name: 'Applies to' }).selectOption({ label: 'Project: Errands' });
    await form.getByRole('textbox', { name: 'Memory text' }).fill(edited);
    await form.getByRole('button', { name: 'Save' }).click();
    await poll(() => row(edited).textContent()).toContain('Project: Errands');
    await poll(() => memories().find((m) => m.id === told.id)?.text).toBe(edited);
    expect(memories().find((m) => m.id === told.id)?.project).toBe('Errands');
    await screenshot(page, 'memory-scope-edited');

    // Undone from Actions: the words and the scope come back.
    await nav('Actions').click();
    await page.getByRole('list', { name: 'Action log' }).getByRole('button', { name: /^Undo: Changed memory/ }).first().click();
    await poll(() => memories().find((m) => m.id === told.id)?.text).toBe(GROCERIES);
    expect(memories().find((m) => m.id === told.id)?.projectId).toBeNull();
  }, 180_000);
});
