/**
 * The byte-level pieces under the adapter: the SSE decoder against arbitrary splits, and the replay
 * rules of the fake server's .http reader.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SseDecoder, type SseEvent } from '../../../src-main/core/llm/sse';
import { conformanceCase, loadHttpCase, rechunk } from '../../fakes/openai-server';

function decodeAll(parts: Uint8Array[]): SseEvent[] {
  const decoder = new SseDecoder();
  const events: SseEvent[] = [];
  for (const p of parts) events.push(...decoder.push(p));
  events.push(...decoder.end());
  return events;
}

describe('SseDecoder', () => {
  it('decodes the same events however the bytes are split (any line ends, comments, multi-line data, any code points)', () => {
    const line = fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !/[\r\n]/.test(s));
    const event = fc.record({ event: fc.constantFrom('', 'message', 'error'), lines: fc.array(line, { minLength: 1, maxLength: 3 }) });
    fc.assert(
      fc.property(
        fc.array(event, { maxLength: 6 }),
        fc.constantFrom('\n', '\r\n', '\r'),
        fc.boolean(),
        fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 1, maxLength: 40 }),
        (events, eol, comments, sizes) => {
          let text = '';
          for (const e of events) {
            if (comments) text += `: OPENROUTER PROCESSING${eol}${eol}`;
            if (e.event) text += `event: ${e.event}${eol}`;
            for (const l of e.lines) text += `data: ${l}${eol}`;
            text += eol;
          }
          const bytes = Buffer.from(text, 'utf8');
          const parts: Uint8Array[] = [];
          for (let i = 0, k = 0; i < bytes.length; k++) {
            const n = sizes[k % sizes.length] ?? 1;
            parts.push(bytes.subarray(i, i + n));
            i += n;
          }
          expect(decodeAll(parts)).toEqual(events.map((e) => ({ event: e.event, data: e.lines.join('\n') })));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('delivers an event left open at the end of the stream, and keeps one space only', () => {
    expect(decodeAll([Buffer.from('data:  two spaces\n\ndata:x\ndata: [DONE]')])).toEqual([
      { event: '', data: ' two spaces' },
      { event: '', data: 'x\n[DONE]' },
    ]);
    expect(decodeAll([Buffer.from('data: a\r'), Buffer.from('\ndata: b\r'), Buffer.from('\r')])).toEqual([{ event: '', data: 'a\nb' }]);
    expect(decodeAll([Buffer.from(': only a comment\n\n')])).toEqual([]);
  });
});

describe('loadHttpCase (INDEX.md replay rules)', () => {
  it('splits at the first blank line and drops the framing headers', () => {
    const c = loadHttpCase(conformanceCase(7));
    expect(c.status).toBe(401);
    expect(c.reason).toBe('Unauthorized');
    expect(c.headers.map(([n]) => n.toLowerCase())).not.toContain('content-length');
    expect(c.headers.filter(([n]) => n === 'Set-Cookie')).toHaveLength(2);
    expect(JSON.parse(c.body.toString('utf8'))).toMatchObject({ error: { code: 'invalid_api_key' } });
  });

  it('reads the CRLF head of case 30 and its HTTP/2.0 status line', () => {
    const c = loadHttpCase(conformanceCase(30));
    expect(c.status).toBe(200);
    expect(c.headers).toContainEqual(['X-Inference-Provider', 'hyperbolic']);
    expect(c.headers.some(([n, v]) => /\r/.test(n) || /\r/.test(v))).toBe(false);
    expect(JSON.parse(c.body.toString('utf8'))).toMatchObject({ model: 'deepseek-ai/DeepSeek-R1-0528' });
  });

  it('drops Content-Encoding of the decoded gzip body (case 26)', () => {
    const c = loadHttpCase(conformanceCase(26));
    expect(c.headers.map(([n]) => n.toLowerCase())).not.toContain('content-encoding');
    expect(c.body.toString('utf8').startsWith('data: {"choices"')).toBe(true);
  });

  it('wraps the JSON lines of case 29 as SSE with a final [DONE]', () => {
    const wrapped = loadHttpCase(conformanceCase(29)).body.toString('utf8');
    const events = decodeAll([Buffer.from(wrapped)]);
    expect(events).toHaveLength(7);
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(loadHttpCase(conformanceCase(29), false).body.toString('utf8').startsWith('{"choices"')).toBe(true);
  });

  it('re-chunks deterministically, covering every byte once', () => {
    const body = loadHttpCase(conformanceCase(15)).body;
    const a = rechunk(body, { seed: 42, maxBytes: 10 });
    expect(Buffer.concat(a).equals(body)).toBe(true);
    expect(rechunk(body, { seed: 42, maxBytes: 10 }).map((p) => p.length)).toEqual(a.map((p) => p.length));
    expect(Math.max(...a.map((p) => p.length))).toBeLessThanOrEqual(10);
  });
});
