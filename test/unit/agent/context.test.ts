import { describe, expect, it } from 'vitest';
import { compactToBudget, dated, dateLine, estimateTokens } from '../../../src-main/core/agent/context';
import { isObservation, OBSERVATION } from '../../../src-main/core/agent/protocols';
import type { ChatMessage } from '../../../src-main/core/llm/port';
import { addTask, fitContextToModel, promptTokens, readSettings, TOOLS } from '../../../src-main/core';
import { offeredTools } from '../../../src-main/core/tools';
import type { ConnectionReport } from '../../../src-shared/providers';
import { tempDb, userCtx } from '../../support/db';
import { run, seedInbox } from '../../support/agent';
import { call, calls, say, ScriptedModel } from '../../fakes/scripted-model';

const big = (n: number) => JSON.stringify({ tasks: Array.from({ length: n }, (_, i) => ({ id: `t${i}`, content: `task number ${i}` })) });
const stepOf = (id: string, tool: string, content: string): ChatMessage[] => [
  { role: 'assistant', content: null, toolCalls: [{ id, name: tool, arguments: '{}' }] },
  { role: 'tool', toolCallId: id, content },
];

describe('the context budget', () => {
  it('shortens the oldest results in bulk, keeps every result in its place and the latest step whole', () => {
    const transcript: ChatMessage[] = [
      { role: 'user', content: 'sort my inbox' },
      ...stepOf('c1', 'get_inbox_tasks', big(300)),
      ...stepOf('c2', 'get_all_projects', big(200)),
      ...stepOf('c3', 'search', big(250)),
    ];
    const before = transcript.map((m) => m);
    const budget = 6_000;
    const r = compactToBudget(transcript, 0, budget, isObservation);
    expect(r.shortened).toBe(2);
    expect(r.tokens).toBeLessThanOrEqual(budget);
    expect(transcript.map((m) => m.role)).toEqual(before.map((m) => m.role));
    expect(transcript[2]).toEqual({ role: 'tool', toolCallId: 'c1', content: expect.stringContaining('"shortened":true') });
    expect(transcript[2]!.content).toContain('call get_inbox_tasks again if you need it');
    expect(transcript[6]).toBe(before[6]); // the latest step's result is never shortened
    // The messages themselves were not changed: the stored conversation keeps the full results.
    expect(before[2]!.content).toBe(big(300));
    // Within budget now, a second pass changes nothing (the prefix stays byte-stable).
    const again = transcript.map((m) => m);
    expect(compactToBudget(transcript, 0, budget, isObservation).shortened).toBe(0);
    expect(transcript).toEqual(again);
  });

  it('shortens json-protocol observations as observations', () => {
    const transcript: ChatMessage[] = [
      { role: 'user', content: 'q' },
      { role: 'assistant', content: '{"thought":"","action":{"type":"get_inbox_tasks"}}' },
      { role: 'user', content: `${OBSERVATION}${big(400)}` },
      { role: 'assistant', content: '{"thought":"","action":{"type":"search"}}' },
      { role: 'user', content: `${OBSERVATION}${big(10)}` },
    ];
    expect(compactToBudget(transcript, 0, 3_000, isObservation).shortened).toBe(1);
    expect(transcript[2]!.content!.startsWith(`${OBSERVATION}{"shortened":true`)).toBe(true);
    expect(isObservation(transcript[2]!)).toBe(true);
  });

  it('puts the date, weekday and time zone before the user’s own words, never before observations', () => {
    expect(dateLine('2026-11-23T10:00:00.000Z', 'UTC')).toBe('[Monday 2026-11-23, time zone UTC]');
    expect(dateLine('2026-11-23T23:30:00.000Z', 'Europe/Berlin')).toBe('[Tuesday 2026-11-24, time zone Europe/Berlin]');
    const m = dated([{ role: 'user', content: 'hi', at: '2026-11-23T10:00:00.000Z' }, { role: 'user', content: `${OBSERVATION}{}`, at: '2026-11-23T10:00:00.000Z' }], isObservation);
    expect(m[0]!.content).toMatch(/^\[Monday 2026-11-23, time zone .+\]\nhi$/);
    expect(m[1]!.content).toBe(`${OBSERVATION}{}`);
  });

  it('dates in the zone the process runs in now, also after TZ changes (the zone is kept between steps)', () => {
    const saved = process.env['TZ'];
    try {
      process.env['TZ'] = 'Asia/Tokyo';
      expect(dateLine('2026-11-23T20:00:00.000Z')).toBe('[Tuesday 2026-11-24, time zone Asia/Tokyo]');
      expect(dateLine('2026-11-23T20:00:00.000Z')).toBe('[Tuesday 2026-11-24, time zone Asia/Tokyo]');
      process.env['TZ'] = 'America/New_York';
      expect(dateLine('2026-11-23T20:00:00.000Z')).toBe('[Monday 2026-11-23, time zone America/New_York]');
      expect(dateLine('not a date')).toBe('');
    } finally {
      if (saved === undefined) delete process.env['TZ'];
      else process.env['TZ'] = saved;
    }
  });

  it('keeps a run that lists a big inbox within the budget, and its system prompt and tools byte-identical from step to step', async () => {
    const script = () => [calls(call('get_inbox_tasks')), ...Array.from({ length: 6 }, (_, i) => calls(call('search', { query: `task ${i}` }))), say('done')];
    // The budget is the prompt's own size (system prompt and tools, measured) plus room for 1,500 tokens of
    // conversation, so the test holds however many tools there are.
    const probe = new ScriptedModel([say('done')]);
    await run(tempDb().db, probe, 'hi');
    const first = probe.requests[0]!;
    const prefix = estimateTokens(JSON.stringify(first.messages.slice(0, 1))) + estimateTokens(JSON.stringify(first.tools ?? []));
    const contextTokens = prefix + 1_500;
    const { db } = tempDb();
    seedInbox(db);
    for (let i = 0; i < 150; i++) addTask(db, userCtx(db), { content: `inbox item number ${i} to sort later` });
    const model = new ScriptedModel(script());
    const r = await run(db, model, 'look around', { limits: { maxActions: 50, timeLimitMs: 30_000, historyLength: 15, contextTokens } });
    expect(r.status).toBe('done');
    const sizes = model.requests.map((req) => estimateTokens(JSON.stringify(req.messages)) + estimateTokens(JSON.stringify(req.tools ?? [])));
    // The inbox listing alone is larger than the room left for the conversation. The latest step is never
    // shortened, so the request right after the listing carries it whole; from the next step on it is a
    // one-line note and each request stays within the budget but for the newest search result.
    expect(sizes[1]).toBeGreaterThan(contextTokens);
    expect(Math.max(...sizes.slice(2))).toBeLessThan(contextTokens + 700);
    expect(r.events.some((e) => e.type === 'error' && e.kind === 'context')).toBe(true);
    for (const req of model.requests) {
      expect(req.messages[0]).toEqual(model.requests[0]!.messages[0]);
      expect(req.tools).toEqual(model.requests[0]!.tools);
      // Each request is the previous one plus what happened since, except where a result was shortened.
      expect(req.cacheKey).toBe(model.requests[0]!.cacheKey);
    }
  });
});

