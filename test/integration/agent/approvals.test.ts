// Pending approvals as rows: a run that waits in place is listed too; a detached run (a routine's) ends
// waiting and goes on after a "restart" (a new database handle and new live runs) when the user answers.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-shared/events';
import { listTasks, openDatabase } from '../../../src-main/core';
import {
  answerStoredApproval,
  createLiveRuns,
  getApproval,
  listApprovals,
  loadMessages,
  readTrace,
  startRun,
  TOOLS,
  type AgentDeps,
} from '../../../src-main/core/agent';
import { ModelError, type Model, type ModelRequest } from '../../../src-main/core/llm/port';
import { tempDb } from '../../support/db';
import { seedInbox } from '../../support/agent';
import { call, calls, say, ScriptedModel } from '../../fakes/scripted-model';

const depsOn = (db: AgentDeps['db'], model: Model): AgentDeps => ({ db, tools: TOOLS, live: createLiveRuns(), createModel: () => model });
const base = { baseUrl: 'http://fake/v1', model: 'm1', stream: false } as const;

function started(deps: AgentDeps, input: Parameters<typeof startRun>[1], events: AgentEvent[] = []) {
  const r = startRun(deps, { ...base, ...input }, (e) => events.push(e));
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

describe('a detached run that needs approval', () => {
  it('ends waiting, survives a restart, and goes on with the call when approved', async () => {
    const { db, path } = tempDb();
    const [t1] = seedInbox(db);
    const first = new ScriptedModel([calls(call('complete_task', { task_id: t1 }, 'call_a'))]);
    const run = started(depsOn(db, first), { message: 'finish the first task', detached: { routineId: null } });
    const outcome = await run.finished;
    expect(outcome.status).toBe('done');
    expect(outcome.waitingFor).toMatch(/^w\d+$/);
    expect(outcome.answer).toContain(`tidy approve ${outcome.waitingFor}`);
    const pending = listApprovals(db);
    expect(pending).toHaveLength(1);
    expect(pending[0]).toMatchObject({ id: outcome.waitingFor, runId: run.runId, tool: 'complete_task', args: { task_id: t1 }, mode: 'detached', decision: null });
    expect(listTasks(db, { status: 'open' }).tasks.map((t) => t.id)).toContain(t1);
    db.close();

    // "Restart": another handle on the file, nothing live.
    const db2 = openDatabase(path);
    try {
      const second = new ScriptedModel([say('Done: the first task is complete.')]);
      const events: AgentEvent[] = [];
      const answered = answerStoredApproval(depsOn(db2, second), outcome.waitingFor!, 'approve', undefined, { ...base }, (e) => events.push(e));
      expect(answered.continued).toBe(true);
      if (!answered.continued) return;
      const end = await answered.run.finished;
      expect(end).toMatchObject({ status: 'done', answer: 'Done: the first task is complete.', conversationId: run.conversationId });
      expect(listTasks(db2, { status: 'done' }).tasks.map((t) => t.id)).toContain(t1);
      // The model saw the call and its result after the note, in the same conversation.
      const sent = second.requests[0]!.messages.slice(1);
      const last = sent.slice(-3);
      expect(last[0]).toMatchObject({ role: 'user' });
      expect(last[1]).toMatchObject({ role: 'assistant', toolCalls: [{ id: 'call_a', name: 'complete_task' }] });
      expect(last[2]).toMatchObject({ role: 'tool', toolCallId: 'call_a' });
      expect(JSON.parse((last[2] as { content: string }).content)).toMatchObject({ ok: true });
      expect(readTrace(db2, answered.run.runId).map((e) => e.type)).toEqual(['run_started', 'approval_resolved', 'tool_call', 'tool_result', 'usage', 'answer', 'run_finished']);
      expect(getApproval(db2, outcome.waitingFor!)).toMatchObject({ decision: 'approve', continuedRunId: answered.run.runId, decidedAt: expect.any(String) });
      expect(listApprovals(db2)).toEqual([]);
      // Answered once: a second answer is refused and changes nothing.
      expect(() => answerStoredApproval(depsOn(db2, second), outcome.waitingFor!, 'decline', undefined, { ...base }, () => {})).toThrow(/already answered/);
      expect(loadMessages(db2, run.conversationId).filter((m) => m.role === 'user')).toHaveLength(2);
    } finally {
      db2.close();
    }
  });

  it('tells the model of a decline and changes nothing; edited arguments are checked first', async () => {
    const { db } = tempDb();
    const [t1] = seedInbox(db);
    const run = started(depsOn(db, new ScriptedModel([calls(call('complete_task', { task_id: t1 }, 'call_b'))])), { message: 'finish it', detached: {} });
    const { waitingFor } = await run.finished;
    const next = new ScriptedModel([say('Left it open.')]);
    const deps = depsOn(db, next);
    expect(() => answerStoredApproval(deps, waitingFor!, 'approve', { task_id: 42 }, { ...base }, () => {})).toThrow(/not valid/);
    expect(getApproval(db, waitingFor!)?.decision).toBeNull();
    const answered = answerStoredApproval(deps, waitingFor!, 'decline', undefined, { ...base }, () => {});
    if (!answered.continued) throw new Error('expected a new run');
    expect((await answered.run.finished).answer).toBe('Left it open.');
    const observation = next.requests[0]!.messages.at(-1) as { role: string; content: string };
    expect(observation.role).toBe('tool');
    expect(JSON.parse(observation.content).error).toMatch(/declined/);
    expect(listTasks(db, { status: 'open' }).tasks.map((t) => t.id)).toContain(t1);
  });

  it('refuses unknown ids, and a live approval of another running process', async () => {
    const { db } = tempDb();
    const [t1] = seedInbox(db);
    const deps = depsOn(db, new ScriptedModel([calls(call('complete_task', { task_id: t1 }))]));
    expect(() => answerStoredApproval(deps, 'w999', 'approve', undefined, {}, () => {})).toThrow(/no approval with id w999/);
    const run = started(deps, { message: 'finish it', detached: {} });
    const { waitingFor } = await run.finished;
    db.prepare(`UPDATE approvals SET mode = 'live', owner_pid = ? WHERE id = ?`).run(process.ppid, waitingFor);
    expect(() => answerStoredApproval(deps, waitingFor!, 'approve', undefined, {}, () => {})).toThrow(/another Tidy process/);
  });
});

describe('a run that waits in place', () => {
  it('is listed as a row while it waits, answered by id in place, and expires with its run', async () => {
    const { db } = tempDb();
    const [t1, t2] = seedInbox(db);
    const model = new ScriptedModel([calls(call('complete_task', { task_id: t1 })), calls(call('complete_task', { task_id: t2 })), say('ok')]);
    const deps = depsOn(db, model);
    const events: AgentEvent[] = [];
    const run = started(deps, { message: 'finish two' }, events);
    await expect.poll(() => listApprovals(db).length, { timeout: 10_000 }).toBe(1);
    const [row] = listApprovals(db);
    expect(row).toMatchObject({ mode: 'live', tool: 'complete_task', card: { approvalId: 'ap1', message: expect.any(String) } });
    expect(answerStoredApproval(deps, row!.id, 'approve', undefined, {}, () => {})).toEqual({ continued: false });
    await expect.poll(() => listApprovals(db).length, { timeout: 10_000 }).toBe(1);
    const second = listApprovals(db)[0]!;
    expect(second.id).not.toBe(row!.id);
    expect(getApproval(db, row!.id)?.decision).toBe('approve');
    // Cancelled while waiting: the row can no longer be answered.
    deps.live.get(run.runId)!.controller.abort();
    expect((await run.finished).status).toBe('cancelled');
    expect(getApproval(db, second.id)?.decision).toBe('expired');
    expect(listApprovals(db)).toEqual([]);
    expect(listTasks(db, { status: 'done' }).tasks.map((t) => t.id)).toEqual([t1]);
  });
});

describe('a hung model', () => {
  it('is cut at the run time limit even when it ignores the signal', async () => {
    const { db } = tempDb();
    const never = (_r: ModelRequest) => new Promise<never>(() => {});
    const model = new ScriptedModel([never]);
    const run = started(depsOn(db, model), { message: 'plan', limits: { timeLimitMs: 300 } });
    const end = await run.finished;
    expect(end).toMatchObject({ status: 'limit', stopReason: 'time' });
    expect(ModelError).toBeDefined();
  });
});
