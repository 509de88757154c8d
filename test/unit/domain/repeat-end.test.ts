// Completing a repeating task whose rule gives no later date completes it for good, and says why in one
// line: in the action's summary (what the CLI prints), in the tool result, and (test/unit/renderer/
// features/tasks/data.test.ts) in the window's notice. Far dates, so the day the suite runs on never matters.
import { describe, expect, it } from 'vitest';
import { addTask, completeTask, getActionRow, type Db } from '../../../src-main/core';
import { createToolServices, TOOLS, type ToolOutcome } from '../../../src-main/core/tools';
import { nextDueOnCompletion } from '../../../src-shared/repeat-rules';
import { okValue, tempDb, userCtx } from '../../support/db';

/** A task due `due` whose stored rule is `rule` (as a restored file or an old Tidy may hold it). */
function repeating(db: Db, content: string, due: string, rule: string): string {
  const t = okValue(addTask(db, userCtx(db), { content, due, recurrence: 'every week' }));
  db.prepare(`UPDATE tasks SET recurrence = ?, due = ? WHERE id = ?`).run(rule, due, t.id);
  return t.id;
}

function completed(db: Db, id: string): { status: string; summary: string } {
  const r = completeTask(db, userCtx(db), { task: id });
  if (!r.ok) throw new Error(r.error);
  return { status: r.value.status, summary: getActionRow(db, r.actionId)!.summary };
}

const CASES: [what: string, due: string, rule: string, why: RegExp][] = [
  ['a COUNT used up', '2020-01-06', 'FREQ=WEEKLY;COUNT=3', /; its rule gives no later date \(COUNT=3: all 3 of its dates are used up\), so it will not come back$/],
  ['a COUNT of one', '2020-01-06', 'FREQ=MONTHLY;COUNT=1', /; its rule gives no later date \(COUNT=1: its one date is used up\), so it will not come back$/],
  ['an UNTIL in the past', '2020-01-06', 'FREQ=DAILY;UNTIL=20200110', /; its rule gives no later date \(it ends on 2020-01-10\), so it will not come back$/],
  ['a rule no later day fits (every 7th day, on Tuesdays, from a Monday)', '2035-01-01', 'FREQ=DAILY;INTERVAL=7;BYDAY=TU', /; its rule gives no later date \(no day after 2035-01-01 fits it\), so it will not come back$/],
  ['a rule the bounded walk gives up on', '2035-01-01', 'FREQ=DAILY;INTERVAL=7;BYDAY=TU;BYHOUR=9', /; its rule gives no later date \(Tidy stopped looking: it finds no next date within 10,000 steps\), so it will not come back$/],
  ['a day no month has', '2035-01-01', 'FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=30', /; its repeat rule cannot be used \(BYMONTH=2;BYMONTHDAY=30 never happens \(no month has that day\)\), so it does not repeat$/],
];

describe('completing a repeating task that has no later date', () => {
  it('is completed for good, and the summary says why: a COUNT used up, an UNTIL past, no day fits, the walk gives up, no such day', () => {
    const { db } = tempDb();
    for (const [what, due, rule, why] of CASES) {
      const r = completed(db, repeating(db, 'Pay rent', due, rule));
      expect(r.status, what).toBe('done');
      expect(r.summary, what).toMatch(/^Completed 'Pay rent'; /);
      expect(r.summary, what).toMatch(why);
      expect(r.summary, what).not.toContain('\n');
    }
    // A rule that goes on still moves the task to its next date, saying nothing of an end.
    const r = completed(db, repeating(db, 'Water plants', '2035-01-01', 'FREQ=WEEKLY;COUNT=3'));
    expect(r.status).toBe('open');
    expect(r.summary).toBe("Completed 'Water plants'; next due 2035-01-08");
    expect(nextDueOnCompletion('FREQ=WEEKLY;COUNT=3', '2035-01-01', '2026-06-01')).toEqual({ next: '2035-01-08' });
  });

  it('the tool results say it too: complete_task and complete_tasks carry the note', async () => {
    const { db } = tempDb();
    const ctx = { db, action: { requestId: 'r7', source: 'agent' as const }, signal: new AbortController().signal, services: createToolServices() };
    const use = (name: string, args: unknown): Promise<ToolOutcome> => {
      const tool = TOOLS.find((t) => t.name === name)!;
      return Promise.resolve(tool.run(tool.input.parse(args), ctx));
    };
    const rent = repeating(db, 'Pay rent', '2020-01-06', 'FREQ=WEEKLY;COUNT=3');
    const one = await use('complete_task', { task_id: rent });
    expect(one).toMatchObject({ ok: true, value: { ok: true, note: 'its rule gives no later date (COUNT=3: all 3 of its dates are used up), so it will not come back' } });
    const bins = repeating(db, 'Bins', '2020-01-06', 'FREQ=DAILY;UNTIL=20200110');
    const plain = okValue(addTask(db, userCtx(db), { content: 'Buy milk' }));
    const many = await use('complete_tasks', { task_ids: [bins, plain.id] });
    expect(many).toMatchObject({ ok: true });
    const rows = (many as { value: { completed: Record<string, unknown>[] } }).value.completed;
    expect(rows).toEqual([
      { id: bins, content: 'Bins', note: 'its rule gives no later date (it ends on 2020-01-10), so it will not come back' },
      { id: plain.id, content: 'Buy milk' },
    ]);
  });
});
