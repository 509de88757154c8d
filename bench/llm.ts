// Model client benchmark: (1) the SSE decoder on one long line arriving in 1–3 byte pieces, at two sizes
// (linear: 10× the bytes takes about 10× the time), and on a normal stream; (2) a 300 MB non-streamed
// answer: how much of it is read before the adapter refuses it; (3) redacting the key from 1 MB of text.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createOpenAIModel } from '../src-main/core/llm/openai';
import { SseDecoder } from '../src-main/core/llm/sse';
import { redactSecrets } from '../src-main/core/secrets/redact';
import { median, report } from './util';

const MB = 1024 * 1024;

function decodeInPieces(bytes: Uint8Array): number {
  const decoder = new SseDecoder({ maxLineBytes: 16 * MB, maxEventChars: 16 * MB });
  let events = 0;
  for (let i = 0, k = 0; i < bytes.length; k++) {
    const n = (k % 3) + 1;
    events += decoder.push(bytes.subarray(i, i + n)).length;
    i += n;
  }
  return events + decoder.end().length;
}

async function sse(): Promise<void> {
  const line = (mb: number): Uint8Array => Buffer.from(`data: {"x":"${'x'.repeat(mb * MB)}"}\n\n`);
  const one = line(1);
  const ten = line(10);
  const t1 = await median(5, () => decodeInPieces(one));
  const t10 = await median(3, () => decodeInPieces(ten));
  report('SSE: one 1 MB line in 1–3 byte pieces', t1, 'ms');
  report('SSE: one 10 MB line in 1–3 byte pieces', t10, 'ms', { max: 10_000, label: '10 s' });
  report('SSE: 10 MB time / 1 MB time (linear ≈ 10)', t10 / t1, '×', { max: 20, label: '20× (quadratic was ~100×)' });
  const chunk = `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: 'word ' }, finish_reason: null }] })}\n\n`;
  const stream = Buffer.from(chunk.repeat(20_000));
  const pieces: Uint8Array[] = [];
  for (let i = 0; i < stream.length; i += 1400) pieces.push(stream.subarray(i, i + 1400));
  const ts = await median(5, () => {
    const decoder = new SseDecoder();
    for (const p of pieces) decoder.push(p);
    decoder.end();
  });
  report('SSE: 20,000 typical chunks in 1,400-byte packets, per event', (ts / 20_000) * 1000, ' µs');
}

async function oversized(): Promise<void> {
  const total = 300 * MB;
  let written = 0;
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const piece = Buffer.alloc(64 * 1024, 0x78);
    res.write('{"choices":[{"index":0,"message":{"role":"assistant","content":"');
    const more = (): void => {
      while (written < total && !res.destroyed) {
        written += piece.length;
        if (!res.write(piece)) {
          res.once('drain', more);
          return;
        }
      }
      if (!res.destroyed) res.end('"},"finish_reason":"stop"}]}');
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const model = createOpenAIModel({ baseUrl: url, model: 'm', maxRetries: 0 });
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const outcome = await model.complete({ messages: [{ role: 'user', content: 'hi' }], stream: false }).then(
    () => 'answered',
    (e: unknown) => (e instanceof Error ? e.message.slice(0, 60) : String(e)),
  );
  const elapsed = performance.now() - t0;
  const rss = (process.memoryUsage().rss - rss0) / MB;
  server.closeAllConnections();
  server.close();
  console.log(`  300 MB non-streamed answer → ${outcome}…`);
  report('  refused after', elapsed, 'ms');
  report('  MB the server got to write before the adapter stopped', written / MB, ' MB', { max: 40, label: '40 MB (cap 8 MB + socket buffers)' });
  report('  resident memory added', rss, ' MB', { max: 100, label: '100 MB' });
}

async function redaction(): Promise<void> {
  const key = `sk-proj-${'Zq81mKd7Lw2Xp9Rt4Vb6Nc3Hy5Jf0Gs'.repeat(5)}`;
  const text = `${'lorem ipsum '.repeat(87_000)}${key.slice(20, 60)}`;
  const t = await median(5, () => redactSecrets(text, [key]));
  report('redacting 8-character runs of a 168-character key from 1 MB', t, 'ms', { max: 500, label: '500 ms' });
}

export async function benchLlm(): Promise<void> {
  console.log('model client');
  await sse();
  await oversized();
  await redaction();
}
