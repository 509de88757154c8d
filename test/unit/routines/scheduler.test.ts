// Routines on an injected clock, far from today (2035), so the day and hour CI runs at never matter.
import { describe, expect, it } from 'vitest';
import { listTasks, openDatabase, type Db } from '../../../src-main/core';
import { createLiveRuns, getApproval, listApprovals, TOOLS, type AgentDeps } from '../../../src-main/core/agent';
import { addRoutine, getRoutine, nextRuns, parseSchedule, resolveRoutine, type RoutineInput } from '../../../src-main/core/domain/routines';
import {
  answerApprovalById,
  dueOccurrences,
  failuresInARow,
  lastOccurrence,
  MAX_FAILURES,
  routineHistory,
  runDue,
  runRoutineNow,
  type RoutineHost,
  type RoutineNotice,
} from '../../../src-main/core/routines';
import type { Model } from '../../../src-main/core/llm/port';
import { seedInbox } from '../../support/agent';
import { tempDb, userCtx } from '../../support/db';
import { call, calls, say, ScriptedModel } from '../../fakes/scripted-model';

const local = (y: number, mo: number, d: number, h = 0, mi = 0): number => new Date(y, mo - 1, d, h, mi).getTime();
const CREATED = new Date(local(2035, 1, 1, 0, 0));

function host(db: Db, model: Model, clock: { t: number }, owner = 'test'): RoutineHost & { notices: RoutineNotice[] } {
  const deps: AgentDeps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => model };
  const notices: RoutineNotice[] = [];
  return { db, deps: () => Promise.resolve(deps), now: () => clock.t, owner, notify: (n) => notices.push(n), notices };
}

