// End to end: "Plan tomorrow" from Today in Chromium through `tidy serve`. Working hours are the whole day,
// every day, and the task is due tomorrow, so free time exists whatever the hour and weekday the test runs.
// The plan card is shown, one block's time is changed on it, Approve writes it, the block is in the
// Calendar at the edited time, and the plan's one entry in the action log takes it all back.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserRequest, openDatabase } from '../../src-main/core';
import { applyPlan } from '../../src-main/core/plan/plan';
import type { FakeOpenAI } from '../fakes/openai-server';
import { tidyIn } from '../support/cli-inproc';
import { openPage, screenshot } from '../support/browser';
import { startStage, type Stage } from '../support/e2e';

let stage: Stage | undefined;
let page: Page;
let dbPath = '';

const pad = (n: number) => String(n).padStart(2, '0');
const localDay = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const mondayOf = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate() - ((d.getDay() + 6) % 7)).getTime();

let fake: FakeOpenAI;

beforeAll(async () => {
  stage = await startStage('plan', { page: { viewport: { width: 1360, height: 900 }, locale: 'en-GB', timezoneId: Intl.DateTimeFormat().resolvedOptions().timeZone, timeout: 15_000 } });
  ({ dbPath, page, fake } = stage);
  for (const [k, v] of [
    ['workStart', '00:00'],
    ['workEnd', '23:59'],
    ['workDays', 'mon,tue,wed,thu,fri,sat,sun'],
  ] as const)
    expect((await tidyIn(dbPath, ['config', 'set', k, v])).code).toBe(0);
}, 120_000);

afterAll(() => stage?.close());

const nav = (name: string | RegExp) => page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name });
const main = () => page.getByRole('main');
const visible = (l: Locator) => l.waitFor({ state: 'visible' });
const taskId = async (content: string): Promise<string> => (JSON.parse((await tidyIn(dbPath, ['tasks', '--json'])).stdout) as { id: string; content: string }[]).find((t) => t.content === content)!.id;
const events = async (from: string, to: string) => JSON.parse((await tidyIn(dbPath, ['events', '--from', from, '--to', to, '--json'])).stdout) as { id: string; title: string; start: string; end: string }[];
const hhmm = (t: number) => `${pad(new Date(t).getHours())}:${pad(new Date(t).getMinutes())}`;

