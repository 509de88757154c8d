// Plans in the database: proposed (nothing written), applied as one action of calendar events linked to
// their tasks, undone in one step, re-planned around pinned blocks, ended by completing the task.
// Every time is in 2035 with an injected `now`, so the tests hold on any day and at any hour.
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { addTask, bookEvent, completeTask, moveEvent, exportIcs, findFreeSlots, importCalendar, listEvents, openDatabase, undoRequest, type Db } from '../../../src-main/core';
import { migrations } from '../../../src-main/core/store/migrations';
import { exportableEvents } from '../../../src-main/core/domain/calendar';
import { applyPlan, missedBlocks, proposePlan, type PlanQuery } from '../../../src-main/core/plan/plan';
import { okValue, snapshot, tempDb, tempDir, userCtx } from '../../support/db';

const ZONE = 'UTC';
/** Monday 2035-01-08 08:00 UTC. */
const NOW = Date.UTC(2035, 0, 8, 8, 0);
const at = (day: number, h: number, mi = 0): number => Date.UTC(2035, 0, 8 + day, h, mi);
const iso = (ms: number): string => new Date(ms).toISOString();
const SETTINGS = { workStart: '09:00', workEnd: '17:00', workDays: ['mon', 'tue', 'wed', 'thu', 'fri'], planMinBlock: 25, planBuffer: 5, planDefaultDuration: 30, planSplit: true } as PlanQuery['settings'];

const query = (over: Partial<PlanQuery> = {}): PlanQuery => ({ fromMs: at(0, 0), toMs: at(1, 0), now: NOW, zone: ZONE, settings: SETTINGS, ...over });

