// End to end: the task manager by hand, in Debian's Chromium through `tidy serve`. Task rows (complete with
// Undo, inline edit, flags and relative dues, keys), projects and lists (rename, archive, unarchive), list
// items (edit, archive) and the quick-add field. Every change is checked in the database through the CLI,
// and elements are found by role and accessible name.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addListItem, addTask, bookEvent, createProject, listTasks, makeList, openDatabase } from '../../src-main/core';
import { tidyIn } from '../support/cli-inproc';
import { screenshot } from '../support/browser';
import { localDay as day, startDataStage, type DataStage } from '../support/e2e';

let stage: DataStage | undefined;
let page: Page;
let dbPath = '';

const TASKS = [
  { content: 'Pay the venue deposit', priority: 1, due: day(-3) },
  { content: 'Order the cake', priority: 2, due: day(0) },
  { content: 'Send the invitations', priority: 3, due: day(1) },
  { content: 'Buy candles', priority: 4, due: null },
  { content: 'Book the photographer', priority: 4, due: day(3) },
];

beforeAll(async () => {
  stage = await startDataStage('tasks', (db, ctx) => {
    for (const name of ['Birthday Celebration', 'Personal Website', 'Old Stuff']) createProject(db, ctx(), { name });
    for (const t of TASKS) addTask(db, ctx(), t);
    addTask(db, ctx(), { content: 'Set up version control', project: 'Personal Website' });
    addTask(db, ctx(), { content: 'Write the about page', project: 'Personal Website' });
    addTask(db, ctx(), { content: 'Pick a theme', project: 'Personal Website' });
    makeList(db, ctx(), { name: 'Packing' });
    for (const text of ['Passport', 'Charger', 'Sunscreen']) addListItem(db, ctx(), { list: 'Packing', text });
    const noon = new Date();
    noon.setHours(12, 0, 0, 0);
    bookEvent(db, ctx(), { title: 'Lunch with Sam', start: noon.toISOString(), end: new Date(noon.getTime() + 3_600_000).toISOString() });
  });
  ({ page, dbPath } = stage);
}, 120_000);

afterAll(() => stage?.close());

interface TaskJson {
  id: string;
  content: string;
  project: string;
  status: string;
  priority: number;
  due: string | null;
  recurrence: string | null;
}
/** A task as stored, read from the database the host writes (WAL: a second reader is fine). */
function task(content: string): TaskJson | undefined {
  const db = openDatabase(dbPath);
  try {
    return listTasks(db, { status: 'all', limit: 10_000 }).tasks.find((t) => t.content === content);
  } finally {
    db.close();
  }
}
const log = async (): Promise<{ tool: string; summary: string }[]> => JSON.parse((await tidyIn(dbPath, ['log', '--json'])).stdout) as { tool: string; summary: string }[];

const shot = (name: string) => screenshot(page, name);
const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const notices = () => page.locator('.notices');
const inbox = () => page.getByRole('list', { name: 'Inbox tasks' });
const row = (content: string) => inbox().getByRole('listitem').filter({ has: page.getByRole('checkbox', { name: content, exact: true }) });
const focused = () =>
  page.evaluate(`(() => {
    const el = document.activeElement;
    if (!el || el === document.body) return 'body';
    return (el.getAttribute('role') || el.tagName.toLowerCase()) + ':' + (el.getAttribute('aria-label') || el.labels?.[0]?.textContent || '');
  })()`);

async function openInbox(): Promise<void> {
  await nav(/^Inbox/).click();
  await visible(inbox());
}

