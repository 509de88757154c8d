/**
 * A provider that reports nonsense token usage (negative, fractional, huge, text) must not break run
 * history: the adapter clamps what it reads, and the readers of stored runs and traces survive a row
 * that was damaged before (or by hand) instead of failing with a ZodError.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLiveRuns, getRun, listRuns, readTrace, startRun, TOOLS } from '../../../src-main/core/agent';
import { createConversation } from '../../../src-main/core/agent/conversations';
import { mapUsage, MAX_CALL_TOKENS } from '../../../src-main/core/llm/assemble';
import { createOpenAIModel } from '../../../src-main/core/llm/openai';
import { AgentEvent, RunInfo } from '../../../src-shared/events';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server';
import { tempDb } from '../../support/db';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

/** A chat.completion whose usage object is `usage`, written as raw JSON text (so 1e400 stays 1e400). */
const completion = (usage: string): string =>
  `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":${usage}}`;

describe('token usage is clamped where it is read', () => {
  it.each([
    ['negative, fractional and beyond any number', '{"prompt_tokens":-5,"completion_tokens":2.6,"total_tokens":1e400}', [0, 3, MAX_CALL_TOKENS]],
    ['huge but finite', '{"prompt_tokens":9007199254740993,"completion_tokens":1e300,"total_tokens":-0.4}', [MAX_CALL_TOKENS, MAX_CALL_TOKENS, 0]],
    ['text, null and missing', '{"prompt_tokens":"12","completion_tokens":null}', [12, 0, 12]],
    ['only a total', '{"total_tokens":7.5}', [0, 0, 8]],
  ])('%s', async (_name, usage, [promptTokens, completionTokens, totalTokens]) => {
    for (const stream of [false, true]) {
      const body = stream
        ? `data: {"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":"stop"}]}\n\ndata: {"object":"chat.completion.chunk","choices":[],"usage":${usage}}\n\ndata: [DONE]\n\n`
        : completion(usage);
      fake.enqueue({ status: 200, headers: { 'content-type': stream ? 'text/event-stream' : 'application/json' }, body });
      const turn = await createOpenAIModel({ baseUrl: fake.url, model: 'm' }).complete({ messages: [{ role: 'user', content: 'hi' }], stream });
      expect(turn.usage).toEqual({ promptTokens, completionTokens, totalTokens });
    }
  });

  it('every count it returns is a whole number from 0 to MAX_CALL_TOKENS, whatever came', () => {
    const odd: unknown[] = [-1, -0, 0.5, 1.5, Infinity, -Infinity, NaN, 2 ** 60, '3', ' 4 ', '5x', '', true, {}, [], null];
    for (const v of odd) {
      const u = mapUsage({ prompt_tokens: v, completion_tokens: v, total_tokens: v });
      for (const n of Object.values(u ?? { a: 0 })) {
        expect(Number.isSafeInteger(n), `${String(v)} → ${n}`).toBe(true);
        expect(n).toBeGreaterThanOrEqual(0);
        expect(n).toBeLessThanOrEqual(MAX_CALL_TOKENS);
      }
    }
    expect(mapUsage({})).toBeNull();
    expect(mapUsage('12')).toBeNull();
  });

  it('a run against such a server is stored, listed and replayed', async () => {
    const { db } = tempDb();
    fake.enqueue({ status: 200, body: completion('{"prompt_tokens":-40,"completion_tokens":12.5,"total_tokens":1e400}') });
    const deps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => createOpenAIModel({ baseUrl: fake.url, model: 'm' }) };
    const started = startRun(deps, { message: 'hello', baseUrl: fake.url, model: 'm', stream: false }, () => undefined);
    if (!started.ok) throw new Error(started.error);
    const result = await started.value.finished;
    expect(result.status).toBe('done');
    const [info] = listRuns(db);
    expect(info?.usage).toEqual({ promptTokens: 0, completionTokens: 13, totalTokens: MAX_CALL_TOKENS, cachedTokens: 0 });
    expect(info?.message).toBeNull();
    const trace = readTrace(db, started.value.runId);
    expect(trace.find((e) => e.type === 'usage')).toMatchObject({ promptTokens: 0, completionTokens: 13, totalTokens: MAX_CALL_TOKENS });
    expect(trace.some((e) => e.type === 'error')).toBe(false);
  });
});