describe('planning a day from Today', () => {
  it('proposes, edits one block on the card, approves, shows it in the Calendar, and undoes the plan', async () => {
    const now = new Date();
    const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
    const dayAfter = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 2);
    expect((await tidyIn(dbPath, ['add', 'Write the plan report', '--due', localDay(tomorrow), '--duration', '1h'])).code).toBe(0);

    await nav('Today').click();
    await visible(page.getByRole('heading', { name: 'Today', level: 1 }));
    await main().getByRole('button', { name: 'Plan tomorrow' }).click();
    const card = main().getByRole('group', { name: 'Proposed plan' });
    await visible(card);
    const row = card.getByRole('listitem', { name: 'Write the plan report' });
    await visible(row);
    // The block is tomorrow, inside the day, with its reason; then moved to 14:00–15:00 by hand.
    const start = row.getByLabel('Start of Write the plan report');
    expect((await start.inputValue()).slice(0, 10)).toBe(localDay(tomorrow));
    await start.fill(`${localDay(tomorrow)}T14:00`);
    await row.getByLabel('End of Write the plan report').fill(`${localDay(tomorrow)}T15:00`);
    await row.getByRole('button', { name: 'Pin Write the plan report' }).click();
    await expect.poll(() => row.getByRole('button', { name: 'Pin Write the plan report' }).getAttribute('aria-pressed')).toBe('true');
    // The timeline's hours in the page's locale (en-GB: a 24-hour clock), the block's time too.
    const timeline = card.getByRole('img', { name: /^Timeline of the plan: .*Write the plan report 14:00–15:00 \(pinned\)/ });
    await visible(timeline);
    await expect.poll(() => timeline.locator('.plan-tl-axis').innerText()).toMatch(/^14:00\s+15:00\s+16:00\s+17:00\s+18:00$/);
    await screenshot(page, 'plan-card');

    // The same card in a second window whose locale reads a 12-hour clock (en-US): "2 PM", "2:00 PM–3:00 PM".
    const us = await openPage(stage!.browser, stage!.served.url, { viewport: { width: 1360, height: 900 }, locale: 'en-US', timezoneId: Intl.DateTimeFormat().resolvedOptions().timeZone, timeout: 15_000 });
    try {
      const usMain = us.page.getByRole('main');
      await us.page.getByRole('navigation', { name: 'Main' }).getByRole('button', { name: 'Today' }).click();
      await usMain.getByRole('button', { name: 'Plan tomorrow' }).click();
      const usRow = usMain.getByRole('group', { name: 'Proposed plan' }).getByRole('listitem', { name: 'Write the plan report' });
      await visible(usRow);
      await usRow.getByLabel('End of Write the plan report').fill(`${localDay(tomorrow)}T15:00`);
      await usRow.getByLabel('Start of Write the plan report').fill(`${localDay(tomorrow)}T14:00`);
      const usTimeline = usMain.getByRole('img', { name: /^Timeline of the plan: .*Write the plan report 2:00 PM–3:00 PM/ });
      await visible(usTimeline);
      await expect.poll(() => usTimeline.locator('.plan-tl-axis').innerText()).toMatch(/^2 PM\s+3 PM\s+4 PM\s+5 PM\s+6 PM$/);
      await screenshot(usMain.getByRole('group', { name: 'Proposed plan' }), 'plan-card-en-us');
    } finally {
      await us.context.close();
    }

    await card.getByRole('button', { name: 'Approve plan' }).click();
    const notice = page.locator('.notices').filter({ hasText: /Planned \d+ blocks? in the calendar/ });
    await visible(notice);
    const planned = async () => (await events(localDay(tomorrow), localDay(dayAfter))).filter((e) => e.title === 'Write the plan report');
    await expect.poll(async () => (await planned()).length, { timeout: 15_000 }).toBe(1);
    expect(Date.parse((await planned())[0]!.start)).toBe(new Date(tomorrow.getFullYear(), tomorrow.getMonth(), tomorrow.getDate(), 14).getTime());

    await nav('Calendar').click();
    await visible(page.getByRole('heading', { name: 'Calendar', level: 1 }));
    if (mondayOf(tomorrow) !== mondayOf(now)) await main().getByRole('button', { name: 'Next week' }).click();
    await visible(main().getByRole('button', { name: /^Write the plan report, .*14:00 to 15:00/ }));
    await screenshot(page, 'plan-in-calendar');

    // The plan is one entry in the action log: its Undo takes every block back.
    await nav('Actions').click();
    const log = page.getByRole('list', { name: 'Action log' });
    await log.getByRole('button', { name: /^Undo: .*planned/i }).first().click();
    await expect.poll(async () => (await planned()).length, { timeout: 15_000 }).toBe(0);
    await nav('Calendar').click();
    if (mondayOf(tomorrow) !== mondayOf(now)) await main().getByRole('button', { name: 'Next week' }).click();
    await expect.poll(() => main().getByRole('button', { name: /^Write the plan report, / }).count(), { timeout: 15_000 }).toBe(0);
  }, 120_000);

  it('plans from the chat: the card draws the plan, one block is edited, Approve writes it, and Undo all in the chat removes every block', async () => {
    const now = new Date();
    const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
    const dayAfter = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 2);
    const at = (h: number) => new Date(tomorrow.getFullYear(), tomorrow.getMonth(), tomorrow.getDate(), h).getTime();
    for (const [text, d] of [
      ['Draft the budget', '1h'],
      ['Answer the landlord', '30m'],
    ])
      expect((await tidyIn(dbPath, ['add', text!, '--due', localDay(tomorrow), '--duration', d!])).code).toBe(0);
    const ids = [await taskId('Draft the budget'), await taskId('Answer the landlord')];
    fake.enqueue({ toolCalls: [{ name: 'plan_tasks', arguments: { task_ids: ids, from: tomorrow.toISOString(), to: dayAfter.toISOString() } }] }, { text: 'Your day is planned.' });
    await nav('Chat').click();
    await page.getByRole('textbox', { name: 'Message' }).fill('Plan my tomorrow');
    await page.getByRole('textbox', { name: 'Message' }).press('Enter');

    const card = page.getByRole('group', { name: /^Approval needed: Plan/ });
    const row = card.getByRole('listitem', { name: 'Draft the budget' });
    await visible(row);
    await visible(card.getByRole('listitem', { name: 'Answer the landlord' }));
    // The timeline mirrors the rows, and follows an edit at once.
    const timeline = card.getByRole('img', { name: /^Timeline of the plan: .*Draft the budget \d\d:\d\d–\d\d:\d\d.*Answer the landlord|^Timeline of the plan: .*Answer the landlord \d\d:\d\d–\d\d:\d\d.*Draft the budget/ });
    await visible(timeline);
    // The summary ("1 h 30 of tasks, … free") once, on the card; the question above it is its first line, with no ISO date.
    const cardText = await card.innerText();
    expect(cardText.match(/of tasks, .* free/g)).toHaveLength(1);
    expect(cardText).toContain('Plan these blocks?');
    expect(cardText).not.toMatch(/(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{4}-\d{2}-\d{2}/);
    await row.getByLabel('Start of Draft the budget').fill(`${localDay(tomorrow)}T16:00`);
    await row.getByLabel('End of Draft the budget').fill(`${localDay(tomorrow)}T17:00`);
    await expect.poll(() => timeline.getAttribute('aria-label')).toMatch(/Draft the budget 16:00–17:00/);
    await screenshot(page, 'plan-chat-card');
    await card.getByRole('button', { name: 'Approve' }).click();
    const answer = page.getByRole('log', { name: 'Messages' }).getByRole('article', { name: 'Tidy' }).last();
    await visible(answer.getByText('Your day is planned.'));

    const planned = async () => (await events(localDay(tomorrow), localDay(dayAfter))).filter((e) => e.title === 'Draft the budget' || e.title === 'Answer the landlord');
    await expect.poll(async () => (await planned()).length, { timeout: 15_000 }).toBe(2);
    expect(Date.parse((await planned()).find((e) => e.title === 'Draft the budget')!.start)).toBe(at(16));

    await nav('Calendar').click();
    await visible(page.getByRole('heading', { name: 'Calendar', level: 1 }));
    if (mondayOf(tomorrow) !== mondayOf(now)) await main().getByRole('button', { name: 'Next week' }).click();
    await visible(main().getByRole('button', { name: /^Draft the budget, .*16:00 to 17:00/ }));
    await visible(main().getByRole('button', { name: /^Answer the landlord, / }));

    // Undo all, from the answer in the chat: every block of the plan is gone.
    await nav('Chat').click();
    await answer.getByRole('region', { name: 'Changes' }).getByRole('button', { name: 'Undo all changes' }).click();
    await expect.poll(async () => (await planned()).length, { timeout: 15_000 }).toBe(0);
    await nav('Calendar').click();
    await expect.poll(() => main().getByRole('button', { name: /^(Draft the budget|Answer the landlord), / }).count(), { timeout: 15_000 }).toBe(0);
  }, 120_000);

  it('offers blocks missed while their task is open for re-planning in Today, and pins a block moved by hand', async () => {
    const now = new Date();
    const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
    const tomorrow = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
    const inTwoDays = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 2);
    for (const text of ['Call the plumber', 'Renew the passport']) expect((await tidyIn(dbPath, ['add', text, '--duration', '30m'])).code).toBe(0);
    // Two blocks planned earlier whose time has passed (an hour and more ago), their tasks still open.
    const hour = Math.floor(now.getTime() / 3_600_000) * 3_600_000;
    const db = openDatabase(dbPath);
    try {
      const blocks = [
        { task_id: await taskId('Call the plumber'), start: new Date(hour - 3 * 3_600_000).toISOString(), end: new Date(hour - 2.5 * 3_600_000).toISOString() },
        { task_id: await taskId('Renew the passport'), start: new Date(hour - 2 * 3_600_000).toISOString(), end: new Date(hour - 1.5 * 3_600_000).toISOString() },
      ];
      const r = applyPlan(db, newUserRequest(db), { blocks }, 'UTC', now.getTime());
      expect(r.ok).toBe(true);
    } finally {
      db.close();
    }
    const mine = async () => (await events(localDay(yesterday), localDay(inTwoDays))).filter((e) => e.title === 'Call the plumber' || e.title === 'Renew the passport');
    const missedIds = (await mine()).map((e) => e.id);
    expect(missedIds).toHaveLength(2);

    await nav('Today').click();
    const missed = main().getByRole('group', { name: 'Missed blocks' });
    await visible(missed);
    expect(await missed.innerText()).toContain('2 planned blocks were missed: Call the plumber, Renew the passport');
    await screenshot(page, 'plan-missed');
    await missed.getByRole('button', { name: 'Re-plan' }).click();
    const card = main().getByRole('group', { name: 'Proposed plan' });
    await visible(card.getByRole('listitem', { name: 'Call the plumber' }));
    await visible(card.getByRole('listitem', { name: 'Renew the passport' }));
    await card.getByRole('button', { name: 'Approve plan' }).click();
    await expect.poll(() => missed.count(), { timeout: 15_000 }).toBe(0);
    // Placed anew after now; the missed blocks were not moved.
    await expect.poll(async () => (await mine()).length, { timeout: 15_000 }).toBe(4);
    const fresh = (await mine()).filter((e) => !missedIds.includes(e.id));
    for (const e of fresh) expect(Date.parse(e.start)).toBeGreaterThanOrEqual(now.getTime() - 60_000);
    expect((await mine()).filter((e) => missedIds.includes(e.id)).map((e) => Date.parse(e.start))).toEqual([hour - 3 * 3_600_000, hour - 2 * 3_600_000]);

    // Moved by hand from its details in the Calendar: the block is pinned in the same action.
    const block = fresh.find((e) => e.title === 'Call the plumber')!;
    const pinned = (id: string): number => {
      const d = openDatabase(dbPath);
      try {
        return (d.prepare(`SELECT pinned FROM events WHERE id = ?`).get(id) as { pinned: number }).pinned;
      } finally {
        d.close();
      }
    };
    expect(pinned(block.id)).toBe(0);
    await nav('Calendar').click();
    await visible(page.getByRole('heading', { name: 'Calendar', level: 1 }));
    await main().getByRole('button', { name: 'Today', exact: true }).click();
    if (mondayOf(new Date(Date.parse(block.start))) !== mondayOf(now)) await main().getByRole('button', { name: 'Next week' }).click();
    await main().getByRole('button', { name: new RegExp(`^Call the plumber, .*${hhmm(Date.parse(block.start))} to ${hhmm(Date.parse(block.end))}`) }).click();
    const details = main().getByRole('region', { name: 'Call the plumber' });
    await visible(details.getByText('a planned block: a re-plan may move it'));
    await details.getByRole('button', { name: 'Change time' }).click();
    const form = details.getByRole('form', { name: 'Change the time of Call the plumber' });
    await form.getByLabel('Start').fill(`${localDay(tomorrow)}T20:00`);
    await form.getByLabel('End').fill(`${localDay(tomorrow)}T20:30`);
    await screenshot(page, 'plan-block-move');
    await form.getByRole('button', { name: 'Save time' }).click();
    await visible(page.locator('.notices').filter({ hasText: 'Moved Call the plumber and pinned it' }));
    await expect.poll(() => pinned(block.id), { timeout: 15_000 }).toBe(1);
    expect(Date.parse((await mine()).find((e) => e.id === block.id)!.start)).toBe(new Date(tomorrow.getFullYear(), tomorrow.getMonth(), tomorrow.getDate(), 20).getTime());
    if (mondayOf(tomorrow) !== mondayOf(new Date(Date.parse(block.start)))) await main().getByRole('button', { name: 'Next week' }).click();
    await visible(main().getByRole('button', { name: /^Call the plumber, .*20:00 to 20:30.*planned block, pinned/ }));
  }, 120_000);
});