function add(db: Db, input: Partial<RoutineInput> = {}) {
  const r = addRoutine(db, userCtx(db), { name: 'Plan my day', request: 'plan my day', schedule: 'every day at 8am', ...input }, CREATED);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('schedules', () => {
  it('read quick-add repeat words into an RRULE, a start and a zone, with the next runs', () => {
    const s = parseSchedule('every weekday at 8am', new Date(local(2035, 1, 1, 0, 0)), 'Europe/Berlin');
    expect(s).toMatchObject({ rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', tz: 'Europe/Berlin', words: 'every weekday at 08:00' });
    expect(s.start.slice(11)).toBe('08:00');
    expect(parseSchedule('every friday 4pm', new Date(local(2035, 1, 1)))).toMatchObject({ rrule: 'FREQ=WEEKLY;BYDAY=FR', words: 'every Friday at 16:00' });
    // 2035-01-01 is a Monday: the next three weekday runs at 08:00 in Berlin (UTC+1 in winter).
    const next = nextRuns({ rrule: s.rrule, start: '2035-01-01T08:00', tz: 'Europe/Berlin' }, Date.UTC(2035, 0, 1, 8, 0), 3);
    expect(next.map((ms) => new Date(ms).toISOString())).toEqual(['2035-01-02T07:00:00.000Z', '2035-01-03T07:00:00.000Z', '2035-01-04T07:00:00.000Z']);
  });

  it('refuse garbage, huge and half-read words with one clear error', () => {
    const now = new Date(local(2035, 1, 1));
    for (const words of ['', 'whenever', 'every blue moon', 'every day at 8am buy milk', 'x'.repeat(100_000), 'every day '.repeat(50), '#Work every day', 'every day p1', '\u0000\u202e'])
      expect(() => parseSchedule(words, now)).toThrow(/schedule|characters/);
    const { db } = tempDb();
    expect(addRoutine(db, userCtx(db), { name: 'r', request: 'x'.repeat(1_000_000), schedule: 'every day' }, now)).toMatchObject({ ok: false });
    expect(addRoutine(db, userCtx(db), { name: 'r', request: 'ok', schedule: 'every day', tools: ['Bad Name!'] }, now)).toMatchObject({ ok: false });
    expect(db.prepare('SELECT count(*) AS n FROM routines').get()).toEqual({ n: 0 });
  });
});

describe('the scheduler', () => {
  it('runs an occurrence due now once, and nothing more until the next one', async () => {
    const { db } = tempDb();
    const r = add(db);
    const clock = { t: local(2035, 1, 1, 8, 1) };
    const model = new ScriptedModel([say('Planned.'), say('Planned again.')]);
    const h = host(db, model, clock);
    const first = await runDue(h);
    expect(first.map((x) => [x.kind, x.status])).toEqual([['scheduled', 'done']]);
    expect(await runDue(h)).toEqual([]);
    clock.t = local(2035, 1, 2, 8, 0);
    expect((await runDue(h)).map((x) => x.kind)).toEqual(['scheduled']);
    // One conversation per routine: the second run continued the first's.
    const runs = routineHistory(db, r.id);
    expect(runs).toHaveLength(2);
    expect(model.requests[1]!.messages.filter((m) => m.role === 'user')).toHaveLength(2);
  });

  it('catches up occurrences missed while down once on start, and records the others as skipped', async () => {
    const { db } = tempDb();
    const r = add(db);
    const clock = { t: local(2035, 1, 4, 12, 0) };
    const h = host(db, new ScriptedModel([say('Caught up.')]), clock);
    expect(dueOccurrences(getRoutine(db, r.id)!, lastOccurrence(db, r.id), clock.t)).toHaveLength(4);
    const results = await runDue(h);
    expect(results.map((x) => [x.kind, x.status])).toEqual([['catch_up', 'done']]);
    expect(results[0]!.occurrence).toBe(new Date(local(2035, 1, 4, 8, 0)).toISOString());
    expect(routineHistory(db, r.id).map((x) => x.kind).sort()).toEqual(['catch_up', 'skipped', 'skipped', 'skipped']);
    expect(await runDue(h)).toEqual([]);
  });

  it('records missed occurrences as skipped when the routine says so, and runs nothing', async () => {
    const { db } = tempDb();
    const r = add(db, { catchUp: 'skip' });
    const model = new ScriptedModel([]);
    const results = await runDue(host(db, model, { t: local(2035, 1, 3, 12, 0) }));
    expect(results.map((x) => x.status)).toEqual(['skipped']);
    expect(routineHistory(db, r.id).map((x) => x.status)).toEqual(['skipped', 'skipped', 'skipped']);
    expect(model.requests).toHaveLength(0);
  });

  it('never runs one occurrence twice across two database handles racing for it', async () => {
    const { db, path } = tempDb();
    add(db);
    const other = openDatabase(path);
    try {
      const clock = { t: local(2035, 1, 1, 8, 2) };
      const a = new ScriptedModel([say('A ran.')], 'a');
      const b = new ScriptedModel([say('B ran.')], 'b');
      const [ra, rb] = await Promise.all([runDue(host(db, a, clock, 'one')), runDue(host(other, b, clock, 'two'))]);
      expect(ra.length + rb.length).toBe(1);
      expect(a.requests.length + b.requests.length).toBe(1);
      expect(db.prepare(`SELECT count(*) AS n FROM runs`).get()).toEqual({ n: 1 });
    } finally {
      other.close();
    }
  });

  it('leaves a run that needs approval waiting, and goes on after a restart when approved', async () => {
    const { db, path } = tempDb();
    const [t1] = seedInbox(db);
    const r = add(db, { request: 'complete the first inbox task' });
    const clock = { t: local(2035, 1, 1, 8, 0) };
    const h = host(db, new ScriptedModel([calls(call('complete_task', { task_id: t1 }))]), clock);
    const [result] = await runDue(h);
    expect(result).toMatchObject({ status: 'waiting', waitingFor: expect.stringMatching(/^w\d+$/) });
    expect(result!.message).toContain('tidy approve');
    expect(h.notices.map((n) => n.kind)).toEqual(['waiting']);
    expect(listApprovals(db)).toMatchObject([{ routineId: r.id, tool: 'complete_task', mode: 'detached' }]);
    expect(listTasks(db, { status: 'done' }).tasks).toEqual([]);
    db.close();

    const db2 = openDatabase(path);
    try {
      const h2 = host(db2, new ScriptedModel([say('Completed it.')]), clock);
      const { answered, result: pending } = await answerApprovalById(h2, result!.waitingFor!, 'approve');
      const cont = await pending;
      expect(answered.continued).toBe(true);
      expect(cont).toMatchObject({ kind: 'continued', status: 'done', message: 'Completed it.' });
      expect(listTasks(db2, { status: 'done' }).tasks.map((t) => t.id)).toEqual([t1]);
      expect(getApproval(db2, result!.waitingFor!)).toMatchObject({ decision: 'approve' });
      expect(routineHistory(db2, r.id).map((x) => [x.kind, x.status])).toEqual([
        ['continued', 'done'],
        ['scheduled', 'waiting'],
      ]);
    } finally {
      db2.close();
    }
  });

  it('cuts a hung model at the run cap, and pauses the routine after failures in a row with one notice', async () => {
    const { db } = tempDb();
    const r = add(db, { timeLimitSec: 1 });
    const never = () => new Promise<never>(() => {});
    const h = host(db, new ScriptedModel([never], 'hung', 'repeat'), { t: 0 });
    for (let i = 1; i <= MAX_FAILURES + 1; i++) {
      const result = await runRoutineNow(h, 'plan my day').catch((e: Error) => e);
      if (i <= MAX_FAILURES) {
        expect(result).toMatchObject({ status: 'limit' });
        expect(failuresInARow(db, r.id)).toBe(i);
      }
    }
    expect(resolveRoutine(db, r.id).enabled).toBe(false);
    expect(h.notices.filter((n) => n.kind === 'paused')).toHaveLength(1);
    expect(dueOccurrences(resolveRoutine(db, r.id), null, local(2035, 1, 9))).toEqual([]);
  }, 30_000);
});