describe('task rows', () => {
  it('show the priority as a flag and the due relative to today, overdue in red', async () => {
    await openInbox();
    await expect.poll(() => inbox().getByRole('listitem').count()).toBe(TASKS.length);
    const overdue = row('Pay the venue deposit');
    expect(await overdue.getByRole('img', { name: 'Priority 1' }).count()).toBe(1);
    expect(await overdue.locator('.due time').innerText()).toBe('3 days ago');
    expect(await overdue.locator('.due').innerText()).toContain('(overdue)');
    expect(await overdue.locator('.due').getAttribute('title')).toMatch(/^Overdue, was due /);
    // (The node tsconfig has no DOM types: the page's window is typed here by what is used.)
    const colour = (l: Locator) => l.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color);
    const red = await colour(overdue.locator('.due'));
    const plain = await colour(row('Send the invitations').locator('.due'));
    expect(red).not.toBe(plain);
    expect(await row('Order the cake').getByRole('img', { name: 'Priority 2' }).count()).toBe(1);
    expect(await row('Order the cake').locator('.due').innerText()).toBe('today');
    expect(await row('Send the invitations').getByRole('img', { name: 'Priority 3' }).count()).toBe(1);
    expect(await row('Send the invitations').locator('.due').innerText()).toBe('tomorrow');
    // p4 is normal: no flag; no due, no date.
    expect(await row('Buy candles').getByRole('img').count()).toBe(0);
    expect(await row('Buy candles').locator('.due').count()).toBe(0);
    expect(await row('Book the photographer').locator('.due').innerText()).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun)$/);
    await shot('tasks-inbox');
  });

  it('a separate checkbox completes; the notice offers Undo, which reopens it through the action log', async () => {
    await openInbox();
    // A done task leaves the list at once, so click (check() would wait for a box that is gone) and read the database.
    await row('Buy candles').getByRole('checkbox', { name: 'Buy candles' }).click();
    await visible(notices().getByText('Completed: Buy candles'));
    await expect.poll(() => task('Buy candles')?.status).toBe('done');
    await expect.poll(() => row('Buy candles').count()).toBe(0);
    await notices().getByRole('button', { name: 'Undo' }).last().click();
    await expect.poll(() => task('Buy candles')?.status).toBe('open');
    await expect.poll(() => row('Buy candles').count()).toBe(1);
    expect((await log()).slice(0, 2).map((a) => a.tool)).toEqual(['undo', 'complete_task']);
  });

  it('clicking the text edits it inline: content, due in words, priority and project, each logged', async () => {
    await openInbox();
    await row('Buy candles').getByRole('button', { name: 'Edit: Buy candles' }).click();
    const form = page.getByRole('form', { name: 'Edit task: Buy candles' });
    await visible(form);
    await expect.poll(focused).toBe('input:Task');
    await form.getByRole('textbox', { name: 'Task' }).fill('Buy birthday candles');
    await form.getByRole('textbox', { name: 'Due' }).fill('tomorrow');
    await visible(form.getByText(/^tomorrow · /));
    await form.getByRole('combobox', { name: 'Priority' }).selectOption({ label: 'p2 · high' });
    await form.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'Birthday Celebration' });
    await shot('tasks-edit');
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => task('Buy birthday candles')).toMatchObject({ project: 'Birthday Celebration', priority: 2, due: day(1) });
    expect((await log()).slice(0, 2).map((a) => a.tool)).toEqual(['move_task', 'update_task']);
    // A due that is no date is refused in place, and nothing is stored.
    await row('Book the photographer').getByRole('button', { name: 'Edit: Book the photographer' }).click();
    const second = page.getByRole('form', { name: 'Edit task: Book the photographer' });
    await second.getByRole('textbox', { name: 'Due' }).fill('someday maybe');
    await second.getByRole('button', { name: 'Save' }).click();
    await visible(second.getByRole('alert'));
    expect(task('Book the photographer')?.due).toBe(day(3));
    await second.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => second.count()).toBe(0);
  });

  it('work from the keyboard: j/k and arrows move, Enter/e edit, d/p/m open the field, x completes, Esc leaves', async () => {
    await openInbox();
    const first = inbox().getByRole('checkbox').first();
    const names = await inbox().getByRole('checkbox').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    await first.focus();
    await page.keyboard.press('j');
    await expect.poll(focused).toBe(`input:${names[1]}`);
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe(`input:${names[2]}`);
    await page.keyboard.press('k');
    await expect.poll(focused).toBe(`input:${names[1]}`);
    // One Tab stop: the selected row.
    expect(await inbox().locator('input[tabindex="0"]').count()).toBe(1);
    for (const [key, field] of [
      ['Enter', 'input:Task'],
      ['e', 'input:Task'],
      ['d', 'input:Due'],
      ['p', 'select:Priority'],
      ['m', 'select:Project'],
    ] as const) {
      await page.keyboard.press(key);
      await expect.poll(focused).toBe(field);
      await page.keyboard.press('Escape');
      await expect.poll(focused).toBe(`input:${names[1]}`);
    }
    await page.keyboard.press('x');
    await expect.poll(() => task(names[1]!)?.status).toBe('done');
    await expect.poll(focused).toBe(`input:${names[2]}`);
    await notices().getByRole('button', { name: 'Undo' }).last().click();
    await expect.poll(() => task(names[1]!)?.status).toBe('open');
  });
});

