// End to end: rich tasks in the window, in Debian's Chromium through `tidy serve`. A project with
// subtasks ("1/3", hide and show, Alt+→/← indent and outdent, completing a parent asks), sections
// (grouping, create, rename, archive, a task moved into one from the editor), label chips and the Labels
// view, the editor's description (Markdown), comments, deadline (a passed one marked apart from an
// overdue plan), duration and labels, the filter box (a bad query's one line) and saved filters in the
// sidebar. Every change is read back from the database; elements are found by role and accessible name.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addTask, completeTask, createProject, listTasks, openDatabase } from '../../src-main/core';
import { createSection } from '../../src-main/core/domain/sections';
import { listComments } from '../../src-main/core/domain/tasks';
import { listLabels } from '../../src-main/core/domain/labels';
import { listFilters } from '../../src-main/core/domain/filter';
import type { Task } from '../../src-shared/domain';
import { tidyIn } from '../support/cli-inproc';
import { screenshot } from '../support/browser';
import { localDay as day, startDataStage, type DataStage } from '../support/e2e';

let stage: DataStage | undefined;
let page: Page;
let dbPath = '';


beforeAll(async () => {
  stage = await startDataStage('rich', (db, ctx) => {
    createProject(db, ctx(), { name: 'Party' });
    createSection(db, ctx(), { project: 'Party', name: 'Shopping' });
    const menu = addTask(db, ctx(), { content: 'Plan the menu', project: 'Party', priority: 2 });
    if (!menu.ok) throw new Error(menu.error);
    for (const content of ['Pick a starter', 'Choose the dessert', 'Ask about allergies']) addTask(db, ctx(), { content, project: 'Party', parent: menu.value.id });
    const starter = listTasks(db, { status: 'all' }).tasks.find((t) => t.content === 'Pick a starter')!;
    completeTask(db, ctx(), { task: starter.id });
    addTask(db, ctx(), { content: 'Book the DJ', project: 'Party' });
    addTask(db, ctx(), { content: 'Order the cake', project: 'Party', section: 'Shopping', labels: ['errands'] });
    addTask(db, ctx(), { content: 'Return the bottles', project: 'Party', section: 'Shopping', labels: ['errands'], deadline: day(-2), due: day(-1), durationMin: 20 });
  });
  ({ page, dbPath } = stage);
}, 120_000);

afterAll(() => stage?.close());

/** Reads the database the host writes (WAL: a second reader is fine). */
function read<T>(f: (db: ReturnType<typeof openDatabase>) => T): T {
  const db = openDatabase(dbPath);
  try {
    return f(db);
  } finally {
    db.close();
  }
}
const task = (content: string): Task | undefined => read((db) => listTasks(db, { status: 'all', limit: 10_000 }).tasks.find((t) => t.content === content));
const log = async (): Promise<{ tool: string; summary: string }[]> => JSON.parse((await tidyIn(dbPath, ['log', '--json'])).stdout) as { tool: string; summary: string }[];

const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const main = () => page.getByRole('main');
const list = (name: string) => main().getByRole('list', { name, exact: true });
const row = (l: Locator, content: string) => l.getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: content, exact: true }) });
const notices = () => page.locator('.notices');

