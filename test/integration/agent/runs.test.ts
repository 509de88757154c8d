// The run API a host calls (startRun / cancelRun / answerApproval) with the SQLite trace writer, over the
// scripted in-process model.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-shared/events';
import { listTasks, readSettings, writeSetting } from '../../../src-main/core';
import {
  answerApproval,
  cancelRun,
  createLiveRuns,
  getRun,
  listRuns,
  loadMessages,
  readTrace,
  rememberedProtocol,
  startRun,
  TOOLS,
  type AgentDeps,
  type StartRunInput,
} from '../../../src-main/core/agent';
import { ModelError, type Model } from '../../../src-main/core/llm/port';
import { tempDb } from '../../support/db';
import { ofType, seedInbox } from '../../support/agent';
import { act, call, calls, finalAnswer, hang, say, ScriptedModel } from '../../fakes/scripted-model';

function host(model: Model) {
  const { db } = tempDb();
  const deps: AgentDeps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => model };
  const events: AgentEvent[] = [];
  const start = (input: StartRunInput, onEvent: (e: AgentEvent) => void = () => {}) => {
    const r = startRun(deps, { baseUrl: 'http://fake/v1', model: 'm1', stream: false, ...input }, (e) => {
      events.push(e);
      onEvent(e);
    });
    if (!r.ok) throw new Error(r.error);
    return r.value;
  };
  return { db, deps, events, start };
}

describe('startRun', () => {
  it('writes the trace (run row, steps, usage) and the conversation, and the next run continues it', async () => {
    const model = new ScriptedModel([calls(call('get_inbox_tasks')), say('Your inbox has 9 tasks.'), say('You asked about your inbox.')]);
    const { db, start } = host(model);
    seedInbox(db);
    const first = start({ message: 'what is in my inbox?' });
    expect(first).toMatchObject({ runId: 'r1', conversationId: 'c1' });
    const done = await first.finished;
    expect(done).toMatchObject({ runId: 'r1', conversationId: 'c1', status: 'done', answer: 'Your inbox has 9 tasks.', actions: 1 });

    expect(getRun(db, 'r1')).toMatchObject({
      status: 'done',
      request: 'what is in my inbox?',
      answer: 'Your inbox has 9 tasks.',
      model: 'scripted',
      protocol: 'native',
      actions: 1,
      usage: { promptTokens: 20, completionTokens: 10, totalTokens: 30 },
      finishedAt: expect.any(String),
    });
    expect(readTrace(db, 'r1').map((e) => e.type)).toEqual(['run_started', 'usage', 'tool_call', 'tool_result', 'usage', 'answer', 'run_finished']);
    expect(loadMessages(db, 'c1').map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);

    const second = start({ message: 'what did I ask?', conversationId: 'c1' });
    await second.finished;
    expect(model.requests[2]!.messages.slice(1).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'user']);
    expect(listRuns(db).map((r) => r.id)).toEqual(['r2', 'r1']);
  });

  it('refuses an unknown conversation, an empty message, and a second run in a busy conversation', async () => {
    const { deps, start } = host(new ScriptedModel([hang]));
    expect(startRun(deps, { message: '  ' }, () => {})).toMatchObject({ ok: false, error: 'the message is empty' });
    expect(startRun(deps, { message: 'x', conversationId: 'c7' }, () => {})).toMatchObject({ ok: false, error: 'no conversation with id c7' });
    const running = start({ message: 'x' });
    expect(startRun(deps, { message: 'y', conversationId: running.conversationId }, () => {})).toMatchObject({
      ok: false,
      error: `run ${running.runId} is still going on in conversation ${running.conversationId}`,
    });
    expect(cancelRun(deps, running.runId)).toBe(true);
    expect((await running.finished).status).toBe('cancelled');
    expect(cancelRun(deps, running.runId)).toBe(false);
  });

  it('remembers per endpoint and model that tools were rejected (auto protocol)', async () => {
    const model = new ScriptedModel([new ModelError('model does not support tools', 'tools_unsupported', 400), finalAnswer('hi'), finalAnswer('hi again')]);
    const { db, start } = host(model);
    expect((await start({ message: 'hi' }).finished).protocol).toBe('json');
    expect(rememberedProtocol(db, { baseUrl: 'http://fake/v1', model: 'm1' })).toBe('json');
    expect(rememberedProtocol(db, { baseUrl: 'http://fake/v1', model: 'm2' })).toBeNull();
    expect(getRun(db, 'r1')!.protocol).toBe('json');
    await start({ message: 'hi again' }).finished;
    expect(model.requests[2]!.tools).toBeUndefined();
  });

  it('uses the settings: limits, and the protocol unless the input overrides it', async () => {
    const model = new ScriptedModel([act('get_inbox_tasks'), act('get_inbox_tasks', {}, 'again'), finalAnswer('x')]);
    const { db, start } = host(model);
    writeSetting(db, 'protocol', 'json');
    writeSetting(db, 'maxActions', '1');
    const r = await start({ message: 'x' }).finished;
    expect(r).toMatchObject({ status: 'limit', message: 'stopped: reached the limit of 1 actions', protocol: 'json' });
    expect(model.requests[0]!.tools).toBeUndefined();
  });
});

