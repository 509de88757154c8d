// End to end: the Memory page (issue 32, item 4). Memories seeded through the core (one made in a
// conversation, one by hand, one for a project) are listed with where they apply and where they came
// from; the budget line says some were left out; search narrows the list; a memory is added by hand,
// edited in place, forgotten and brought back with the notice's Undo; "From a conversation" opens it, where
// a fact the agent remembers shows under its answer as "Remembered: … · Undo" (item 2); the switch turns
// memory off; archiving the conversation asks whether to forget the memory it made (item 5). Found by role and accessible name; every change is checked in the database.
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addMemory, createConversation, createProject, listMemories, newUserRequest, openDatabase, readSettings, writeSetting } from '../../src-main/core';
import { screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';
import { seedForFake } from '../support/serve';

let stage: Stage;
let conversationId = '';

const GROCERIES = 'Groceries always go to Errands';
const MEETINGS = "I don't take meetings before 10";
const PARKING = 'The car park closes at 8 pm';
const BREAD = 'Bread comes from the bakery';

beforeAll(async () => {
  stage = await startStage('memory', {
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
});
