import { describe, expect, it } from 'vitest';
import { actionLimit, canonicalJson, historyWindow, OBSERVATION, repeatedCall, timeLimit } from '../../../src-main/core/agent';
import type { ChatMessage } from '../../../src-main/core/llm/port';

const isObs = (m: ChatMessage) => m.role === 'user' && m.content.startsWith(OBSERVATION);
const state = (calls: [string, unknown][], elapsedMs = 0) => ({ calls: calls.map(([tool, args]) => ({ tool, args: canonicalJson(args) })), elapsedMs });

describe('stop predicates', () => {
  it('action limit counts the pending call', () => {
    expect(actionLimit(2)(state([['a', {}], ['b', {}]]))).toBeNull();
    expect(actionLimit(2)(state([['a', {}], ['b', {}], ['c', {}]]))).toEqual({ reason: 'actions', message: 'reached the limit of 2 actions' });
  });

  it('a repeated call is the same tool with the same arguments, keys in any order, in a row', () => {
    const same: [string, unknown][] = [['move_task', { task_id: 't1', project_id: 'p1' }], ['move_task', { project_id: 'p1', task_id: 't1' }]];
    expect(repeatedCall(3)(state(same))).toBeNull();
    const loop = repeatedCall(3)(state([...same, ['move_task', { task_id: 't1', project_id: 'p1' }]]));
    expect(loop?.reason).toBe('loop');
    expect(loop?.message).toMatch(/^move_task was called 3 times in a row/);
    expect(repeatedCall(3)(state([...same, ['move_task', { task_id: 't2', project_id: 'p1' }]]))).toBeNull();
    expect(repeatedCall(3)(state([same[0]!, ['search', { query: 'x' }], same[1]!]))).toBeNull();
  });

  it('time limit', () => {
    expect(timeLimit(5000)(state([], 4999))).toBeNull();
    expect(timeLimit(5000)(state([], 5000))).toEqual({ reason: 'time', message: 'reached the time limit of 5 s' });
  });
});

describe('historyWindow', () => {
  const u = (content: string): ChatMessage => ({ role: 'user', content });
  const a = (content: string): ChatMessage => ({ role: 'assistant', content });
  const step = (id: string, results: number): ChatMessage[] => [
    { role: 'assistant', content: null, toolCalls: Array.from({ length: results }, (_, i) => ({ id: `${id}${i}`, name: 'search', arguments: '{}' })) },
    ...Array.from({ length: results }, (_, i): ChatMessage => ({ role: 'tool', toolCallId: `${id}${i}`, content: '{}' })),
  ];

  it('keeps everything that fits, but never a leading orphan result', () => {
    const m = [u('q'), a('x')];
    expect(historyWindow(m, 0, 5, isObs)).toEqual(m);
    const orphan: ChatMessage[] = [{ role: 'tool', toolCallId: 'gone', content: '{}' }, u('q')];
    expect(historyWindow(orphan, 1, 5, isObs)).toEqual([u('q')]);
  });

  it('sends every step of the current run, however long; historyLength bounds only the earlier turns', () => {
    const run = [u('q'), ...step('s', 2), ...step('t', 2)];
    expect(historyWindow(run, 0, 2, isObs)).toEqual(run);
    const earlier = [u('e1'), a('a1'), u('e2'), a('a2'), u('e3'), a('a3')];
    const m = [...earlier, ...run];
    expect(historyWindow(m, 6, 2, isObs)).toEqual([u('e3'), a('a3'), ...run]);
    expect(historyWindow(m, 6, 4, isObs)).toEqual([u('e2'), a('a2'), u('e3'), a('a3'), ...run]);
    expect(historyWindow(m, 6, 100, isObs)).toEqual(m);
  });

  it('never starts the earlier turns inside a step: not at a tool result, not at a json observation', () => {
    const earlier = [u('e1'), ...step('s', 3), a('done'), u(`${OBSERVATION}{}`), a('ok')];
    const m = [...earlier, u('q'), a('answer')];
    // The last 5 earlier messages start at a tool result (s1): the window moves past the cut step.
    expect(historyWindow(m, earlier.length, 5, isObs)).toEqual([a('done'), u(`${OBSERVATION}{}`), a('ok'), u('q'), a('answer')]);
    // Starting at an observation moves on to the next step.
    expect(historyWindow(m, earlier.length, 2, isObs)).toEqual([a('ok'), u('q'), a('answer')]);
  });
});