describe('approvals through the run API', () => {
  const script = () => new ScriptedModel([calls(call('complete_task', { task_id: 't1' })), calls(call('complete_task', { task_id: 't2' })), say('done')]);

  it('approve and decline by run id and approval id; an unknown or answered approval is refused', async () => {
    const { db, deps, start, events } = host(script());
    seedInbox(db);
    let n = 0;
    const run = start({ message: 'complete two' }, (e) => {
      if (e.type === 'approval_requested') setTimeout(() => answerApproval(deps, e.runId, e.approvalId, ++n === 1 ? 'approve' : 'decline'), 5);
    });
    const r = await run.finished;
    expect(r.status).toBe('done');
    expect(ofType(events, 'approval_resolved').map((e) => e.decision)).toEqual(['approve', 'decline']);
    expect(listTasks(db).tasks.map((t) => t.id)).not.toContain('t1');
    expect(listTasks(db).tasks.map((t) => t.id)).toContain('t2');
    expect(answerApproval(deps, run.runId, 'ap1', 'approve')).toBe(false);
    // A plain approve changes no setting: complete_task keeps its own default, ask.
    expect(readSettings(db).approvals).toEqual({});
  });

  it('always allow sets approvals.<tool> = auto, so the next call of that tool in the same run is not asked', async () => {
    const { db, deps, start, events } = host(script());
    seedInbox(db);
    const run = start({ message: 'complete two' }, (e) => {
      if (e.type === 'approval_requested') answerApproval(deps, e.runId, e.approvalId, 'always');
    });
    expect((await run.finished).status).toBe('done');
    expect(ofType(events, 'approval_requested')).toHaveLength(1);
    expect(readSettings(db).approvals).toEqual({ complete_task: 'auto' });
    expect(listTasks(db).total).toBe(7);
    // Revocable in the settings.
    writeSetting(db, 'approvals.complete_task', 'ask');
    expect(readSettings(db).approvals['complete_task']).toBe('ask');
  });

  it('approveAll runs without asking; cancel while an approval waits ends the run as cancelled', async () => {
    const a = host(script());
    seedInbox(a.db);
    expect((await a.start({ message: 'x', approveAll: true }).finished).status).toBe('done');
    expect(ofType(a.events, 'approval_requested')).toHaveLength(0);

    const b = host(script());
    seedInbox(b.db);
    const run = b.start({ message: 'x' }, (e) => {
      if (e.type === 'approval_requested') setTimeout(() => cancelRun(b.deps, e.runId), 5);
    });
    expect((await run.finished).status).toBe('cancelled');
    expect(getRun(b.db, run.runId)!.status).toBe('cancelled');
    expect(listTasks(b.db).total).toBe(9);
  });
});