function ics(name: string, events: [string, number, number][]): string {
  const stamp = (ms: number): string => iso(ms).replace(/[-:]/g, '').slice(0, 15) + 'Z';
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//test//EN',
    `X-WR-CALNAME:${name}`,
    ...events.flatMap(([uid, s, e]) => ['BEGIN:VEVENT', `UID:${uid}`, `DTSTART:${stamp(s)}`, `DTEND:${stamp(e)}`, `SUMMARY:${uid}`, 'END:VEVENT']),
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

function setup(db: Db): string[] {
  return [
    okValue(addTask(db, userCtx(db), { content: 'Write report', priority: 1, durationMin: 90 })).id,
    okValue(addTask(db, userCtx(db), { content: 'Review slides', priority: 2, durationMin: 60 })).id,
    okValue(addTask(db, userCtx(db), { content: 'Call the bank', priority: 3 })).id,
  ];
}

describe('plans', () => {
  it('proposes a plan around the busy time of the user’s own calendars only, writing nothing', () => {
    const { db } = tempDb();
    const ids = setup(db);
    okValue(bookEvent(db, userCtx(db), { title: 'Standup', start: iso(at(0, 9)), end: iso(at(0, 10)) }));
    okValue(importCalendar(db, userCtx(db), { fileName: 'work.ics', text: ics('Work', [['w1', at(0, 10), at(0, 12)]]) }));
    // A colleague's calendar is their busy time, not the user's.
    okValue(importCalendar(db, userCtx(db), { fileName: 'alice.ics', text: ics('Alice', [['a1', at(0, 12), at(0, 17)]]), person: 'Alice' }));
    const before = snapshot(db);
    const plan = proposePlan(db, query({ taskIds: ids }));
    expect(snapshot(db)).toEqual(before);
    expect(plan.blocks.map((b) => [b.task, b.start.slice(11, 16), b.end.slice(11, 16)])).toEqual([
      ['Write report', '12:00', '13:30'],
      ['Review slides', '13:35', '14:35'],
      ['Call the bank', '14:40', '15:10'],
    ]);
    expect(plan.blocks[2]!.reason).toContain('30 min assumed');
    expect(plan.unplaced).toEqual([]);
    expect(plan.summary.text).toBe('3 h of tasks, 5 h free');
  });

  it('applies a plan as one action: events linked to their tasks, exported, busy for bookings; Undo all removes every block', () => {
    const { db } = tempDb();
    const ids = setup(db);
    const before = snapshot(db);
    const plan = proposePlan(db, query({ taskIds: ids }));
    const ctx = userCtx(db);
    const applied = okValue(applyPlan(db, ctx, { blocks: plan.blocks }, ZONE, NOW));
    expect(applied).toMatchObject({ plan: ctx.requestId, created: 3, moved: 0, cancelled: 0 });
    expect((db.prepare(`SELECT count(*) AS n FROM actions WHERE request_id = ?`).get(ctx.requestId) as { n: number }).n).toBe(1);
    const events = listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events;
    expect(events.map((e) => [e.title, e.taskId, e.planId, e.pinned])).toEqual([
      ['Write report', ids[0], ctx.requestId, false],
      ['Review slides', ids[1], ctx.requestId, false],
      ['Call the bank', ids[2], ctx.requestId, false],
    ]);
    expect(exportIcs('Personal', exportableEvents(db))).toContain('SUMMARY:Write report');
    // Busy for later bookings: no free hour until after the blocks.
    const free = findFreeSlots(db, { durationMin: 60, fromMs: at(0, 9), toMs: at(0, 17), now: NOW, zone: ZONE, workStart: '09:00', workEnd: '17:00', workDays: ['mon'] });
    expect(free.slots[0]!.start).toBe('2035-01-08T12:10:00+00:00');
    okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) }));
    const after = snapshot(db);
    expect(after['events']).toEqual(before['events']);
    expect(listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events).toEqual([]);
  });

  it('planning again keeps the blocks a task has and adds only what is missing', () => {
    const { db } = tempDb();
    const ids = setup(db);
    okValue(applyPlan(db, userCtx(db), { blocks: proposePlan(db, query({ taskIds: ids.slice(0, 1) })).blocks }, ZONE, NOW));
    const again = proposePlan(db, query({ taskIds: ids }));
    const kept = again.blocks.filter((b) => b.event_id);
    expect(kept.map((b) => b.task_id)).toEqual([ids[0]]);
    expect(kept[0]!.reason).toBe('already planned: kept');
    expect(again.blocks.filter((b) => b.task_id === ids[0])).toHaveLength(1);
    const applied = okValue(applyPlan(db, userCtx(db), { blocks: again.blocks }, ZONE, NOW));
    expect(applied).toMatchObject({ created: 2, kept: 1 });
  });

  it('re-planning moves only the plan’s unpinned future blocks, as one undoable action', () => {
    const { db } = tempDb();
    const ids = setup(db);
    const first = proposePlan(db, query({ taskIds: ids }));
    // The user pins the report at 15:00 on the card before approving.
    const edited = first.blocks.map((b) => (b.task_id === ids[0] ? { ...b, start: iso(at(0, 15)), end: iso(at(0, 16, 30)), pinned: true } : b));
    const ctx = userCtx(db);
    const { plan } = okValue(applyPlan(db, ctx, { blocks: edited }, ZONE, NOW));
    // Later, a meeting lands where the slides were: re-plan.
    okValue(bookEvent(db, userCtx(db), { title: 'Meeting', start: iso(at(0, 9)), end: iso(at(0, 11)) }));
    const before = snapshot(db);
    const re = proposePlan(db, query({ taskIds: ids, replan: plan }));
    const pinned = re.blocks.find((b) => b.pinned)!;
    expect([pinned.task_id, pinned.start.slice(11, 16)]).toEqual([ids[0], '15:00']);
    for (const b of re.blocks.filter((x) => !x.pinned)) expect(Date.parse(b.start)).toBeGreaterThanOrEqual(at(0, 11));
    const rctx = userCtx(db);
    const r = okValue(applyPlan(db, rctx, { blocks: re.blocks, plan }, ZONE, NOW));
    expect(r).toMatchObject({ plan, created: 0, moved: 2, cancelled: 0 });
    const events = listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events.filter((e) => e.planId);
    expect(events.map((e) => e.start.slice(11, 16))).toEqual(['11:00', '12:05', '15:00']);
    okValue(undoRequest(db, rctx.requestId, { ctx: userCtx(db) }));
    expect(snapshot(db)['events']).toEqual(before['events']);
  });

  it('completing a task ends its future blocks in the same action', () => {
    const { db } = tempDb();
    const ids = setup(db);
    okValue(applyPlan(db, userCtx(db), { blocks: proposePlan(db, query({ taskIds: ids })).blocks }, ZONE, NOW));
    const ctx = userCtx(db);
    okValue(completeTask(db, ctx, { task: ids[0]! }));
    const events = listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE, includeCancelled: true }).events;
    expect(events.filter((e) => e.taskId === ids[0]).map((e) => e.cancelled)).toEqual([true]);
    expect(events.filter((e) => e.taskId !== ids[0]).every((e) => !e.cancelled)).toBe(true);
    const actions = db.prepare(`SELECT summary FROM actions WHERE request_id = ?`).all(ctx.requestId) as { summary: string }[];
    expect(actions).toHaveLength(1);
    expect(actions[0]!.summary).toContain('1 planned block ended');
  });

  it('reports a missed block (ended, task still open) for re-planning instead of moving it', () => {
    const { db } = tempDb();
    const ids = setup(db);
    okValue(applyPlan(db, userCtx(db), { blocks: proposePlan(db, query({ taskIds: ids.slice(1, 2) })).blocks }, ZONE, NOW));
    expect(missedBlocks(db, at(0, 9, 30))).toEqual([]);
    const missed = missedBlocks(db, at(0, 12));
    expect(missed.map((m) => [m.task_id, m.task])).toEqual([[ids[1], 'Review slides']]);
    const was = listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events.map((e) => [e.id, e.start]);
    // Re-planned into the afternoon: the offer ends, and the missed block stays where it was.
    const later = { now: at(0, 12), fromMs: at(0, 12) };
    okValue(applyPlan(db, userCtx(db), { blocks: proposePlan(db, query({ taskIds: ids.slice(1, 2), ...later })).blocks }, ZONE, later.now));
    expect(missedBlocks(db, at(0, 12))).toEqual([]);
    const now = listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events.map((e) => [e.id, e.start]);
    expect(now).toHaveLength(2);
    expect(now).toContainEqual(was[0]);
    // Once that block passes too, the task is offered again; a done task never is.
    expect(missedBlocks(db, at(0, 17)).map((m) => m.task_id)).toEqual([ids[1], ids[1]]);
    okValue(completeTask(db, userCtx(db), { task: ids[1]! }));
    expect(missedBlocks(db, at(0, 17))).toEqual([]);
  });

  it('a block moved by hand is pinned in the same action, so a re-plan keeps it; undo unpins it', () => {
    const { db } = tempDb();
    const ids = setup(db);
    const { plan } = okValue(applyPlan(db, userCtx(db), { blocks: proposePlan(db, query({ taskIds: ids })).blocks }, ZONE, NOW));
    const block = listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events.find((e) => e.taskId === ids[1])!;
    expect(block.pinned).toBe(false);
    const ctx = userCtx(db);
    const moved = okValue(moveEvent(db, ctx, { event: block.id, start: iso(at(0, 15)), end: iso(at(0, 16)) }));
    expect(moved.pinned).toBe(true);
    const actions = db.prepare(`SELECT summary FROM actions WHERE request_id = ?`).all(ctx.requestId) as { summary: string }[];
    expect(actions.map((a) => a.summary)).toEqual([expect.stringContaining('pinned')]);
    // A re-plan (a meeting took the morning) moves the others and keeps the hand-moved block at 15:00.
    okValue(bookEvent(db, userCtx(db), { title: 'Meeting', start: iso(at(0, 9)), end: iso(at(0, 13)) }));
    const re = proposePlan(db, query({ taskIds: ids, replan: plan }));
    expect(re.blocks.find((b) => b.task_id === ids[1])).toMatchObject({ event_id: block.id, pinned: true, reason: 'pinned: kept where you put it' });
    expect(re.blocks.find((b) => b.task_id === ids[1])!.start.slice(11, 16)).toBe('15:00');
    okValue(applyPlan(db, userCtx(db), { blocks: re.blocks, plan }, ZONE, NOW));
    expect(listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events.find((e) => e.id === block.id)!.start.slice(11, 16)).toBe('15:00');
    // Undoing the move puts the block back unpinned.
    okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) }));
    expect(listEvents(db, { fromMs: at(0, 0), toMs: at(1, 0), zone: ZONE }).events.find((e) => e.id === block.id)).toMatchObject({ pinned: false, start: block.start });
    // An event of no plan is moved as before: never pinned.
    const meeting = okValue(bookEvent(db, userCtx(db), { title: 'Lunch', start: iso(at(1, 12)), end: iso(at(1, 13)) }));
    const lunch = okValue(moveEvent(db, userCtx(db), { event: meeting.id, start: iso(at(1, 13)), end: iso(at(1, 14)) }));
    expect(lunch.planId).toBeUndefined();
    expect(lunch.pinned).toBeUndefined();
  });

  it('refuses bad plans in one line: overlapping, reversed, unknown task, a range in the past or too long', () => {
    const { db } = tempDb();
    const [a, b] = setup(db);
    const overlap = applyPlan(db, userCtx(db), { blocks: [{ task_id: a!, start: iso(at(0, 9)), end: iso(at(0, 10)) }, { task_id: b!, start: iso(at(0, 9, 30)), end: iso(at(0, 11)) }] }, ZONE, NOW);
    expect(overlap.ok === false && overlap.error).toMatch(/overlap/);
    const reversed = applyPlan(db, userCtx(db), { blocks: [{ task_id: a!, start: iso(at(0, 10)), end: iso(at(0, 9)) }] }, ZONE, NOW);
    expect(reversed.ok === false && reversed.error).toMatch(/ends before it starts/);
    const unknown = applyPlan(db, userCtx(db), { blocks: [{ task_id: 't999', start: iso(at(0, 9)), end: iso(at(0, 10)) }] }, ZONE, NOW);
    expect(unknown.ok).toBe(false);
    const junk = applyPlan(db, userCtx(db), { blocks: [{ task_id: a!, start: 'tomorrow-ish', end: '\u0000' }] }, ZONE, NOW);
    expect(junk.ok).toBe(false);
    expect(() => proposePlan(db, query({ fromMs: at(-10, 0), toMs: at(-9, 0) }))).toThrow(/in the past/);
    expect(() => proposePlan(db, query({ toMs: at(400, 0) }))).toThrow(/at most 62 days/);
    expect(() => proposePlan(db, query({ filter: '((((' }))).toThrow(/filter/);
    expect(db.prepare(`SELECT count(*) AS n FROM events`).get()).toEqual({ n: 0 });
  });

  it('chooses tasks by filter, or by default those due or with a deadline by the end of the range', () => {
    const { db } = tempDb();
    okValue(addTask(db, userCtx(db), { content: 'Due then', due: '2035-01-08' }));
    okValue(addTask(db, userCtx(db), { content: 'Deadline then', deadline: '2035-01-08' }));
    okValue(addTask(db, userCtx(db), { content: 'Someday' }));
    okValue(addTask(db, userCtx(db), { content: 'Later', due: '2035-02-01' }));
    expect(proposePlan(db, query()).blocks.map((b) => b.task).sort()).toEqual(['Deadline then', 'Due then']);
    expect(proposePlan(db, query({ filter: 'no date' })).blocks.map((b) => b.task).sort()).toEqual(['Deadline then', 'Someday']);
  });

  it('schema 15: events booked before it are still undone exactly (their logged images gain plan_id and pinned)', () => {
    const path = join(tempDir(), 'old.db');
    const old = openDatabase(path, { migrations: migrations.filter((m) => m.version < 15) });
    const ctx = userCtx(old);
    okValue(bookEvent(old, ctx, { title: 'Dentist', start: iso(at(0, 9)), end: iso(at(0, 10)) }));
    old.close();
    const db = openDatabase(path);
    try {
      expect(db.prepare(`SELECT plan_id, pinned FROM events`).all()).toEqual([{ plan_id: null, pinned: 0 }]);
      const logged = JSON.parse((db.prepare(`SELECT changes FROM actions WHERE request_id = ?`).get(ctx.requestId) as { changes: string }).changes) as { after: Record<string, unknown> }[];
      expect(logged[0]!.after).toMatchObject({ plan_id: null, pinned: 0 });
      expect(logged[0]!.after).toEqual(db.prepare(`SELECT * FROM events`).get());
      okValue(undoRequest(db, ctx.requestId, { ctx: userCtx(db) }));
      expect(db.prepare(`SELECT count(*) AS n FROM events`).get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});
