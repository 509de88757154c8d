// The add field's preview for what it cannot file: a repeat it does not read stays whole and is named, a
// mistyped #Project gets "Did you mean …?" with one click to take it, and an unknown one gets "Create project
// …", which creates it and files the task in one request that the notice's Undo takes back whole.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProject, listProjects, listTasks, openDatabase } from '../../src-main/core';
import { screenshot } from '../support/browser';
import { startDataStage, type DataStage } from '../support/e2e';

let stage: DataStage | undefined;
let page: Page;
let dbPath = '';

beforeAll(async () => {
  stage = await startDataStage('quickadd', (db, ctx) => {
    createProject(db, ctx(), { name: 'Family' });
  });
  ({ page, dbPath } = stage);
}, 120_000);

afterAll(() => stage?.close());

function stored(): { tasks: { content: string; project: string }[]; projects: string[] } {
  const db = openDatabase(dbPath);
  try {
    return { tasks: listTasks(db, { status: 'open', limit: 1000 }).tasks, projects: listProjects(db).map((p) => p.name) };
  } finally {
    db.close();
  }
}
const visible = (l: Locator) => l.waitFor({ state: 'visible', timeout: 15_000 });

describe('quick add: what it cannot file', () => {
  it('names an unread repeat, suggests the nearest project, and creates an unknown one with Undo', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: /^Inbox/ }).click();
    const box = page.getByRole('textbox', { name: 'New inbox task' });
    await visible(box);
    const form = page.locator('form.quick-add').first();

    // A repeat it does not read stays whole and the preview says so; a typo gets the nearest name.
    await box.fill('Call grandma every 12 hours #Famly');
    await visible(form.getByText('“every 12 hours” is not a repeat Tidy reads: it stays in the text'));
    await visible(form.getByText('No project “Famly”: it stays in the text · Did you mean Family?'));
    await screenshot(page, 'quickadd-unknown-project');
    await form.getByRole('button', { name: 'Use Family' }).click();
    await expect.poll(() => box.inputValue()).toBe('Call grandma every 12 hours #Family');
    // The notice no longer applies, so it is gone.
    await expect.poll(() => form.getByText(/No project/).count()).toBe(0);
    await expect.poll(() => form.getByRole('button', { name: /^Create project/ }).count()).toBe(0);

    // An unknown project: one click creates it and files the task there.
    await box.fill('Book the hall #Reunion tomorrow');
    await form.getByRole('button', { name: 'Create project Reunion' }).click();
    await expect.poll(() => stored().tasks.find((t) => t.content === 'Book the hall')?.project, { timeout: 15_000 }).toBe('Reunion');
    await expect.poll(() => box.inputValue()).toBe('');
    const notice = page.locator('.notices').filter({ hasText: 'Created project Reunion and added “Book the hall” to it' });
    await visible(notice);
    await screenshot(page, 'quickadd-created-project');
    // One Undo takes back the task and the project together.
    await notice.getByRole('button', { name: 'Undo' }).click();
    await expect.poll(() => stored().projects, { timeout: 15_000 }).toEqual(['Inbox', 'Family']);
    expect(stored().tasks.find((t) => t.content === 'Book the hall')).toBeUndefined();
  }, 90_000);
});