describe('projects and lists by hand', () => {
  it('rename, archive and unarchive a project, each undoable in Actions', async () => {
    await nav('Projects').click();
    await page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: /^Old Stuff/ }).click();
    await page.getByRole('button', { name: 'Rename project Old Stuff' }).click();
    const name = page.getByRole('textbox', { name: 'New name of the project' });
    await name.fill('Older Stuff');
    await name.press('Enter');
    await visible(page.getByRole('heading', { name: 'Older Stuff' }));
    await page.getByRole('button', { name: 'Archive project Older Stuff' }).click();
    await visible(notices().getByText('Archived the project Older Stuff'));
    await expect.poll(() => page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: /^Older Stuff/ }).count()).toBe(0);
    await page.getByText('Archived projects', { exact: true }).click();
    await shot('tasks-projects-archived');
    await page.getByRole('button', { name: 'Unarchive project Older Stuff' }).click();
    await visible(page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: /^Older Stuff/ }));
    expect((await log()).slice(0, 3).map((a) => a.tool)).toEqual(['unarchive_project', 'archive_project', 'rename_project']);
  });

  it('a refused rename is said by the field, and nothing changes', async () => {
    await page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: /^Older Stuff/ }).click();
    await page.getByRole('button', { name: 'Rename project Older Stuff' }).click();
    const name = page.getByRole('textbox', { name: 'New name of the project' });
    await name.fill('Personal Website');
    await name.press('Enter');
    await visible(page.getByRole('form', { name: 'Rename project Older Stuff' }).getByRole('alert'));
    await name.press('Escape');
    await visible(page.getByRole('heading', { name: 'Older Stuff' }));
  });

  it('rename and archive a list; edit and archive its items (Undo brings an item back)', async () => {
    await nav('Lists').click();
    await visible(page.getByRole('checkbox', { name: 'Passport' }));
    await page.getByRole('button', { name: 'Edit item Charger' }).click();
    const text = page.getByRole('textbox', { name: 'Item text' });
    await text.fill('Phone charger');
    await text.press('Enter');
    await visible(page.getByRole('checkbox', { name: 'Phone charger' }));
    await page.getByRole('button', { name: 'Archive item Sunscreen' }).click();
    await expect.poll(() => page.getByRole('checkbox', { name: 'Sunscreen' }).count()).toBe(0);
    await notices().getByRole('button', { name: 'Undo' }).last().click();
    await visible(page.getByRole('checkbox', { name: 'Sunscreen' }));
    await shot('tasks-list-items');

    await page.getByRole('button', { name: 'Rename list Packing' }).click();
    const name = page.getByRole('textbox', { name: 'New name of the list' });
    await name.fill('Packing for Lisbon');
    await name.press('Enter');
    await visible(page.getByRole('heading', { name: 'Packing for Lisbon' }));
    await page.getByRole('button', { name: 'Archive list Packing for Lisbon' }).click();
    await visible(page.getByText('No lists yet', { exact: false }));
    await page.getByText('Archived lists', { exact: true }).click();
    await page.getByRole('button', { name: 'Unarchive list Packing for Lisbon' }).click();
    await visible(page.getByRole('checkbox', { name: 'Phone charger' }));
    const tools = (await log()).map((a) => a.tool);
    for (const t of ['edit_list_item', 'archive_list_item', 'undo', 'rename_list', 'archive_list', 'unarchive_list']) expect(tools).toContain(t);
  });
});

