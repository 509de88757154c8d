// End to end, in Chromium through `tidy serve` with the fake model, one page flow: the Routines view refuses a
// schedule it cannot read in one line under the form, adds "every weekday at 8am" / "plan my day" with its
// schedule in words and next run, runs it now against the fake model (which adds a task), shows the run
// in the history with its change (axe finds no serious WCAG violation there), undoes it there (the task is gone), opens
// the run's trace in the chat, pauses and resumes the routine, answers an approval a run waits for (the run that
// goes on is told in a notice), edits the routine in place (schedule preview, tools, limits) and undoes the edit, restores a request
// overwritten by another device from the edit form's sync history;
// Settings shows create_routine as always asking and the tray switch.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src-main/core';
import type { FakeOpenAI } from '../fakes/openai-server';
import { tidyIn } from '../support/cli-inproc';
import { screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';

let stage: Stage | undefined;
let page: Page;
let fake: FakeOpenAI;
let dbPath = '';
let consoleProblems: string[] = [];

beforeAll(async () => {
  stage = await startStage('routines', { page: { viewport: { width: 1280, height: 900 }, timeout: 30_000 } });
  ({ fake, dbPath, page, problems: consoleProblems } = stage);
}, 120_000);

afterAll(() => stage?.close());

/** The machine is loaded on CI: conditions get long to come true (vitest's default is 1 s). */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 30_000, interval: 100 });
const TASK = 'Block 9-11 for the conference talk';
const taskContents = async (): Promise<string[]> => (JSON.parse((await tidyIn(dbPath, ['tasks', '--inbox', '--json'])).stdout) as { content: string }[]).map((t) => t.content);
const form = () => page.getByRole('form', { name: 'New routine' });
const routine = () => page.getByRole('list', { name: 'Routines' }).getByRole('listitem', { name: 'Morning plan' });
const history = () => page.getByRole('list', { name: 'Runs, newest first' });

