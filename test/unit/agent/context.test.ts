import { describe, expect, it } from 'vitest';
import { compactToBudget, dated, dateLine, estimateTokens } from '../../../src-main/core/agent/context';
import { isObservation, OBSERVATION } from '../../../src-main/core/agent/protocols';
import type { ChatMessage } from '../../../src-main/core/llm/port';
import { tempDb } from '../../support/db';
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

  it('keeps a run that lists a big inbox within the budget, and its system prompt and tools byte-identical from step to step', async () => {
    const { db } = tempDb();
    seedInbox(db);
    const script = [calls(call('get_inbox_tasks')), ...Array.from({ length: 6 }, (_, i) => calls(call('search', { query: `task ${i}` }))), say('done')];
    const model = new ScriptedModel(script);
    const r = await run(db, model, 'look around', { limits: { maxActions: 50, timeLimitMs: 30_000, historyLength: 15, contextTokens: 2_000 } });
    expect(r.status).toBe('done');
    for (const req of model.requests) {
      const tokens = estimateTokens(JSON.stringify(req.messages)) + estimateTokens(JSON.stringify(req.tools ?? []));
      expect(tokens).toBeLessThan(2_000 * 1.6);
      expect(req.messages[0]).toEqual(model.requests[0]!.messages[0]);
      expect(req.tools).toEqual(model.requests[0]!.tools);
      // Each request is the previous one plus what happened since, except where a result was shortened.
      expect(req.cacheKey).toBe(model.requests[0]!.cacheKey);
    }
  });
});
