// End to end, in Chromium through `tidy serve` with the fake model, one page flow: the Routines view refuses a
// schedule it cannot read in one line under the form, adds "every weekday at 8am" / "plan my day" with its
// schedule in words and next run, runs it now against the fake model (which adds a task), shows the run
// in the history with its change (axe finds no serious WCAG violation there), undoes it there (the task is gone), and pauses and resumes the routine.
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAI } from '../fakes/openai-server';
import { tidy } from '../support/cli';
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
const taskContents = (): string[] => (JSON.parse(tidy(dbPath, ['tasks', '--inbox', '--json']).stdout) as { content: string }[]).map((t) => t.content);
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
    await poll(() => routine().innerText()).toMatch(/every weekday at 08:00/i);
    await poll(() => routine().innerText()).toContain('Next run:');
    expect(await form().getByRole('alert').count()).toBe(0);
    expect(await form().getByRole('textbox', { name: 'Name' }).inputValue()).toBe('');
    const listed = JSON.parse(tidy(dbPath, ['routines', 'list', '--json']).stdout) as { name: string; request: string; rrule: string }[];
    expect(listed.map((r) => [r.name, r.request])).toEqual([['Morning plan', 'plan my day']]);
    expect(listed[0]!.rrule).toContain('BYDAY=MO,TU,WE,TH,FR');

    // Run now: the fake model adds one task, then answers.
    fake.enqueue({ toolCalls: [{ name: 'add_task', arguments: { content: TASK } }] }, { text: 'Your day is planned: I blocked the morning for the talk.' });
    await routine().getByRole('button', { name: 'Run Morning plan now' }).click();
    const run = history().getByRole('listitem').first();
    await poll(() => run.innerText()).toMatch(/Done/);
    const changes = run.getByRole('region', { name: 'Changes' });
    await poll(() => changes.innerText()).toContain(TASK);
    expect(taskContents()).toContain(TASK);
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

    // Pause and resume: no next run while paused.
    await routine().getByRole('button', { name: 'Pause Morning plan' }).click();
    await poll(() => routine().innerText()).toContain('No next run while paused');
    await screenshot(page, 'routines-paused');
    await routine().getByRole('button', { name: 'Resume Morning plan' }).click();
    await poll(() => routine().innerText()).toContain('Next run:');
    expect(consoleProblems).toEqual([]);
  }, 240_000);
});
