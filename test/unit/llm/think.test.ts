import { describe, expect, it } from 'vitest';
import { TurnAssembler } from '../../../src-main/core/llm/assemble';
import type { ModelDelta } from '../../../src-main/core/llm/port';

/** Streams `content` split at the given sizes and returns the turn and the live pieces. */
function stream(content: string, sizes: number[]) {
  const deltas: ModelDelta[] = [];
  const a = new TurnAssembler(false, (d) => deltas.push(d));
  let at = 0;
  for (let i = 0; at < content.length; i++) {
    const size = sizes[i % sizes.length]!;
    a.addChunk({ choices: [{ index: 0, delta: { content: content.slice(at, at + size) } }] });
    at += size;
  }
  a.addChunk({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
  const turn = a.result();
  const joined = (kind: ModelDelta['kind']) => deltas.filter((d) => d.kind === kind).map((d) => d.text).join('');
  return { turn, text: joined('text'), reasoning: joined('reasoning') };
}

describe('a <think> block written into content', () => {
  const reply = '<think>The user wants 2+2.\nThat is 4.</think>\n\n{"thought": "easy", "action": {"type": "final_answer", "answer": "4"}}';

  it('goes to reasoning, whatever the chunk sizes, and the rest is the answer', () => {
    for (const sizes of [[1], [2, 3], [7], [8], [9, 1], [1000]]) {
      const r = stream(reply, sizes);
      expect(r.turn.reasoning).toBe('The user wants 2+2.\nThat is 4.');
      expect(r.turn.text).toBe('{"thought": "easy", "action": {"type": "final_answer", "answer": "4"}}');
      // The live pieces add up to the same split.
      expect(r.reasoning).toBe(r.turn.reasoning);
      expect(r.text).toBe(r.turn.text);
    }
  });

  it('leaves text alone that does not open with the tag', () => {
    const plain = 'I think <think> tags are odd.';
    for (const sizes of [[1], [3], [100]]) expect(stream(plain, sizes).turn).toMatchObject({ text: plain, reasoning: '' });
    expect(stream('<thi', [2]).turn).toMatchObject({ text: '<thi', reasoning: '' });
  });

  it('treats an unfinished block (cut off at max tokens) as reasoning only', () => {
    const r = stream('<think>Still weighing the options and', [4]);
    expect(r.turn).toMatchObject({ text: '', reasoning: 'Still weighing the options and' });
    expect(r.reasoning).toBe('Still weighing the options and');
  });
});