describe('the quick-add field', () => {
  it('highlights what it understands as you type, says what will be stored, and stores it', async () => {
    await openInbox();
    const box = page.getByRole('textbox', { name: 'New inbox task' });
    await box.fill('Buy milk tomorrow #Birthday Celebration p1');
    const form = page.locator('form.quick-add').first();
    await expect.poll(() => form.locator('.qa-chip.qa-project').innerText()).toBe('Project Birthday Celebration');
    expect(await form.locator('mark.qa-date').innerText()).toBe('tomorrow');
    expect(await form.locator('mark.qa-project').innerText()).toBe('#Birthday Celebration');
    expect(await form.locator('mark.qa-priority').innerText()).toBe('p1');
    const summary = await form.locator('.qa-summary').innerText();
    expect(summary).toContain('Due tomorrow');
    expect(summary).toContain('Priority p1');
    // The summary is the field's description, so a screen reader hears it too.
    const describedBy = (await box.getAttribute('aria-describedby'))!;
    expect(await page.locator(`[id="${describedBy.split(' ').at(-1)}"]`).innerText()).toContain('Birthday Celebration');
    await shot('tasks-quick-add');
    await box.press('Enter');
    await expect.poll(() => task('Buy milk')).toMatchObject({ project: 'Birthday Celebration', priority: 1, due: day(1) });
    await expect.poll(() => box.inputValue()).toBe('');
    // A repeat is stored as a rule and shown on the row.
    await box.fill('Water the plants every monday');
    await box.press('Enter');
    await expect.poll(() => task('Water the plants')?.recurrence).toBe('FREQ=WEEKLY;BYDAY=MO');
    await visible(row('Water the plants').getByRole('img', { name: 'Repeats every Monday' }));
    // Archived from its editor (out of the way of the views below), with Undo on the notice.
    await row('Water the plants').getByRole('button', { name: 'Edit: Water the plants' }).click();
    await page.getByRole('form', { name: 'Edit task: Water the plants' }).getByRole('button', { name: 'Archive task' }).click();
    await expect.poll(() => task('Water the plants')?.status).toBe('archived');
    await visible(notices().getByText('Archived: Water the plants'));
    expect((await log())[0]!.tool).toBe('archive_task');
  });

  it('marks an unknown #project and keeps it in the text', async () => {
    const box = page.getByRole('textbox', { name: 'New inbox task' });
    await box.fill('Plan the trip #Holidays');
    const form = page.locator('form.quick-add').first();
    expect(await form.locator('mark.qa-unknown').innerText()).toBe('#Holidays');
    await visible(form.getByText('No project “Holidays”: it stays in the text'));
    await box.press('Enter');
    await expect.poll(() => task('Plan the trip #Holidays')?.project).toBe('Inbox');
  });
});

/** Task contents of a project in its stored order. */
function order(project: string): string[] {
  const db = openDatabase(dbPath);
  try {
    return listTasks(db, { project }).tasks.map((t) => t.content);
  } finally {
    db.close();
  }
}

