// End to end: changes a user can see (issue 29, items 7, 10, 12). A task added to or moved into another
// project, and a repeating task completed, leave a visible notice that says where they went or when
// they come back; dates and times are shown in the browser's locale (en-US here), never as ISO 8601.
// Found by role and accessible name; every change is checked in the database.
import { readFileSync } from 'node:fs';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTask, createProject, listTasks, openDatabase } from '../../src-main/core';
import { screenshot } from '../support/browser';
import { localDay as day, startDataStage, type DataStage } from '../support/e2e';

let stage: DataStage | undefined;
let page: Page;
let dbPath = '';


beforeAll(async () => {
  stage = await startDataStage('notices', (db, ctx) => {
    for (const name of ['Family', 'Home']) createProject(db, ctx(), { name });
    addTask(db, ctx(), { content: 'Water the plants', due: day(0), recurrence: 'FREQ=WEEKLY' });
    addTask(db, ctx(), { content: 'Call the plumber', due: day(1, '16:00') });
    addTask(db, ctx(), { content: 'Fix the shelf', project: 'Home' });
    addTask(db, ctx(), { content: 'Book the venue' });
  }, { timeout: 15_000, locale: 'en-US' });
  ({ page, dbPath } = stage);
}, 120_000);

afterAll(() => stage?.close());

function task(content: string) {
  const db = openDatabase(dbPath);
  try {
    return listTasks(db, { status: 'all', limit: 10_000 }).tasks.find((t) => t.content === content);
  } finally {
    db.close();
  }
}

const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const notice = (text: string | RegExp) => page.locator('.notice').filter({ hasText: text });
const inbox = () => page.getByRole('list', { name: 'Inbox tasks' });
const row = (content: string) => page.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: content, exact: true }) });
const ISO = /\d{4}-\d{2}-\d{2}/;

async function openInbox(): Promise<void> {
  await nav(/^Inbox/).click();
  await visible(inbox());
}

describe('changes you can see', () => {
  it('a task added to another project says where it went, and Open goes there', async () => {
    await openInbox();
    const add = page.getByRole('textbox', { name: 'New inbox task' });
    await add.fill('Buy a birthday card #Family');
    await add.press('Enter');
    await expect.poll(() => task('Buy a birthday card')?.project).toBe('Family');
    const added = notice('Added to Family');
    await visible(added);
    await screenshot(page, 'notice-added-to-project');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 800, height: 700 });
    await visible(added);
    await screenshot(page, 'notice-added-to-project-dark-800');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
    await added.getByRole('button', { name: 'Open' }).click();
    await visible(page.getByRole('heading', { name: 'Family' }));
    await visible(row('Buy a birthday card'));
    // Open went there, so the notice is gone.
    await expect.poll(() => added.count()).toBe(0);
  });

  it('moving a task in the editor says where it went', async () => {
    await openInbox();
    await row('Call the plumber').getByRole('button', { name: 'Edit: Call the plumber' }).click();
    const form = page.getByRole('form', { name: 'Edit task: Call the plumber' });
    await form.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Home' });
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => task('Call the plumber')?.project).toBe('Home');
    await visible(notice('Moved “Call the plumber” to Home').getByRole('button', { name: 'Open' }));
    await expect.poll(() => row('Call the plumber').count()).toBe(0);
  });

  it('completing a repeating task says when it comes back; a plain notice then goes by itself', async () => {
    await openInbox();
    await row('Water the plants').getByRole('checkbox', { name: 'Water the plants' }).click();
    await expect.poll(() => task('Water the plants')?.due).toBe(day(7));
    const next = new Date();
    next.setDate(next.getDate() + 7);
    const words = new Intl.DateTimeFormat('en-US', { weekday: 'short', month: 'short', day: 'numeric', ...(next.getFullYear() !== new Date().getFullYear() ? { year: 'numeric' } : {}) }).format(next);
    const completed = notice(`Completed: Water the plants · Next: ${words}`);
    await visible(completed);
    expect(await completed.innerText()).not.toMatch(ISO);
    await screenshot(page, 'notice-next-repeat');
    // Undo is a button on it; what the undo did is a plain notice, which leaves on its own.
    await completed.getByRole('button', { name: 'Undo' }).click();
    // (A notice stays while the pointer rests on the notices: moved away, as a user's hand would.)
    await page.mouse.move(5, 5);
    await expect.poll(() => task('Water the plants')?.due).toBe(day(0));
    const undid = notice(/^Undid/).last();
    await visible(undid);
    expect(await undid.innerText()).not.toMatch(ISO);
    await expect.poll(() => notice(/^Undid/).count(), { timeout: 40_000 }).toBe(0);
    // The notice holding an action stays (until dismissed, the view changes, or newer ones push it out).
    expect(await notice('Moved “Call the plumber” to Home').count()).toBe(1);
  }, 90_000);
});

