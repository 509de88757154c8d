/**
 * The SSE decoder's cost and bounds: a long line in tiny pieces is decoded in time linear in its size
 * (it used to re-scan the whole pending line on every piece), and lines or events beyond the limits
 * are refused instead of held in memory. Its event semantics are covered in test/integration/llm/wire.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { SseDecoder, SseLimitError, type SseEvent } from '../../../src-main/core/llm/sse';

/** Feeds `bytes` in pieces of 1, 2 and 3 bytes in turn. */
function feedInPieces(decoder: SseDecoder, bytes: Uint8Array): SseEvent[] {
  const events: SseEvent[] = [];
  for (let i = 0, k = 0; i < bytes.length; k++) {
    const n = (k % 3) + 1;
    events.push(...decoder.push(bytes.subarray(i, i + n)));
    i += n;
  }
  return events;
}

describe('SseDecoder cost', () => {
  it('decodes a 1 MB line arriving in 1 to 3 byte pieces (linear: re-scanning the pending line would take hours)', () => {
    const payload = `{"x":"${'é'.repeat(512 * 1024)}"}`; // 1 MB of UTF-8, two-byte characters split across pieces
    const bytes = Buffer.from(`data: ${payload}\n\ndata: [DONE]\n\n`, 'utf8');
    const decoder = new SseDecoder();
    const events = [...feedInPieces(decoder, bytes), ...decoder.end()];
    expect(events).toHaveLength(2);
    expect(events[0]!.data).toBe(payload);
    expect(events[1]!.data).toBe('[DONE]');
  });

  it('many short lines in one piece, then a CR split from its LF', () => {
    const decoder = new SseDecoder();
    const text = Array.from({ length: 10_000 }, (_, i) => `data: ${i}\r\n\r\n`).join('');
    const events = decoder.push(Buffer.from(`${text}data: last\r`));
    expect(events).toHaveLength(10_000);
    expect(events[9_999]!.data).toBe('9999');
    expect(decoder.push(Buffer.from('\n\r\n'))).toEqual([{ event: '', data: 'last' }]);
  });

  it('drops a byte-order mark at the start of the stream only', () => {
    const decoder = new SseDecoder();
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const events = [
      ...decoder.push(bom.subarray(0, 1)),
      ...decoder.push(Buffer.concat([bom.subarray(1), Buffer.from('data: a\n\n')])),
      ...decoder.push(Buffer.concat([bom, Buffer.from('data: b\n\n')])),
    ];
    // The second BOM makes the field name "\uFEFFdata", which is no field the spec knows.
    expect(events).toEqual([{ event: '', data: 'a' }]);
  });
});

describe('SseDecoder limits', () => {
  it('refuses a line longer than maxLineBytes, however it is split, without holding more than that', () => {
    for (const split of [false, true]) {
      const decoder = new SseDecoder({ maxLineBytes: 1000 });
      const bytes = Buffer.from(`data: ${'x'.repeat(5000)}\n\n`);
      let error: unknown;
      try {
        if (split) feedInPieces(decoder, bytes);
        else decoder.push(bytes);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(SseLimitError);
      expect(error).toMatchObject({ what: 'line', limit: 1000 });
    }
  });

  it('accepts a line of exactly maxLineBytes, and an unfinished one at the end counts too', () => {
    const ok = new SseDecoder({ maxLineBytes: 10 });
    expect([...ok.push(Buffer.from('data: 1234\n\n'))]).toEqual([{ event: '', data: '1234' }]);
    const open = new SseDecoder({ maxLineBytes: 10 });
    expect(() => open.push(Buffer.from('data: 12345'))).toThrow(SseLimitError);
  });

  it('refuses an event whose data lines together pass maxEventChars', () => {
    const decoder = new SseDecoder({ maxLineBytes: 100, maxEventChars: 250 });
    const line = `data: ${'y'.repeat(90)}\n`;
    expect(decoder.push(Buffer.from(line + line))).toEqual([]);
    expect(() => decoder.push(Buffer.from(line))).toThrow(/SSE event is longer than 250 characters/);
    const fine = new SseDecoder({ maxLineBytes: 100, maxEventChars: 250 });
    expect(fine.push(Buffer.from(`${line}${line}\n${line}${line}\n`))).toHaveLength(2);
  });
});