describe('the context window of a local model (Test and use, tidy config test)', () => {
  const report = (tokens: number | null): ConnectionReport => ({
    ok: true,
    problem: null,
    message: 'connected',
    hint: '',
    url: 'http://127.0.0.1:11434/v1/models',
    status: 200,
    keySource: null,
    models: ['m'],
    modelCount: 1,
    model: 'm',
    modelListed: true,
    warning: null,
    elapsedMs: 1,
    context: { tokens, modelMax: null, source: 'the num_ctx of the model', promptTokens: null, budget: null, tooSmall: false, note: '' },
  });

  it('warns in one line, with what to do, when the window cannot hold Tidy’s prompt (the size measured above) and the answer', () => {
    const { db } = tempDb();
    const prompt = promptTokens(offeredTools(TOOLS, readSettings(db)));
    expect(prompt).toBeGreaterThan(2_000);
    const r = fitContextToModel(db, report(4096), 'ollama');
    expect(r.context).toMatchObject({ tooSmall: true, promptTokens: prompt, budget: null });
    expect(r.warning).toMatch(/^context window 4,096 tokens \(the num_ctx of the model\): too small for Tidy's prompt of about [\d,]+ tokens .* give it a bigger num_ctx/);
    expect(r.warning!.split('\n')).toHaveLength(1);
    expect(readSettings(db).contextTokens).toBe(16_000); // nothing fitted to a window that cannot work
    expect(fitContextToModel(db, report(4096), 'llamacpp').warning).toMatch(/-c 16384/);
  });

  it('fits the context budget to the window: lowered when over it, back up to the default when there is room, untouched for another profile', () => {
    const { db } = tempDb();
    const window = promptTokens(offeredTools(TOOLS, readSettings(db))) + 1_024 + 3_000;
    const small = fitContextToModel(db, report(window), 'lmstudio');
    expect(small.warning).toBeNull();
    expect(small.context).toMatchObject({ tooSmall: false, budget: window - 1_024 });
    expect(readSettings(db).contextTokens).toBe(window - 1_024);
    expect(small.context!.note).toMatch(/context budget [\d,]+ tokens$/);
    expect(fitContextToModel(db, report(131_072), 'lmstudio').context!.budget).toBe(16_000);
    expect(readSettings(db).contextTokens).toBe(16_000);
    fitContextToModel(db, report(window), 'lmstudio', { fit: false });
    expect(readSettings(db).contextTokens).toBe(16_000);
    // Unknown windows and failed tests change nothing but the line that says what Tidy assumes instead.
    const unknown = { ...report(null), context: { ...report(null).context!, source: 'could not read the context window: /api/ps answered 404' } };
    expect(fitContextToModel(db, unknown, 'ollama')).toEqual({
      ...unknown,
      context: { ...unknown.context, note: "could not read the context window (/api/ps answered 404); Tidy assumes 16,000 tokens (its context budget) — set num_ctx or OLLAMA_CONTEXT_LENGTH (e.g. OLLAMA_CONTEXT_LENGTH=16384 ollama serve)" },
    });
    expect(readSettings(db).contextTokens).toBe(16_000);
    const failed = { ...report(null), ok: false };
    expect(fitContextToModel(db, failed, 'ollama')).toEqual(failed);
  });
});