describe('dates and times in the user locale', () => {
  it("the row and the editor's Due say the due in words with the locale's clock; Actions shows no ISO date", async () => {
    await nav(/^Projects/).click();
    await page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: /^Home/ }).click();
    const plumber = row('Call the plumber');
    await visible(plumber);
    expect(await plumber.locator('.due').innerText()).toMatch(/4:00 PM/);
    await plumber.getByRole('button', { name: 'Edit: Call the plumber' }).click();
    const form = page.getByRole('form', { name: 'Edit task: Call the plumber' });
    const due = form.getByRole('textbox', { name: 'Due' });
    await expect.poll(() => due.inputValue()).toMatch(/^[A-Z][a-z]{2} \d{1,2}, \d{4} 4:00 PM$/);
    expect(await form.innerText()).not.toMatch(ISO);
    await screenshot(page, 'editor-due-in-words');
    // Unchanged, it saves nothing new.
    await form.getByRole('button', { name: 'Cancel' }).click();
    expect(task('Call the plumber')?.due).toBe(day(1, '16:00'));
    await nav(/^Actions/).click();
    const log = page.getByRole('list', { name: 'Action log' });
    await visible(log.getByText(/Completed .Water the plants./).first());
    expect(await log.innerText()).not.toMatch(ISO);
  }, 60_000);
});

describe('keys and Settings', () => {
  const focusedName = () =>
    page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return 'body';
      return (el.getAttribute('aria-label') || el.textContent || '').trim();
    })()`);

  it('Q jumps to the add field: this view’s, or the Inbox’s from a view without one', async () => {
    await openInbox();
    await page.getByRole('heading', { name: 'Inbox', exact: true }).focus();
    await page.keyboard.press('q');
    await expect.poll(focusedName).toBe('New inbox task');
    // Typed in a field, q is a letter.
    await page.keyboard.type('quiet');
    expect(await page.getByRole('textbox', { name: 'New inbox task' }).inputValue()).toBe('quiet');
    await page.getByRole('textbox', { name: 'New inbox task' }).fill('');
    await nav(/^Settings/).click();
    await visible(page.getByRole('heading', { name: 'Settings', exact: true }));
    await page.getByRole('heading', { name: 'Settings', exact: true }).focus();
    await page.keyboard.press('q');
    await expect.poll(focusedName).toBe('New inbox task');
  });

  it('Enter on a choice list in the task editor saves, as in a text field', async () => {
    await openInbox();
    await row('Book the venue').getByRole('button', { name: 'Edit: Book the venue' }).click();
    const form = page.getByRole('form', { name: 'Edit task: Book the venue' });
    const priority = form.getByRole('combobox', { name: 'Priority' });
    await priority.selectOption({ label: 'p2 · high' });
    await priority.focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => task('Book the venue')?.priority).toBe(2);
    await expect.poll(() => form.count()).toBe(0);
  }, 60_000);

  it('Alt+0 opens Go to, which reaches every view by name', async () => {
    await openInbox();
    await page.keyboard.press('Alt+0');
    const dialog = page.getByRole('dialog', { name: 'Go to' });
    await visible(dialog);
    await expect.poll(focusedName).toBe('View name');
    // More views than Alt+1…9 reach: all are listed.
    expect(await dialog.getByRole('list', { name: 'Views' }).getByRole('button').count()).toBeGreaterThan(9);
    await page.keyboard.type('compl');
    expect(await dialog.getByRole('list', { name: 'Views' }).getByRole('button').count()).toBe(1);
    await screenshot(page, 'goto-dialog');
    await page.keyboard.press('Enter');
    await expect.poll(() => dialog.count()).toBe(0);
    await visible(page.getByRole('heading', { name: 'Completed', exact: true }));
    // Hostile text finds nothing and breaks nothing.
    await page.keyboard.press('Alt+0');
    await page.getByRole('textbox', { name: 'View name' }).fill('<img src=x>'.repeat(8));
    await visible(dialog.getByText('No view is called that.'));
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count()).toBe(0);
  });

  it('Settings has its own navigation: a button a section, which brings the section to view', async () => {
    await nav(/^Settings/).click();
    const sections = page.getByRole('navigation', { name: 'Settings sections' });
    await visible(sections);
    await visible(sections.getByRole('button', { name: 'Model provider' }));
    await sections.getByRole('button', { name: 'Your data', exact: true }).click();
    await expect.poll(focusedName).toBe('Your data');
    await visible(page.getByRole('heading', { name: 'Your data', exact: true }));
    await screenshot(page, 'settings-sections');
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.setViewportSize({ width: 800, height: 800 });
    await visible(sections.getByRole('button', { name: 'Your data', exact: true }));
    await screenshot(page, 'settings-sections-dark-800');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('Your data offers Export: everything as a JSON file that names its format, or Markdown', async () => {
    await nav(/^Settings/).click();
    const data = page.getByRole('region', { name: 'Your data', exact: true });
    await visible(data.getByRole('button', { name: 'Export as JSON' }));
    const [json] = await Promise.all([page.waitForEvent('download'), data.getByRole('button', { name: 'Export as JSON' }).click()]);
    expect(json.suggestedFilename()).toMatch(/^tidy-export-.*\.json$/);
    const text = readFileSync((await json.path())!, 'utf8');
    expect(text).toContain('Water the plants');
    expect(() => JSON.parse(text) as unknown).not.toThrow();
    const [md] = await Promise.all([page.waitForEvent('download'), data.getByRole('button', { name: 'Export as Markdown' }).click()]);
    expect(md.suggestedFilename()).toMatch(/\.md$/);
    await screenshot(page, 'settings-your-data');
  }, 60_000);
});
