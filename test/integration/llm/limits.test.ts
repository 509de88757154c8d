/**
 * Hostile servers against the real adapter: answers too large to hold, an error body without end, a
 * redirect that would carry the key elsewhere, and error messages that echo pieces of the key.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { createOpenAIModel, type OpenAIModelOptions } from '../../../src-main/core/llm/openai';
import { ModelError, type ModelRequest } from '../../../src-main/core/llm/port';
import { fakeError, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server';

const KEY = 'sk-proj-Zq81mKd7Lw2Xp9Rt4Vb6Nc3Hy5Jf0Gs';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

const model = (options: Partial<OpenAIModelOptions> = {}) =>
  createOpenAIModel({ baseUrl: fake.url, model: 'm', apiKey: KEY, maxRetries: 0, timeoutMs: 5_000, ...options });
const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({ messages: [{ role: 'user', content: 'hi' }], stream: false, ...extra });

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ModelError)) throw new Error(`expected a ModelError, got ${String(outcome)}`);
  expect(outcome.message).not.toMatch(/\n/);
  return outcome;
}

/** A server of our own on 127.0.0.1 for what the fake cannot do; closed when the test ends. */
async function server(handle: Parameters<typeof createServer>[1]): Promise<{ url: string; hits: () => number }> {
  let hits = 0;
  const s: Server = createServer((req, res) => {
    hits++;
    handle!(req, res);
  });
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        s.closeAllConnections();
        s.close(() => resolve());
      }),
  );
  return { url: `http://127.0.0.1:${(s.address() as AddressInfo).port}/v1`, hits: () => hits };
}

describe('answers larger than the adapter reads', () => {
  it('a non-streamed body over 8 MB (the default) is a protocol error, not read whole', async () => {
    const content = 'x'.repeat(9 * 1024 * 1024);
    fake.enqueue({ status: 200, body: { object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } });
    const error = await failure(model().complete(ask()));
    expect(error.kind).toBe('protocol');
    expect(error.code).toBe('response_too_large');
    expect(error.message).toMatch(/^the answer from http:\/\/127\.0\.0\.1:\d+\/v1 is larger than 8 MB, more than Tidy reads from a model; check that the base URL is an OpenAI-compatible API, or lower maxTokens$/);
  });

  it('so is one stream event over the limit, and a stream whose text adds up to more', async () => {
    const small = model({ maxResponseBytes: 64 * 1024 });
    const chunk = (content: string) => `data: ${JSON.stringify({ object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    fake.enqueue({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: chunk('y'.repeat(70 * 1024)) });
    const big = await failure(small.complete(ask({ stream: true })));
    expect([big.kind, big.code]).toEqual(['protocol', 'response_too_large']);
    expect(big.message).toContain('one stream line from');
    fake.enqueue({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: chunk('z'.repeat(1024)).repeat(80) });
    const many = await failure(small.complete(ask({ stream: true })));
    expect([many.kind, many.code]).toEqual(['protocol', 'response_too_large']);
    expect(many.message).toContain('the answer from');
    // Under the limit, both shapes still work.
    fake.enqueue({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `${chunk('z'.repeat(1024)).repeat(10)}data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n` });
    expect((await small.complete(ask({ stream: true }))).text).toHaveLength(10 * 1024);
  });

  it('a body of nothing but blank space is refused once past the limit', async () => {
    fake.enqueue({ status: 200, body: ' '.repeat(200 * 1024) });
    const error = await failure(model({ maxResponseBytes: 64 * 1024 }).complete(ask()));
    expect([error.kind, error.code]).toEqual(['protocol', 'response_too_large']);
  });

  it('an error body without end is read up to 1 MB and classified, not waited for', async () => {
    const endless = await server((_req, res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      const piece = Buffer.alloc(64 * 1024, 0x20);
      const more = (): void => {
        while (res.write(piece)) {
          if (res.destroyed) return;
        }
        res.once('drain', more);
      };
      res.write('{"error":{"message":"overloaded","type":"server_error"}}');
      more();
    });
    const started = performance.now();
    const error = await failure(createOpenAIModel({ baseUrl: endless.url, model: 'm', maxRetries: 0, timeoutMs: 3_000 }).complete(ask()));
    expect(error.kind).toBe('server');
    expect(error.status).toBe(500);
    expect(performance.now() - started).toBeLessThan(2_500);
  });
});

describe('redirects', () => {
  it.each(['bearer', 'api-key'] as const)('are not followed with the key (%s): the error names the address to use instead', async (auth) => {
    const elsewhere = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices":[{"index":0,"message":{"role":"assistant","content":"got your key"},"finish_reason":"stop"}]}');
    });
    fake.enqueue({ status: 307, headers: { location: `${elsewhere.url}/chat/completions?token=abc` }, body: '' });
    const error = await failure(model({ auth }).complete(ask()));
    expect(elsewhere.hits()).toBe(0);
    expect([error.kind, error.status, error.code]).toEqual(['bad_request', 307, 'redirect']);
    expect(error.message).toBe(
      `${fake.url} redirects (307) to ${elsewhere.url}/chat/completions; Tidy does not follow redirects with the API key: use the address it redirects to as the base URL`,
    );
  });
});

describe('the key in error messages', () => {
  it('is hidden whole and in any piece of 8 characters or more, wherever the server quotes it', async () => {
    const piece = KEY.slice(12, 30);
    fake.enqueue(fakeError(401, `Incorrect API key provided: ${KEY.slice(0, 8)}…${KEY.slice(-4)}; we also saw "${piece}" and ${KEY}.`, { code: 'invalid_api_key' }));
    const auth = await failure(model().complete(ask()));
    expect(auth.message).toBe(`401 invalid_api_key: Incorrect API key provided: sk-proj-…${KEY.slice(-4)}; we also saw "***" and ***.`);
    fake.enqueue({
      status: 400,
      body: {
        error: {
          message: `tool call validation failed: the model wrote ${KEY.slice(9, 25)}`,
          type: 'invalid_request_error',
          code: 'tool_use_failed',
          failed_generation: `{"name":"x","arguments":"${KEY.slice(20)}"}`,
        },
      },
    });
    const tool = await failure(model().complete(ask({ tools: [{ name: 'x', description: 'x', parameters: { type: 'object' } }] })));
    expect(tool.kind).toBe('tool_call_invalid');
    expect(tool.message).not.toContain(KEY.slice(9, 17));
    expect(tool.details.failedGeneration).toBe('{"name":"x","arguments":"***"}');
  });
});
