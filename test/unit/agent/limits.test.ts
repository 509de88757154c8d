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

  it('moves the start past a cut step, and pins the request', () => {
    const m = [u('old'), a('old answer'), u('q'), ...step('s', 2), ...step('t', 2)];
    // last 4 = [tool s1, assistant t, tool t0, tool t1] → starts at assistant t; the request is pinned in front
    expect(historyWindow(m, 2, 4, isObs)).toEqual([u('q'), ...step('t', 2)]);
    expect(historyWindow(m, 2, 7, isObs)).toEqual([u('q'), ...step('s', 2), ...step('t', 2)]);
  });

  it('sends a last step bigger than the window whole', () => {
    const m = [u('q'), ...step('s', 5)];
    expect(historyWindow(m, 0, 3, isObs)).toEqual(m);
  });

  it('does not start at a json observation', () => {
    const m = [u('q'), a('{"thought":"","action":{"type":"search"}}'), u(`${OBSERVATION}{}`), a('{"thought":"","action":{"type":"search"}}'), u(`${OBSERVATION}{}`)];
    expect(historyWindow(m, 0, 3, isObs)).toEqual([u('q'), ...m.slice(3)]);
  });
});
