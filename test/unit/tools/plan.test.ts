// The plan_tasks tool: asks first with the plan in words; unedited it applies the proposal, edited (from
// the card) it applies the blocks as the user left them; one action, undone in one step. Times are in
// 2035, in the process's zone, with an injected now.
import { describe, expect, it } from 'vitest';
import { addTask, listEvents, localZone, parseInstant, undoRequest, type Db } from '../../../src-main/core';
import { createToolServices, inputSchema, TOOLS } from '../../../src-main/core/tools';
import { okValue, tempDb, userCtx } from '../../support/db';

const zone = localZone();
const at = (text: string): number => parseInstant(text, zone);
const NOW = at('2035-01-08T08:00');
const tool = TOOLS.find((t) => t.name === 'plan_tasks')!;
const ctxOf = (db: Db, requestId = 'r7') => ({ db, action: { requestId, source: 'agent' as const }, signal: new AbortController().signal, services: createToolServices({ now: () => new Date(NOW) }) });

function setup(db: Db): string[] {
  return [
    okValue(addTask(db, userCtx(db), { content: 'Write report', priority: 1, durationMin: 90 })).id,
    okValue(addTask(db, userCtx(db), { content: 'Review slides', durationMin: 60 })).id,
  ];
}

describe('plan_tasks', () => {
  it('asks with the plan in words, and is shown to the model with DESIGN’s arguments only', () => {
    const { db } = tempDb();
    const ids = setup(db);
    expect(tool.approval).toBe('ask');
    expect(tool.approvalForm).toBe('plan');
    expect(Object.keys(inputSchema(tool)['properties'] as object)).toEqual(['task_ids', 'filter', 'from', 'to']);
    const q = tool.confirm!(tool.input.parse({ task_ids: ids, from: '2035-01-08T00:00', to: '2035-01-09T00:00' }), ctxOf(db));
    expect(q.split('\n')).toEqual([
      'Plan these blocks?',
      'Mon 2035-01-08',
      `  09:00–10:30  Write report (${ids[0]}) — p1; first free 8 h after 09:00`,
      `  10:35–11:35  Review slides (${ids[1]}) — p4; first free 6 h 25 after 10:35`,
      '2 h 30 of tasks, 8 h free',
    ]);
  });

  it('applies the proposal as one action, undone in one step', async () => {
    const { db } = tempDb();
    const ids = setup(db);
    const r = await tool.run(tool.input.parse({ task_ids: ids, from: '2035-01-08T00:00', to: '2035-01-09T00:00' }), ctxOf(db));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toMatchObject({ plan: 'r7', created: 2, unplaced: [], summary: '2 h 30 of tasks, 8 h free' });
    const events = listEvents(db, { fromMs: at('2035-01-08T00:00'), toMs: at('2035-01-09T00:00'), zone }).events;
    expect(events.map((e) => [e.title, e.planId])).toEqual([['Write report', 'r7'], ['Review slides', 'r7']]);
    okValue(undoRequest(db, 'r7', { ctx: userCtx(db) }));
    expect(listEvents(db, { fromMs: at('2035-01-08T00:00'), toMs: at('2035-01-09T00:00'), zone }).events).toEqual([]);
  });

  it('applies the blocks as edited on the card: one dropped, one moved and pinned', async () => {
    const { db } = tempDb();
    const ids = setup(db);
    const edited = { task_ids: ids, from: '2035-01-08T00:00', to: '2035-01-09T00:00', blocks: [{ task_id: ids[1]!, start: '2035-01-08T14:00', end: '2035-01-08T15:00', pinned: true }] };
    expect(tool.confirm!(tool.input.parse(edited), ctxOf(db))).toBe('Plan 1 block as edited on the card?');
    const r = await tool.run(tool.input.parse(edited), ctxOf(db));
    expect(r.ok).toBe(true);
    const events = listEvents(db, { fromMs: at('2035-01-08T00:00'), toMs: at('2035-01-09T00:00'), zone }).events;
    expect(events.map((e) => [e.title, e.start.slice(11, 16), e.pinned])).toEqual([['Review slides', '14:00', true]]);
  });

  it('refuses hostile arguments before touching anything', async () => {
    const { db } = tempDb();
    setup(db);
    expect(tool.input.safeParse({ from: '2035-01-08', to: '2035-01-09', extra: 1 }).success).toBe(false);
    expect(tool.input.safeParse({ from: '2035-01-08', to: '2035-01-09', task_ids: Array.from({ length: 501 }, (_, i) => `t${i}`) }).success).toBe(false);
    expect(tool.input.safeParse({ from: 'x'.repeat(41), to: '2035-01-09' }).success).toBe(false);
    const bad = await tool.run(tool.input.parse({ from: '2035-01-09T00:00', to: '2035-01-08T00:00' }), ctxOf(db));
    expect(bad).toMatchObject({ ok: false, error: 'the range ends before it starts' });
    const unknown = await tool.run(tool.input.parse({ task_ids: ['t404'], from: '2035-01-08T00:00', to: '2035-01-09T00:00' }), ctxOf(db));
    expect(unknown.ok).toBe(false);
    expect(db.prepare(`SELECT count(*) AS n FROM events`).get()).toEqual({ n: 0 });
  });
});