async function shots(name: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await screenshot(page, name);
  await page.emulateMedia({ colorScheme: 'dark' });
  await screenshot(page, `${name}-dark`);
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('rich tasks in the window', () => {
  it('a project: subtasks with progress, hide/show, indent/outdent by key, completing a parent asks; sections', async () => {
    await nav(/^Projects/).click();
    const top = list('Tasks in Party');
    await visible(top);
    const menuRow = row(top, 'Plan the menu');
    // Done of all its direct subtasks: the done one is not in the open list, the host counts it.
    await visible(menuRow.getByRole('img', { name: '1 of 3 subtasks done' }));
    expect(await menuRow.locator('.subtask-progress').innerText()).toBe('1/3');
    await visible(row(top, 'Choose the dessert'));
    expect(await row(top, 'Choose the dessert').getAttribute('class')).toContain('subtask');
    // Sections: their own heading and list; label chips and a passed deadline apart from the overdue plan.
    const shopping = list('Tasks in section Shopping');
    await visible(shopping);
    expect(await row(shopping, 'Order the cake').locator('.label-chip').innerText()).toBe('@errands');
    const bottles = row(shopping, 'Return the bottles');
    expect(await bottles.locator('.deadline.passed').textContent()).toContain('Deadline passed');
    expect(await bottles.locator('.due.overdue').count()).toBe(1);
    expect(await bottles.locator('.duration').innerText()).toContain('20m');
    await shots('rich-project');

    // Hide and show the subtasks.
    await menuRow.getByRole('button', { name: 'Hide the subtasks of Plan the menu' }).click();
    await expect.poll(() => row(top, 'Choose the dessert').count()).toBe(0);
    await menuRow.getByRole('button', { name: 'Show the subtasks of Plan the menu' }).click();
    await visible(row(top, 'Choose the dessert'));

    // Alt+→ makes "Book the DJ" a subtask of the task above it; Alt+← moves it back up.
    const menuId = task('Plan the menu')!.id;
    await row(top, 'Book the DJ').getByRole('checkbox', { name: 'Book the DJ' }).focus();
    await page.keyboard.press('Alt+ArrowRight');
    await expect.poll(() => task('Book the DJ')?.parentId).toBe(menuId);
    await visible(top.getByRole('img', { name: '1 of 4 subtasks done' }));
    await row(top, 'Book the DJ').getByRole('checkbox', { name: 'Book the DJ' }).focus();
    await page.keyboard.press('Alt+ArrowLeft');
    await expect.poll(() => task('Book the DJ')?.parentId).toBe(null);
    // The same by drag: dropped onto "Plan the menu" 100 px to the right, it becomes its subtask; dragged
    // 100 px to the left, back up a level. Each is one logged action.
    await row(top, 'Book the DJ').dragTo(menuRow, { sourcePosition: { x: 200, y: 10 }, targetPosition: { x: 300, y: 10 } });
    await expect.poll(() => task('Book the DJ')?.parentId).toBe(menuId);
    expect((await log())[0]?.tool).toBe('update_task');
    await visible(top.getByRole('img', { name: '1 of 4 subtasks done' }));
    await row(top, 'Book the DJ').dragTo(row(top, 'Book the DJ'), { sourcePosition: { x: 300, y: 10 }, targetPosition: { x: 200, y: 10 } });
    await expect.poll(() => task('Book the DJ')?.parentId).toBe(null);
    expect((await log())[0]?.tool).toBe('outdent_task');

    // Completing a parent with open subtasks asks: Cancel changes nothing; Complete all is one action.
    await menuRow.getByRole('checkbox', { name: 'Plan the menu' }).click();
    const ask = page.getByRole('dialog', { name: 'Complete “Plan the menu”?' });
    await visible(ask);
    expect(await ask.innerText()).toContain('2 open subtasks');
    await ask.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => ask.count()).toBe(0);
    expect(task('Plan the menu')?.status).toBe('open');
    await menuRow.getByRole('checkbox', { name: 'Plan the menu' }).click();
    await ask.getByRole('button', { name: 'Complete all' }).click();
    await expect.poll(() => task('Choose the dessert')?.status).toBe('done');
    expect(task('Plan the menu')?.status).toBe('done');
    expect(task('Ask about allergies')?.status).toBe('done');
    expect((await log())[0]).toMatchObject({ tool: 'complete_task', summary: "Completed 'Plan the menu' and 2 subtasks" });
    // One Undo takes it all back.
    await notices().getByRole('button', { name: 'Undo' }).last().click();
    await expect.poll(() => task('Ask about allergies')?.status).toBe('open');
    expect(task('Plan the menu')?.status).toBe('open');

    // A new section, renamed, archived.
    await main().getByRole('textbox', { name: 'New section in Party' }).fill('Day of');
    await main().getByRole('button', { name: 'Add section' }).click();
    await visible(main().getByRole('heading', { name: /^Day of/ }));
    // Reordered by its buttons (the first has no Move up, the last no Move down), each undoable.
    const sectionOrder = () => main().locator('.task-section h2.group-head').allInnerTexts();
    await expect.poll(async () => (await sectionOrder()).map((t) => t.replace(/\s*\d+$/, ''))).toEqual(['Shopping', 'Day of']);
    expect(await main().getByRole('button', { name: 'Move section Shopping up' }).isDisabled()).toBe(true);
    expect(await main().getByRole('button', { name: 'Move section Day of down' }).isDisabled()).toBe(true);
    await main().getByRole('button', { name: 'Move section Day of up' }).click();
    await expect.poll(async () => (await sectionOrder()).map((t) => t.replace(/\s*\d+$/, ''))).toEqual(['Day of', 'Shopping']);
    expect((await log())[0]?.tool).toBe('reorder_section');
    await main().getByRole('button', { name: 'Move section Day of down' }).click();
    await expect.poll(async () => (await sectionOrder()).map((t) => t.replace(/\s*\d+$/, ''))).toEqual(['Shopping', 'Day of']);
    await main().getByRole('button', { name: 'Rename section Day of' }).click();
    await main().getByRole('textbox', { name: 'New name of the section Day of' }).fill('On the day');
    await main().getByRole('form', { name: 'Rename section Day of' }).getByRole('button', { name: 'Save' }).click();
    await visible(main().getByRole('heading', { name: /^On the day/ }));
    await main().getByRole('button', { name: 'Archive section On the day' }).click();
    await expect.poll(() => main().getByRole('heading', { name: /^On the day/ }).count()).toBe(0);
    expect((await log())[0]?.tool).toBe('archive_section');

    // Into a section from the editor.
    await row(top, 'Book the DJ').getByRole('button', { name: 'Edit: Book the DJ' }).click();
    const form = page.getByRole('form', { name: 'Edit task: Book the DJ' });
    await form.getByRole('combobox', { name: 'Section' }).selectOption({ label: 'Shopping' });
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => task('Book the DJ')?.section).toBe('Shopping');
    await visible(row(shopping, 'Book the DJ'));
  }, 120_000);

  it('the editor, labels and filters: description, comments, deadline, duration, labels; the Labels view; a filter box and saved filters', async () => {
    await nav(/^Labels/).click();
    const labels = main().getByRole('list', { name: 'Labels' });
    await visible(labels.getByRole('button', { name: /^@errands\s*2 open tasks$/ }));
    const tagged = list('Tasks labelled errands');
    await visible(row(tagged, 'Order the cake'));
    expect(await tagged.getByRole('listitem').count()).toBe(2);
    // A colour for the label: its chips show it; one undoable change.
    const colours = main().getByRole('group', { name: 'Colour of @errands' });
    await colours.getByRole('button', { name: 'Green' }).click();
    await expect.poll(() => colours.getByRole('button', { name: 'Green' }).getAttribute('aria-pressed')).toBe('true');
    await expect.poll(() => row(tagged, 'Order the cake').locator('.label-chip.coloured').count()).toBe(1);
    expect(read((db) => listLabels(db)).find((l) => l.name === 'errands')?.colour).toBe('#2e9d5b');
    expect((await log())[0]?.tool).toBe('set_label_colour');
    await shots('rich-label-colour');
    await notices().getByRole('button', { name: 'Undo' }).last().click();
    await expect.poll(() => read((db) => listLabels(db)).find((l) => l.name === 'errands')?.colour).toBe(null);
    await expect.poll(() => row(tagged, 'Order the cake').locator('.label-chip.coloured').count()).toBe(0);
    await colours.getByRole('button', { name: 'Purple' }).click();
    await expect.poll(() => read((db) => listLabels(db)).find((l) => l.name === 'errands')?.colour).toBe('#8e44ad');

    // The editor: a description shown as Markdown (safely), a comment, deadline, duration and labels.
    await row(tagged, 'Order the cake').getByRole('button', { name: 'Edit: Order the cake' }).click();
    const form = page.getByRole('form', { name: 'Edit task: Order the cake' });
    await form.getByRole('textbox', { name: 'Description' }).fill('**Chocolate**, from [the bakery](https://example.com)\n\n<img src=x onerror=alert(1)>');
    const shown = form.getByRole('region', { name: 'Description as shown' });
    await visible(shown.locator('strong', { hasText: 'Chocolate' }));
    expect(await shown.getByRole('link', { name: 'the bakery' }).getAttribute('href')).toBe('https://example.com/');
    expect(await shown.locator('img').count()).toBe(0);
    await form.getByRole('textbox', { name: 'Deadline' }).fill(day(5));
    await visible(form.getByText(/^must be done by /));
    await form.getByRole('textbox', { name: 'Duration' }).fill('1h30m');
    await form.getByRole('textbox', { name: 'Labels' }).fill('@errands @party');
    await form.getByRole('textbox', { name: 'New comment' }).fill('Call them *first*');
    await form.getByRole('button', { name: 'Add comment' }).click();
    await visible(form.getByRole('list', { name: 'Comments on Order the cake' }).locator('em', { hasText: 'first' }));
    await shots('rich-editor');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => task('Order the cake')?.durationMin).toBe(90);
    expect(task('Order the cake')).toMatchObject({ deadline: day(5), labels: ['errands', 'party'], description: expect.stringContaining('**Chocolate**') });
    expect(read((db) => listComments(db, task('Order the cake')!.id)).map((c) => c.text)).toEqual(['Call them *first*']);
    await visible(row(tagged, 'Order the cake').getByText('1h30m'));
    expect(await row(tagged, 'Order the cake').locator('.deadline').getAttribute('class')).toBe('deadline');

    // The filter box: a bad query says where; a good one lists its tasks; saved, it sits in the sidebar.
    await nav(/^Filters/).click();
    const query = main().getByRole('textbox', { name: 'Filter query' });
    await query.fill('@errands & (p1');
    await main().getByRole('button', { name: 'Run', exact: true }).click();
    const alert = main().getByRole('alert');
    await visible(alert);
    expect(await alert.innerText()).toMatch(/^filter: expected & or \| or a closing \) at position 15/);
    await query.fill('@party | /Shopping & overdue');
    await main().getByRole('button', { name: 'Run', exact: true }).click();
    const matching = list('Matching tasks');
    await visible(row(matching, 'Return the bottles'));
    await visible(row(matching, 'Order the cake'));
    expect(await matching.getByRole('listitem').count()).toBe(2);
    await main().getByRole('textbox', { name: 'Filter name' }).fill('Party errands');
    await main().getByRole('button', { name: 'Save filter' }).click();
    const saved = page.getByRole('navigation', { name: 'Main' }).getByRole('region', { name: 'Saved filters' });
    await visible(saved.getByRole('button', { name: 'Party errands', exact: true }));
    expect(read((db) => listFilters(db))).toEqual([expect.objectContaining({ name: 'Party errands', query: '@party | /Shopping & overdue' })]);
    await shots('rich-filters');

    // Opened from the sidebar, from another view: the query in the box and its tasks.
    await nav(/^Inbox/).click();
    await saved.getByRole('button', { name: 'Party errands', exact: true }).click();
    await expect.poll(() => query.inputValue()).toBe('@party | /Shopping & overdue');
    await visible(row(list('Matching tasks'), 'Return the bottles'));
    // Deleted (with Undo on its notice).
    await saved.getByRole('button', { name: 'Delete filter Party errands' }).click();
    await expect.poll(() => read((db) => listFilters(db)).length).toBe(0);
    await expect.poll(() => saved.count()).toBe(0);
  }, 120_000);
});
