// End to end, in Chromium through `tidy serve` with the fake model: an approval asked for by a run started
// from the quick-capture window is answered in that window. Keys typed in its box never answer it; Alt+A
// approves and the focus comes back to the box; Decline by click leaves the task as it was.
import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeOpenAI } from '../fakes/openai-server';
import { tidyIn } from '../support/cli-inproc';
import { openPage, screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';

let stage: Stage | undefined;
let small: Page;
let fake: FakeOpenAI;
let problems: string[] = [];

beforeAll(async () => {
  stage = await startStage('capture-approvals', { page: { timeout: 10_000 } });
  fake = stage.fake;
  ({ page: small, problems } = await openPage(stage.browser, `${stage.served.url}#/capture`, { viewport: { width: 560, height: 560 }, timeout: 10_000 }));
}, 120_000);

afterAll(() => stage?.close());

const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const box = () => small.getByRole('textbox', { name: 'Quick capture' });
/** The accessible label of what has the focus (page code as a string: the node tsconfig has no DOM types). */
const focused = () => small.evaluate<string | null>('document.activeElement?.getAttribute("aria-label") ?? null');
const answer = () => small.getByRole('region', { name: "Tidy's answer" });
const status = async (content: string) => (JSON.parse((await tidyIn(stage!.dbPath, ['tasks', '--all', '--json'])).stdout) as { content: string; status: string }[]).find((t) => t.content === content)?.status;

async function ask(text: string): Promise<void> {
  await box().fill(text);
  await box().press('Control+Enter');
}

describe('approvals in the quick-capture window', () => {
  it('shows the card under the box; typing never answers it; Alt+A approves and the focus returns to the box', async () => {
    const cake = stage!.ids.get('Bake the birthday cake')!;
    fake.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { task_id: cake } }] }, { text: 'Completed **the cake**.' });
    await ask('Complete the cake task');
    const card = answer().getByRole('group', { name: 'Approval needed: Complete task' });
    await visible(card);
    await visible(answer().getByRole('status').filter({ hasText: 'Tidy waits for your answer.' }));
    await expect.poll(() => card.innerText()).toContain('Bake the birthday cake');

    // The box kept the focus: what is typed there, Enter and Space included, goes to the box, not the card.
    expect(await focused()).toBe('Quick capture');
    await small.keyboard.type('ad ');
    await small.keyboard.press('Enter'); // adds "ad" to the inbox, as Enter always does
    await visible(small.getByRole('status').filter({ hasText: 'Added to the inbox: ad' }));
    await small.keyboard.press('Enter'); // an empty box: nothing
    expect(await card.getByRole('button', { name: 'Approve' }).isEnabled()).toBe(true);
    expect(await status('Bake the birthday cake')).toBe('open');
    expect((await new AxeBuilder({ page: small }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()).violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
    await screenshot(small, 'capture-approval');

    await small.keyboard.press('Alt+A');
    await visible(answer().getByText('the cake'));
    await visible(answer().getByRole('group', { name: 'Approval: Complete task' }).getByText('Approved'));
    expect(await status('Bake the birthday cake')).toBe('done');
    await visible(answer().getByRole('list', { name: 'Changes' }).getByText(/Bake the birthday cake/));
    await expect.poll(() => focused()).toBe('Quick capture');
  }, 40_000);

  it('Decline by click: the task stays as it was, and the model is told', async () => {
    const balloons = stage!.ids.get('Buy birthday balloons')!;
    fake.enqueue({ toolCalls: [{ name: 'complete_task', arguments: { task_id: balloons } }] }, { text: 'Left the balloons open.' });
    await ask('Complete the balloons task');
    const card = answer().getByRole('group', { name: 'Approval needed: Complete task' });
    await visible(card);
    await card.getByRole('button', { name: 'Decline' }).click();
    await visible(answer().getByText('Left the balloons open.'));
    await visible(answer().getByRole('group', { name: 'Approval: Complete task' }).getByText('Declined'));
    expect(await status('Buy birthday balloons')).toBe('open');
    const told = JSON.stringify(fake.chatRequests.at(-1)?.body);
    expect(told).toMatch(/declined/i);
    await small.emulateMedia({ colorScheme: 'dark' });
    await screenshot(small, 'capture-approval-declined-dark');
    expect(problems).toEqual([]);
  }, 40_000);
});