describe('readers of stored runs survive a damaged row', () => {
  /** A database with one good run and one whose row and steps were damaged (as older versions could store them). */
  function damaged() {
    const { db } = tempDb();
    const conversation = createConversation(db, 'x');
    const insertRun = db.prepare(
      `INSERT INTO runs (id, conversation_id, status, request, model, base_url, protocol, actions, prompt_tokens, completion_tokens, total_tokens, started_at, finished_at, message)
       VALUES (?, ?, ?, ?, 'm', 'http://127.0.0.1:1/v1', ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    insertRun.run('r1', conversation, 'done', 'good', 'native', 1, 10, 5, 15, '2026-01-01T10:00:00.000Z', '2026-01-01T10:00:01.000Z', null);
    // SQLite's column types do not stop these; the CHECK constraints are off while the row is written.
    db.pragma('ignore_check_constraints = ON');
    insertRun.run('r2', conversation, 'weird', 'bad', 'carrier-pigeon', -2, -40, 12.5, 1e300, '2026-01-02T10:00:00.000Z', '2026-01-02T10:00:01.000Z', 'it ended');
    db.pragma('ignore_check_constraints = OFF');
    const step = db.prepare(`INSERT INTO steps (run_id, seq, kind, payload) VALUES ('r2', ?, ?, ?)`);
    const base = { runId: 'r2', at: '2026-01-02T10:00:00.000Z' };
    step.run(0, 'run_started', JSON.stringify({ ...base, seq: 0, type: 'run_started', conversationId: conversation, request: 'bad', model: 'm', baseUrl: 'http://x', protocol: 'native' }));
    step.run(1, 'usage', JSON.stringify({ ...base, seq: 1, type: 'usage', promptTokens: -40, completionTokens: 12.5, totalTokens: 2 ** 60 }));
    step.run(2, 'thought', '{"not": "closed"');
    step.run(3, 'tool_call', JSON.stringify({ ...base, seq: 3, type: 'teleport', callId: 'c' }));
    step.run(4, 'run_finished', JSON.stringify({ ...base, seq: 4, type: 'run_finished', status: 'done', actions: -1, usage: { promptTokens: -40, completionTokens: 12.5, totalTokens: '?' } }));
    return db;
  }

  it('lists runs and gets a run, the damaged one repaired with a note', () => {
    const db = damaged();
    const runs = listRuns(db);
    expect(runs.map((r) => r.id)).toEqual(['r2', 'r1']);
    for (const r of runs) expect(RunInfo.safeParse(r).success).toBe(true);
    expect(runs[1]).toMatchObject({ status: 'done', usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 }, message: null });
    const bad = getRun(db, 'r2');
    expect(bad).toMatchObject({
      status: 'error',
      protocol: 'native',
      actions: 0,
      usage: { promptTokens: 0, completionTokens: 13, totalTokens: Number.MAX_SAFE_INTEGER },
    });
    expect(bad?.message).toMatch(/^it ended \(the stored record of this run was damaged and is shown repaired: status, protocol, usage\.promptTokens, usage\.completionTokens, usage\.totalTokens\)$/);
  });

  it('reads the trace: token counts repaired, unreadable steps replaced by a note, none lost', () => {
    const db = damaged();
    const trace = readTrace(db, 'r2');
    expect(trace.map((e) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    for (const e of trace) expect(AgentEvent.safeParse(e).success).toBe(true);
    expect(trace[1]).toMatchObject({ type: 'usage', promptTokens: 0, completionTokens: 13, totalTokens: Number.MAX_SAFE_INTEGER });
    expect(trace[2]).toMatchObject({ type: 'error', kind: 'internal', fatal: false, message: 'step 2 of this trace (thought) is damaged and cannot be shown' });
    expect(trace[3]).toMatchObject({ type: 'error', kind: 'internal', fatal: false, message: 'step 3 of this trace (tool_call) is damaged and cannot be shown' });
    expect(trace[4]).toMatchObject({ type: 'run_finished', status: 'done', actions: 0, usage: { promptTokens: 0, completionTokens: 13, totalTokens: 0 } });
  });
});