describe('the Routines view', () => {
  it('adds a routine from words, runs it now, shows its change in the history and undoes it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Routines' }).click();
    await page.getByRole('heading', { name: 'Routines', level: 1 }).waitFor();
    await page.getByText('No routines yet.').waitFor();

    // A schedule Tidy cannot read: its one-line error under the form, the words kept.
    await form().getByRole('textbox', { name: 'Name' }).fill('Morning plan');
    await form().getByRole('textbox', { name: 'Schedule' }).fill('whenever I feel like it');
    await form().getByRole('textbox', { name: 'Request' }).fill('plan my day');
    await form().getByRole('button', { name: 'Add routine' }).click();
    await poll(() => form().getByRole('alert').innerText()).toMatch(/is not a schedule Tidy understands/);
    expect(await form().getByRole('textbox', { name: 'Schedule' }).getAttribute('aria-invalid')).toBe('true');
    expect(await form().getByRole('textbox', { name: 'Request' }).inputValue()).toBe('plan my day');

    await form().getByRole('textbox', { name: 'Schedule' }).fill('every weekday at 8am');
    await form().getByRole('button', { name: 'Add routine' }).click();
    await routine().waitFor();
    await poll(() => routine().innerText()).toMatch(/every weekday at 8:00 AM/i);
    await poll(() => routine().innerText()).toContain('Next run:');
    expect(await form().getByRole('alert').count()).toBe(0);
    expect(await form().getByRole('textbox', { name: 'Name' }).inputValue()).toBe('');
    const listed = JSON.parse((await tidyIn(dbPath, ['routines', 'list', '--json'])).stdout) as { name: string; request: string; rrule: string }[];
    expect(listed.map((r) => [r.name, r.request])).toEqual([['Morning plan', 'plan my day']]);
    expect(listed[0]!.rrule).toContain('BYDAY=MO,TU,WE,TH,FR');

    // Run now: the fake model adds one task, then answers.
    fake.enqueue({ toolCalls: [{ name: 'add_task', arguments: { content: TASK } }] }, { text: 'Your day is planned: I blocked the morning for the talk.' });
    await routine().getByRole('button', { name: 'Run Morning plan now' }).click();
    const run = history().getByRole('listitem').first();
    await poll(() => run.innerText()).toMatch(/Done/);
    const changes = run.getByRole('region', { name: 'Changes' });
    await poll(() => changes.innerText()).toContain(TASK);
    expect(await taskContents()).toContain(TASK);
    await poll(() => routine().innerText()).toMatch(/Last: Done/);
    await screenshot(page, 'routines-run');
    // axe-core: no serious or critical WCAG 2.1 A/AA violation in the view, light and dark.
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
      expect(violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${colorScheme}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    // Undo all from the history: the task is gone, the run says Undone and offers Redo all.
    await changes.getByRole('button', { name: "Undo all changes of Morning plan's run" }).click();
    await changes.getByRole('button', { name: "Redo all changes of Morning plan's run" }).waitFor();
    await poll(() => changes.innerText()).toContain('Undone');
    await poll(() => taskContents()).not.toContain(TASK);

    // The run links to its trace: the routine's conversation opens in the chat at that run.
    const runId = (JSON.parse((await tidyIn(dbPath, ['routines', 'history', '--json'])).stdout) as { runId: string | null }[])[0]!.runId!;
    await run.getByRole('button', { name: /^Open the trace of Morning plan, / }).click();
    await page.getByRole('textbox', { name: 'Message' }).waitFor();
    await poll(() => page.locator('.conversation-item[aria-current="true"]').getAttribute('title')).toBe('plan my day');
    await poll(() => page.getByRole('complementary', { name: 'Trace' }).getByRole('combobox', { name: 'Run' }).inputValue()).toBe(runId);
    await page.getByRole('log', { name: 'Messages' }).getByText('Your day is planned: I blocked the morning for the talk.').waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Routines' }).click();
    await routine().waitFor();

    // Pause and resume: no next run while paused.
    await routine().getByRole('button', { name: 'Pause Morning plan' }).click();
    await poll(() => routine().innerText()).toContain('No next run while paused');
    await screenshot(page, 'routines-paused');
    await routine().getByRole('button', { name: 'Resume Morning plan' }).click();
    await poll(() => routine().innerText()).toContain('Next run:');

    // A run that waits for an answer; approved here, it goes on in a new run whose change is told in a
    // notice (this window did not start that run, so the notice is the routine's own).
    const taskId = [...stage!.ids.values()][0]!;
    fake.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { task_id: taskId } }] });
    await routine().getByRole('button', { name: 'Run Morning plan now' }).click();
    const waiting = page.getByRole('list', { name: 'Pending approvals' }).getByRole('listitem').first();
    await waiting.waitFor();
    fake.enqueue({ text: 'Completed it.' });
    await waiting.getByRole('button', { name: 'Approve' }).click();
    const told = page.locator('.notice').filter({ hasText: 'Routine "Morning plan" changed things' });
    await told.getByRole('button', { name: 'Show routines' }).waitFor();
    await poll(async () => (JSON.parse((await tidyIn(dbPath, ['tasks', '--done', '--json'])).stdout) as { id: string }[]).map((t) => t.id)).toContain(taskId);
    await screenshot(page, 'routines-notice');

    // Edited in place: the schedule's one-line error while typing, then its words and next three runs;
    // name, request, missed runs, allowed tools and limits saved as one logged change, undone from its notice.
    await routine().getByRole('button', { name: 'Edit Morning plan' }).click();
    const edit = page.getByRole('form', { name: 'Edit routine Morning plan' });
    const schedule = edit.getByRole('textbox', { name: 'Schedule' });
    await schedule.fill('whenever I feel like it');
    await poll(() => edit.getByRole('alert').innerText()).toMatch(/is not a schedule Tidy understands/);
    expect(await schedule.getAttribute('aria-invalid')).toBe('true');
    await schedule.fill('every friday 4pm');
    await poll(() => edit.getByRole('status').innerText()).toMatch(/friday at 4:00 PM\. Next: .+; .+; .+/i);
    await edit.getByRole('textbox', { name: 'Name' }).fill('Friday review');
    await edit.getByRole('textbox', { name: 'Request' }).fill('review the week');
    await edit.getByRole('combobox', { name: 'Missed runs' }).selectOption('skip');
    await edit.getByRole('textbox', { name: 'Allowed tools' }).fill('get_inbox_tasks, add_task');
    await edit.getByRole('textbox', { name: 'Max actions' }).fill('5');
    await edit.getByRole('textbox', { name: 'Time limit (seconds)' }).fill('60');
    await screenshot(page, 'routines-edit');
    await edit.getByRole('button', { name: 'Save' }).click();
    const friday = page.getByRole('list', { name: 'Routines' }).getByRole('listitem', { name: 'Friday review' });
    await poll(() => friday.innerText()).toMatch(/every friday at 4:00 PM/i);
    type Listed = { name: string; request: string; rrule: string; catchUp: string; tools: string[] | null; maxActions: number | null; timeLimitSec: number | null };
    const listedNow = async () => JSON.parse((await tidyIn(dbPath, ['routines', 'list', '--json'])).stdout) as Listed[];
    expect(await listedNow()).toMatchObject([{ name: 'Friday review', request: 'review the week', catchUp: 'skip', tools: ['get_inbox_tasks', 'add_task'], maxActions: 5, timeLimitSec: 60 }]);
    expect((await listedNow())[0]!.rrule).toContain('BYDAY=FR');
    await page.locator('.notice').filter({ hasText: 'Changed routine: Friday review' }).getByRole('button', { name: 'Undo' }).click();
    await routine().waitFor();
    await poll(async () => (await listedNow())[0]!.name).toBe('Morning plan');
    expect(await listedNow()).toMatchObject([{ request: 'plan my day', catchUp: 'once', tools: null, maxActions: null, timeLimitSec: null }]);
    expect((await listedNow())[0]!.rrule).toContain('BYDAY=MO,TU,WE,TH,FR');

    // Its request edited on another device at the same time and overwritten here (as sync records it): the edit
    // form shows the sync history, and Restore writes it back as an ordinary, undoable edit.
    const db = openDatabase(dbPath);
    try {
      const id = (db.prepare(`SELECT id FROM routines WHERE name = 'Morning plan'`).get() as { id: string }).id;
      const [desktop, laptop] = ['00000000000000b2', '00000000000000a1'];
      db.prepare(`INSERT INTO sync_devices (device, name) VALUES (?, 'Desktop'), (?, 'Laptop')`).run(desktop, laptop);
      const at = (ms: number, device: string) => `${new Date(ms).toISOString()}-0000-${device}`;
      db.prepare(`INSERT INTO sync_conflicts (tbl, row, col, lost_value, lost_hlc, lost_device, won_hlc, won_device, recorded_at) VALUES ('routines', ?, 'request', 'plan my week', ?, ?, ?, ?, ?)`).run(
        id,
        at(Date.now() - 120_000, desktop),
        desktop,
        at(Date.now() - 60_000, laptop),
        laptop,
        new Date().toISOString(),
      );
    } finally {
      db.close();
    }
    await routine().getByRole('button', { name: 'Edit Morning plan' }).click();
    const again = page.getByRole('form', { name: 'Edit routine Morning plan' });
    const syncHistory = again.getByRole('list', { name: 'Sync history of Morning plan' });
    await syncHistory.getByText(/^Request changed on Desktop at .+ to “plan my week”, overwritten by Laptop at .+ · Restore$/).waitFor();
    await syncHistory.getByRole('button', { name: 'Restore request “plan my week”' }).click();
    await again.getByRole('status').filter({ hasText: 'Restored the request written on Desktop. Undo it in Actions.' }).waitFor();
    await poll(async () => (await listedNow())[0]!.request).toBe('plan my week');
    expect(await again.getByRole('textbox', { name: 'Request' }).inputValue()).toBe('plan my week');
    await again.getByRole('button', { name: 'Cancel' }).click();

    // Settings: create_routine always asks, so it is not offered as a choice.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Settings' }).click();
    const approvals = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Before it runs' }) });
    await approvals.getByRole('row', { name: /Create routine/ }).getByText('Always asks (not configurable)').waitFor();
    expect(await page.getByRole('combobox', { name: 'Approval for Create routine' }).count()).toBe(0);
    await page.getByRole('combobox', { name: 'Approval for Complete task', exact: true }).waitFor();

    // The tray switch: on by default, saved as the setting keepInTray.
    const tray = page.getByRole('switch', { name: 'Keep Tidy running in the tray when the window closes (routines keep running)' });
    await poll(() => tray.isChecked()).toBe(true);
    await tray.click();
    await poll(async () => (await tidyIn(dbPath, ['config', 'get', 'keepInTray'])).stdout.trim()).toBe('false');
    await page.getByText('Closing the window quits Tidy').waitFor();
    await screenshot(page, 'settings-tray');
    expect(consoleProblems).toEqual([]);
  }, 360_000);
});