describe('reordering within a project', () => {
  const tasksIn = () => page.getByRole('list', { name: 'Tasks in Personal Website' });
  it('Alt+↑/↓ move the focused task, logged as reorder_task', async () => {
    await nav('Projects').click();
    await page.getByRole('list', { name: 'Projects' }).getByRole('button', { name: /^Personal Website/ }).click();
    await visible(tasksIn());
    expect(order('Personal Website')).toEqual(['Set up version control', 'Write the about page', 'Pick a theme']);
    await tasksIn().getByRole('checkbox', { name: 'Pick a theme' }).focus();
    await page.keyboard.press('Alt+ArrowUp');
    await expect.poll(() => order('Personal Website')).toEqual(['Set up version control', 'Pick a theme', 'Write the about page']);
    await expect.poll(() => tasksIn().getByRole('checkbox').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual(order('Personal Website'));
    await page.keyboard.press('Alt+ArrowDown');
    await expect.poll(() => order('Personal Website')).toEqual(['Set up version control', 'Write the about page', 'Pick a theme']);
    expect((await log())[0]!.tool).toBe('reorder_task');
  });

  it('by drag and drop', async () => {
    await tasksIn().getByRole('listitem').filter({ hasText: 'Pick a theme' }).dragTo(tasksIn().getByRole('listitem').filter({ hasText: 'Set up version control' }));
    await expect.poll(() => order('Personal Website')).toEqual(['Pick a theme', 'Set up version control', 'Write the about page']);
  });
});

describe('Today, Upcoming and Completed', () => {
  it('Today marks what is overdue and counts it in the sidebar', async () => {
    await nav(/^Today/).click();
    const overdue = page.getByRole('list', { name: 'Overdue tasks' });
    await visible(overdue);
    expect(await overdue.getByRole('checkbox').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual(['Pay the venue deposit']);
    const due = page.getByRole('list', { name: 'Tasks due today' });
    expect(await due.getByRole('checkbox').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')))).toEqual(['Order the cake']);
    await expect.poll(() => nav(/^Today/).innerText()).toMatch(/2\s*due, 1 overdue/);
    // Today's events sit beside today's tasks.
    await visible(page.getByRole('list', { name: 'Today’s events' }).getByRole('listitem', { name: /Lunch with Sam/ }));
    await shot('tasks-today');
    // Added here, a task is due today unless its line says otherwise.
    const box = page.getByRole('textbox', { name: 'New task for today' });
    await box.fill('Call the caterer');
    await box.press('Enter');
    await expect.poll(() => task('Call the caterer')?.due).toBe(day(0));
    await visible(due.getByRole('checkbox', { name: 'Call the caterer' }));
    await expect.poll(() => nav(/^Today/).innerText()).toMatch(/3\s*due, 1 overdue/);
  });

  it('Upcoming groups the next seven days by date', async () => {
    await nav(/^Upcoming/).click();
    const tomorrow = page.getByRole('list', { name: /^Tasks due Tomorrow · / });
    await visible(tomorrow);
    const names = await tomorrow.getByRole('checkbox').evaluateAll((els) => els.map((e) => e.getAttribute('aria-label')));
    expect(names).toEqual(expect.arrayContaining(['Send the invitations', 'Buy birthday candles', 'Buy milk']));
    expect(await page.getByRole('list', { name: /^Tasks due Today · / }).getByRole('checkbox', { name: 'Order the cake' }).count()).toBe(1);
    expect(await page.getByRole('main').getByRole('heading', { level: 2 }).count()).toBeGreaterThanOrEqual(3);
    await shot('tasks-upcoming');
  });

  it('Completed lists what was done; unticking reopens it', async () => {
    await nav(/^Upcoming/).click();
    await page.getByRole('checkbox', { name: 'Send the invitations' }).click();
    await expect.poll(() => task('Send the invitations')?.status).toBe('done');
    await nav('Completed').click();
    const done = page.getByRole('list', { name: 'Completed tasks' });
    await visible(done.getByRole('checkbox', { name: 'Send the invitations' }));
    expect(await done.getByRole('checkbox', { name: 'Send the invitations' }).isChecked()).toBe(true);
    await shot('tasks-completed');
    await done.getByRole('checkbox', { name: 'Send the invitations' }).click();
    await expect.poll(() => task('Send the invitations')?.status).toBe('open');
    await expect.poll(() => done.getByRole('checkbox', { name: 'Send the invitations' }).count()).toBe(0);
  });
});

describe('search', () => {
  it('Ctrl+F opens the search box; results are grouped; Enter opens the first', async () => {
    await nav(/^Inbox/).click();
    await page.getByRole('heading', { name: 'Inbox', level: 1 }).focus();
    await page.keyboard.press('Control+f');
    await expect.poll(focused).toBe('input:Search');
    await page.keyboard.type('candles');
    const tasksFound = page.getByRole('list', { name: 'Tasks found' });
    await visible(tasksFound.getByRole('button', { name: /Buy birthday candles/ }));
    await shot('tasks-search');
    await page.keyboard.press('Enter');
    await visible(page.getByRole('heading', { name: 'Birthday Celebration', level: 2 }));
    await expect.poll(focused).toBe('input:Buy birthday candles');
  });

  it('/ opens it too, and finds projects, lists and items, each opening its view', async () => {
    await page.getByRole('heading', { name: 'Projects', level: 1 }).focus();
    await page.keyboard.press('/');
    await expect.poll(focused).toBe('input:Search');
    await page.getByRole('searchbox', { name: 'Search' }).fill('charger');
    await visible(page.getByRole('list', { name: 'List items found' }).getByRole('button', { name: /Phone charger/ }));
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await visible(page.getByRole('checkbox', { name: 'Phone charger' }));
    await page.keyboard.press('/');
    await page.getByRole('searchbox', { name: 'Search' }).fill('website');
    await visible(page.getByRole('list', { name: 'Projects found' }).getByRole('button', { name: /Personal Website/ }));
    await page.getByRole('searchbox', { name: 'Search' }).fill('zzzz nothing here');
    await visible(page.getByText('Nothing found for “zzzz nothing here”.'));
  });
});

describe('how it looks', () => {
  it('in dark, and at 800 px wide', async () => {
    await openInbox();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.getByRole('textbox', { name: 'New inbox task' }).fill('Water the plants every monday 9am p3 #Nowhere');
    await row('Order the cake').getByRole('button', { name: 'Edit: Order the cake' }).click();
    await shot('tasks-inbox-dark');
    await page.getByRole('form', { name: 'Edit task: Order the cake' }).getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('textbox', { name: 'New inbox task' }).fill('');
    await nav(/^Today/).click();
    await visible(page.getByRole('list', { name: 'Overdue tasks' }));
    await shot('tasks-today-dark');
    await nav('Search').click();
    await page.getByRole('searchbox', { name: 'Search' }).fill('the');
    await visible(page.getByRole('list', { name: 'Tasks found' }));
    await shot('tasks-search-dark');
    await page.emulateMedia({ colorScheme: 'light' });
    await page.setViewportSize({ width: 800, height: 700 });
    await nav(/^Upcoming/).click();
    await visible(page.getByRole('list', { name: /^Tasks due Tomorrow · / }));
    await shot('tasks-upcoming-800');
    await openInbox();
    await page.getByRole('textbox', { name: 'New inbox task' }).fill('Renew passport next friday 3pm p2 #Personal Website');
    await shot('tasks-inbox-800');
    await page.getByRole('textbox', { name: 'New inbox task' }).fill('');
    await page.setViewportSize({ width: 1280, height: 800 });
  });
});

describe('repeating, from the task editor', () => {
  const editor = (content: string) => page.getByRole('form', { name: `Edit task: ${content}` });
  const repeats = (content: string) => editor(content).getByRole('textbox', { name: 'Repeats' });

  it('r opens Repeats; the words are said as typed; Enter saves, logged; Ctrl+Z undoes it', async () => {
    await openInbox();
    await row('Order the cake').getByRole('checkbox', { name: 'Order the cake' }).focus();
    await page.keyboard.press('r');
    await expect.poll(focused).toBe('input:Repeats');
    await page.keyboard.type('every weekday');
    // The meaning is the field's description, so a screen reader hears it too.
    const describedBy = (await repeats('Order the cake').getAttribute('aria-describedby'))!;
    await expect.poll(() => page.locator(`[id="${describedBy}"]`).innerText()).toBe('repeats every weekday');
    await shot('tasks-edit-repeat');
    await page.keyboard.press('Enter');
    await expect.poll(() => task('Order the cake')?.recurrence).toBe('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR');
    expect((await log())[0]).toMatchObject({ tool: 'update_task', summary: expect.stringContaining('repeats every weekday') });
    await visible(row('Order the cake').getByRole('img', { name: 'Repeats every weekday' }));
    expect(await row('Order the cake').getByText('↻ every weekday').count()).toBe(1);
    await expect.poll(focused).toBe('input:Order the cake');
    await page.keyboard.press('Control+z');
    await expect.poll(() => task('Order the cake')?.recurrence).toBeNull();
    await expect.poll(() => row('Order the cake').getByRole('img', { name: /^Repeats/ }).count()).toBe(0);
    expect((await log())[0]!.tool).toBe('undo');
  });

  it('Stop repeating empties the field; saving stores no repeat, the due kept', async () => {
    await openInbox();
    await row('Order the cake').getByRole('checkbox', { name: 'Order the cake' }).focus();
    await page.keyboard.press('r');
    await page.keyboard.type('every 2 weeks');
    await page.keyboard.press('Enter');
    await expect.poll(() => task('Order the cake')?.recurrence).toBe('FREQ=WEEKLY;INTERVAL=2');
    await visible(row('Order the cake').getByRole('img', { name: 'Repeats every 2 weeks' }));
    await expect.poll(focused).toBe('input:Order the cake');
    await page.keyboard.press('r');
    await expect.poll(() => repeats('Order the cake').inputValue()).toBe('every 2 weeks');
    await page.keyboard.press('Tab');
    await expect.poll(focused).toBe('button:');
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Stop repeating');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('input:Repeats');
    expect(await repeats('Order the cake').inputValue()).toBe('');
    await visible(editor('Order the cake').getByText('does not repeat'));
    await page.keyboard.press('Enter');
    await expect.poll(() => task('Order the cake')?.recurrence).toBeNull();
    expect(task('Order the cake')?.due).toBe(day(0));
    expect((await log())[0]).toMatchObject({ tool: 'update_task', summary: expect.stringContaining('does not repeat') });
    await expect.poll(() => row('Order the cake').getByRole('img', { name: /^Repeats/ }).count()).toBe(0);
  });

  it('a repeating task without a due gets its first repeat, said before saving', async () => {
    await openInbox();
    await row('Pay the venue deposit').getByRole('button', { name: 'Edit: Pay the venue deposit' }).click();
    const form = editor('Pay the venue deposit');
    await form.getByRole('textbox', { name: 'Due' }).fill('');
    await form.getByRole('textbox', { name: 'Repeats' }).fill('every day');
    await visible(form.getByText(/^a repeating task needs a due date: today · /));
    await form.getByRole('button', { name: 'Save' }).click();
    await expect.poll(() => task('Pay the venue deposit')).toMatchObject({ recurrence: 'FREQ=DAILY', due: day(0) });
  });

  it('refuses hostile words in place, saving nothing', async () => {
    await openInbox();
    await row('Book the photographer').getByRole('button', { name: 'Edit: Book the photographer' }).click();
    const form = editor('Book the photographer');
    const field = form.getByRole('textbox', { name: 'Repeats' });
    const before = (await log()).length;
    const cases: [string, string][] = [
      ['a'.repeat(10_000), 'That is too long for a repeat rule (10000 characters).'],
      ['every -1 days', '"every -1 days": the number must be from 1 to 999.'],
      ['every 99999 years', '"every 99999 years": the number must be from 1 to 999.'],
      ['<img src=x onerror="window.pwned=1">', '"<img src=x onerror="window.pwned=1">" is not a repeat Tidy understands.'],
      ['every blue moon', '"every blue moon" is not a repeat Tidy understands.'],
    ];
    for (const [text, message] of cases) {
      await field.fill(text);
      expect(await field.getAttribute('aria-invalid')).toBe('true');
      await visible(form.getByText(message, { exact: false }).first());
      await form.getByRole('button', { name: 'Save' }).click();
      await expect.poll(() => form.getByRole('alert').innerText()).toContain(message);
    }
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await form.locator('img').count()).toBe(0);
    expect(task('Book the photographer')).toMatchObject({ recurrence: null, due: day(3) });
    expect((await log()).length).toBe(before);
    // Words it reads clear the error; Esc still leaves without saving them.
    await field.fill('every month on the 1st');
    await visible(form.getByText('repeats every month on the 1st'));
    expect(await field.getAttribute('aria-invalid')).toBeNull();
    await page.keyboard.press('Escape');
    await expect.poll(() => form.count()).toBe(0);
    expect(task('Book the photographer')?.recurrence).toBeNull();
  });
});

describe('Completed by day', () => {
  it('groups what was done under Today, Yesterday and dates, newest first, with counts', async () => {
    for (const content of ['Buy milk', 'Pick a theme', 'Write the about page']) {
      const t = task(content)!;
      if (t.status !== 'done') expect((await tidyIn(dbPath, ['done', t.id])).code).toBe(0);
    }
    const db = openDatabase(dbPath);
    try {
      // Done on earlier days: the stored instant moved back (local noon, a day and three days ago).
      const noonAgo = (days: number) => {
        const d = new Date();
        d.setDate(d.getDate() - days);
        d.setHours(12, 0, 0, 0);
        return d.toISOString();
      };
      db.prepare(`UPDATE tasks SET completed_at = ? WHERE content = ?`).run(noonAgo(1), 'Pick a theme');
      db.prepare(`UPDATE tasks SET completed_at = ? WHERE content = ?`).run(noonAgo(3), 'Write the about page');
    } finally {
      db.close();
    }
    await openInbox();
    await nav('Completed').click();
    const done = page.getByRole('list', { name: 'Completed tasks' });
    await visible(done.getByRole('heading', { name: /^Yesterday/ }));
    const headings = await done.getByRole('heading', { level: 3 }).allInnerTexts();
    const three = new Date();
    three.setDate(three.getDate() - 3);
    const title = new Intl.DateTimeFormat('en-GB', { weekday: 'short', day: 'numeric', month: 'short' }).format(three);
    expect(headings.map((h) => h.replace(/\s+/g, ' '))).toEqual([expect.stringMatching(/^Today \d+ done$/), 'Yesterday 1 done', `${title} 1 done`]);
    // Each task is under its day: the rows in order, headings between them.
    const order = await done.locator(':scope > li').evaluateAll((els) => els.map((e) => (e.querySelector('h3') ? `# ${e.querySelector('h3')!.firstChild!.textContent}` : e.querySelector('input')!.getAttribute('aria-label'))));
    expect(order.slice(-4)).toEqual(['# Yesterday', 'Pick a theme', `# ${title}`, 'Write the about page']);
    expect(order[0]).toBe('# Today');
    // Still one Tab stop, and the arrows go over the headings.
    expect(await done.locator('input[tabindex="0"]').count()).toBe(1);
    await done.getByRole('checkbox', { name: 'Pick a theme' }).focus();
    await page.keyboard.press('ArrowDown');
    await expect.poll(focused).toBe('input:Write the about page');
    await shot('tasks-completed-days');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot('tasks-completed-days-dark');
    await nav(/^Inbox/).click();
    await row('Order the cake').getByRole('checkbox', { name: 'Order the cake' }).focus();
    await page.keyboard.press('r');
    await page.keyboard.type('every monday');
    await shot('tasks-edit-repeat-dark');
    await page.keyboard.press('Escape');
    await page.emulateMedia({ colorScheme: 'light' });
  });
});
