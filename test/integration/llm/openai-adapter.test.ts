/**
 * The real adapter (src-main/core/llm/openai.ts) against the fake server: what it sends, how it
 * streams, retries, times out, is cancelled, and what its errors say.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { createOpenAIModel, type OpenAIModelOptions } from '../../../src-main/core/llm/openai';
import { ModelError, type ModelDelta, type ModelRequest, type ModelTurn } from '../../../src-main/core/llm/port';
import { fakeError, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server';

const KEY = 'sk-proj-TESTKEY-abcdefghijklmnop';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI({ models: ['fake-model', 'other-model'] });
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  fake.reset();
});

function model(options: Partial<OpenAIModelOptions> = {}): ReturnType<typeof createOpenAIModel> {
  return createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: KEY, maxRetryWaitMs: 2_000, timeoutMs: 5_000, ...options });
}

const ask = (extra: Partial<ModelRequest> = {}): ModelRequest => ({
  messages: [{ role: 'user', content: 'Clear my inbox.' }],
  stream: false,
  ...extra,
});

async function failure(promise: Promise<unknown>): Promise<ModelError> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof ModelError)) throw new Error(`expected a ModelError, got ${String(outcome)}`);
  expect(outcome.message).not.toMatch(/\n/);
  return outcome;
}

/** A raw SSE body from chunk objects. */
function sse(chunks: object[], done = true): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + (done ? 'data: [DONE]\n\n' : '');
}

const delta = (d: object, finish: string | null = null): object => ({
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

describe('scripted turns', () => {
  const text = 'Grüße 👋 — café ☕ done.';

  it('streams text in pieces that add up to the turn, re-chunked at random byte boundaries', async () => {
    const chunky = await startFakeOpenAI({ rechunk: { seed: 7, maxBytes: 3 } });
    try {
      chunky.enqueue({ text, usage: { promptTokens: 12, completionTokens: 7 } });
      const deltas: ModelDelta[] = [];
      const turn = await createOpenAIModel({ baseUrl: chunky.url, model: 'fake-model' }).complete(ask({ stream: true }), (d) => deltas.push(d));
      expect(turn).toEqual<ModelTurn>({
        text,
        refusal: null,
        reasoning: '',
        toolCalls: [],
        finishReason: 'stop',
        usage: { promptTokens: 12, completionTokens: 7, totalTokens: 19 },
      });
      expect(deltas.length).toBeGreaterThan(3);
      expect(deltas.map((d) => d.text).join('')).toBe(text);
    } finally {
      await chunky.close();
    }
  });

  it('returns tool calls, reasoning and usage, streamed and not', async () => {
    for (const stream of [true, false]) {
      fake.enqueue({
        reasoning: 'Inbox first.',
        toolCalls: [
          { id: 'call_a', name: 'get_inbox_tasks', arguments: {} },
          { name: 'create_project', arguments: '{"name":"Garden"}' },
        ],
        usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 },
      });
      const deltas: ModelDelta[] = [];
      const turn = await model().complete(ask({ stream }), (d) => deltas.push(d));
      expect(turn.toolCalls).toEqual([
        { id: 'call_a', name: 'get_inbox_tasks', arguments: '{}' },
        { id: `call_fake_${fake.chatRequests.length}_1`, name: 'create_project', arguments: '{"name":"Garden"}' },
      ]);
      expect(turn.finishReason).toBe('tool_calls');
      expect(turn.reasoning).toBe('Inbox first.');
      expect(turn.usage).toEqual({ promptTokens: 100, completionTokens: 20, totalTokens: 120 });
      expect(deltas.filter((d) => d.kind === 'reasoning').map((d) => d.text).join('')).toBe(stream ? 'Inbox first.' : '');
    }
  });

  it('sends the conversation, tools and settings the OpenAI way, with the key as bearer', async () => {
    fake.enqueue({ text: 'ok' });
    await model().complete({
      messages: [
        { role: 'system', content: 'You organise tasks.' },
        { role: 'user', content: 'Move task 4.' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'move_task', arguments: '{"task_id":"4","project_id":"2"}' }] },
        { role: 'tool', toolCallId: 'call_1', content: '{"ok":true}' },
      ],
      tools: [{ name: 'move_task', description: 'Moves a task.', parameters: { type: 'object', properties: { task_id: { type: 'string' } } } }],
      temperature: 0.2,
      maxTokens: 300,
      stream: true,
    });
    const [req] = fake.chatRequests;
    expect(req?.method).toBe('POST');
    expect(req?.path).toBe('/v1/chat/completions');
    expect(req?.bearer).toBe(KEY);
    expect(req?.body).toEqual({
      model: 'fake-model',
      messages: [
        { role: 'system', content: 'You organise tasks.' },
        { role: 'user', content: 'Move task 4.' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'move_task', arguments: '{"task_id":"4","project_id":"2"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"ok":true}' },
      ],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        {
          type: 'function',
          function: { name: 'move_task', description: 'Moves a task.', parameters: { type: 'object', properties: { task_id: { type: 'string' } } } },
        },
      ],
      temperature: 0.2,
      max_tokens: 300,
    });
  });

  it('sends no Authorization header at all without a key (local servers)', async () => {
    fake.enqueue({ text: 'ok' }, { text: 'ok' });
    await model({ apiKey: undefined }).complete(ask());
    await model({ apiKey: () => Promise.resolve(undefined) }).complete(ask());
    expect(fake.chatRequests.map((r) => r.authorization)).toEqual([undefined, undefined]);
  });

  it("sends the key in Azure's api-key header and api-version on the query when asked to", async () => {
    fake.enqueue({ text: 'ok' });
    await model({ auth: 'api-key', query: { 'api-version': '2024-10-21' } }).complete(ask());
    const [req] = fake.chatRequests;
    expect(req?.url).toBe('/v1/chat/completions?api-version=2024-10-21');
    expect(req?.headers['api-key']).toBe(KEY);
    expect(req?.authorization).toBeUndefined();
  });

  it('reads the key right before every request, retries included', async () => {
    let reads = 0;
    const m = model({ apiKey: () => Promise.resolve(`${KEY}-${++reads}`), maxRetryWaitMs: 10 });
    fake.enqueue(fakeError(503, 'busy', { type: 'server_error' }), { text: 'one' }, { text: 'two' });
    await m.complete(ask());
    await m.complete(ask());
    expect(reads).toBe(3);
    expect(fake.chatRequests.map((r) => r.bearer)).toEqual([`${KEY}-1`, `${KEY}-2`, `${KEY}-3`]);
  });
});

describe('quirks of real servers', () => {
  it('assembles parallel calls that come without index and with empty ids (Gemini)', async () => {
    fake.enqueue({
      status: 200,
      headers: { 'content-type': 'text/event-stream' },
      body: sse([
        delta({
          role: 'assistant',
          tool_calls: [
            { id: '', type: 'function', function: { name: 'get_inbox_tasks', arguments: '{}' } },
            { id: '', type: 'function', function: { name: 'get_all_projects', arguments: '{}' } },
          ],
        }),
        delta({ tool_calls: [{ id: '', type: 'function', function: { name: 'get_list_names', arguments: '{}' } }] }, 'stop'),
      ]),
    });
    const turn = await model().complete(ask({ stream: true }));
    expect(turn.toolCalls).toEqual([
      { id: 'call_0', name: 'get_inbox_tasks', arguments: '{}' },
      { id: 'call_1', name: 'get_all_projects', arguments: '{}' },
      { id: 'call_2', name: 'get_list_names', arguments: '{}' },
    ]);
    expect(turn.finishReason).toBe('tool_calls');
  });

  it('tells calls apart when a server reuses index 0 with new ids, and de-duplicates ids', async () => {
    fake.enqueue({
      status: 200,
      body: sse([
        delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'add_task', arguments: '{"content":"x"}' } }] }),
        delta({ tool_calls: [{ index: 0, id: 'b', function: { name: 'add_task', arguments: '{"content":"y"}' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'a', function: { name: 'complete_task', arguments: '{"task_id":"1"}' } }] }),
        delta({}, 'tool_calls'),
      ]),
    });
    const turn = await model().complete(ask({ stream: true }));
    expect(turn.toolCalls).toEqual([
      { id: 'a', name: 'add_task', arguments: '{"content":"x"}' },
      { id: 'b', name: 'add_task', arguments: '{"content":"y"}' },
      { id: 'a_2', name: 'complete_task', arguments: '{"task_id":"1"}' },
    ]);
  });

  it('accepts arguments sent as an object, and content as an array of parts', async () => {
    fake.enqueue({
      status: 200,
      body: {
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: [{ type: 'text', text: 'Done' }, { type: 'text', text: '.' }],
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'calculate', arguments: { expression: '2+2' } } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
    });
    const turn = await model().complete(ask());
    expect(turn.text).toBe('Done.');
    expect(turn.toolCalls).toEqual([{ id: 'c1', name: 'calculate', arguments: '{"expression":"2+2"}' }]);
    expect(turn.usage).toBeNull();
  });

  it('takes a JSON answer where it asked for a stream, and replays it as deltas', async () => {
    fake.enqueue({ status: 200, body: { choices: [{ index: 0, message: { role: 'assistant', content: 'Whole.' }, finish_reason: 'stop' }] } });
    const deltas: ModelDelta[] = [];
    const turn = await model().complete(ask({ stream: true }), (d) => deltas.push(d));
    expect(turn.text).toBe('Whole.');
    expect(deltas).toEqual([{ kind: 'text', text: 'Whole.' }]);
  });

  it('takes an SSE answer where it asked for JSON, without deltas', async () => {
    fake.enqueue({ status: 200, body: sse([delta({ content: 'Str' }), delta({ content: 'eamed' }, 'stop')]) });
    const deltas: ModelDelta[] = [];
    const turn = await model().complete(ask({ stream: false }), (d) => deltas.push(d));
    expect(turn.text).toBe('Streamed');
    expect(deltas).toEqual([]);
  });

  it('takes a stream with CRLF line ends, comments, keep-alive events and no final blank line', async () => {
    const body =
      ': keep-alive\r\n\r\nevent: ping\r\ndata: {}\r\n\r\n' +
      sse([delta({ content: 'A' }), delta({ content: 'B' }, 'stop')], false).replace(/\n/g, '\r\n') +
      'data: [DONE]';
    fake.enqueue({ status: 200, body });
    expect((await model().complete(ask({ stream: true }))).text).toBe('AB');
  });

  it('accepts a stream that ends without [DONE] after its finish chunk', async () => {
    fake.enqueue({ status: 200, body: sse([delta({ content: 'Fine' }, 'stop')], false) });
    expect((await model().complete(ask({ stream: true }))).text).toBe('Fine');
  });
});

describe('retries', () => {
  it('retries a 429 after the retry-after it was given, then succeeds', async () => {
    fake.enqueue(fakeError(429, 'Rate limit reached. Please try again in 1s.', { code: 'rate_limit_exceeded', headers: { 'retry-after': '1' } }), {
      text: 'after the wait',
    });
    const started = performance.now();
    const turn = await model().complete(ask());
    const waited = performance.now() - started;
    expect(turn.text).toBe('after the wait');
    expect(fake.chatRequests).toHaveLength(2);
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(2_500);
  });

  it('honours retry-after-ms too', async () => {
    fake.enqueue(fakeError(429, 'slow down', { headers: { 'retry-after-ms': '300' } }), { text: 'ok' });
    const started = performance.now();
    await model().complete(ask());
    expect(performance.now() - started).toBeGreaterThanOrEqual(280);
  });

  it('retries a 500 with backoff, then succeeds', async () => {
    fake.enqueue(fakeError(500, 'The server had an error processing your request.', { type: 'server_error' }), { text: 'second time lucky' });
    const started = performance.now();
    const turn = await model().complete(ask());
    expect(turn.text).toBe('second time lucky');
    expect(fake.chatRequests).toHaveLength(2);
    expect(performance.now() - started).toBeGreaterThanOrEqual(350); // 500 ms ± 25 %
  });

  it('gives up after maxRetries with the last error', async () => {
    fake.enqueue(fakeError(502, 'bad gateway'), fakeError(502, 'bad gateway'), fakeError(502, 'bad gateway'));
    const error = await failure(model({ maxRetries: 2, maxRetryWaitMs: 10 }).complete(ask()));
    expect(error.kind).toBe('server');
    expect(error.message).toBe('502 invalid_request_error: bad gateway (after 3 attempts)');
    expect(fake.chatRequests).toHaveLength(3);
  });

  it('does not retry a 401 or a 400', async () => {
    fake.enqueue(fakeError(401, 'Incorrect API key provided: sk-proj-***mnop.', { code: 'invalid_api_key' }));
    const auth = await failure(model().complete(ask()));
    expect(auth.kind).toBe('auth');
    expect(auth.message).toBe('401 invalid_api_key: Incorrect API key provided: sk-proj-***mnop.');
    fake.enqueue(fakeError(400, "Invalid value for 'messages'.", { param: 'messages' }));
    const bad = await failure(model().complete(ask()));
    expect(bad.kind).toBe('bad_request');
    expect(bad.details.param).toBe('messages');
    expect(fake.chatRequests).toHaveLength(2);
  });

  it('fails at once when retry-after is longer than it may wait', async () => {
    fake.enqueue(fakeError(429, 'Please retry after 30 seconds.', { headers: { 'retry-after': '30' } }));
    const started = performance.now();
    const error = await failure(model({ maxRetryWaitMs: 1_000 }).complete(ask()));
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error.kind).toBe('rate_limit');
    expect(error.details.retryAfterMs).toBe(30_000);
    expect(error.message).toContain('(asked to retry after 30 s; this client waits at most 1 s)');
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('does not retry a 429 that waiting cannot cure (no quota)', async () => {
    fake.enqueue(fakeError(429, 'You exceeded your current quota, please check your plan and billing details.', { code: 'insufficient_quota' }));
    const error = await failure(model().complete(ask()));
    expect(error.kind).toBe('rate_limit');
    expect(error.code).toBe('insufficient_quota');
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('falls back to max_completion_tokens and the default temperature when the model wants that, and remembers', async () => {
    fake.enqueue(
      fakeError(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", {
        param: 'max_tokens',
        code: 'unsupported_parameter',
      }),
      fakeError(400, "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", {
        param: 'temperature',
        code: 'unsupported_value',
      }),
      { text: 'ok' },
      { text: 'ok again' },
    );
    const m = model();
    await m.complete(ask({ temperature: 0.2, maxTokens: 100 }));
    await m.complete(ask({ temperature: 0.2, maxTokens: 100 }));
    const bodies = fake.chatRequests.map((r) => r.body);
    expect(bodies.map((b) => [b?.max_tokens, b?.max_completion_tokens, b?.temperature])).toEqual([
      [100, undefined, 0.2],
      [undefined, 100, 0.2],
      [undefined, 100, undefined],
      [undefined, 100, undefined],
    ]);
  });
});

describe('cancel and timeouts', () => {
  it('rejects promptly with kind aborted when cancelled mid-stream', async () => {
    fake.enqueue({ text: 'word '.repeat(200), chunkDelayMs: 10 });
    const controller = new AbortController();
    const deltas: ModelDelta[] = [];
    const pending = model().complete(ask({ stream: true, signal: controller.signal }), (d) => {
      deltas.push(d);
      if (deltas.length === 5) controller.abort();
    });
    const started = performance.now();
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(deltas.length).toBeGreaterThanOrEqual(5);
    expect(deltas.length).toBeLessThan(20);
    await expect.poll(() => fake.chatRequests[0]?.clientClosed).toBe(true);
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('rejects promptly when cancelled before the server answers, with the reason given', async () => {
    fake.enqueue({ fault: 'hang' });
    const controller = new AbortController();
    const pending = model().complete(ask({ signal: controller.signal }));
    await fake.waitForChatRequests(1);
    const started = performance.now();
    controller.abort(new Error('time limit of 120 s reached'));
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(error.message).toBe('the request was cancelled: time limit of 120 s reached');
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('does not wait for a retry past the AbortSignal', async () => {
    fake.enqueue(fakeError(429, 'slow down', { headers: { 'retry-after': '10' } }));
    const controller = new AbortController();
    const pending = model({ maxRetryWaitMs: 20_000 }).complete(ask({ signal: controller.signal }));
    await fake.waitForChatRequests(1);
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const error = await failure(pending);
    expect(error.kind).toBe('aborted');
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const error = await failure(model().complete(ask({ signal: AbortSignal.abort() })));
    expect(error.kind).toBe('aborted');
    expect(fake.chatRequests).toHaveLength(0);
  });

  it('times out a server that never answers, retrying once', async () => {
    fake.enqueue({ fault: 'hang' }, { fault: 'hang' });
    const started = performance.now();
    const error = await failure(model({ timeoutMs: 200, maxRetries: 1, maxRetryWaitMs: 50 }).complete(ask()));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`no answer from ${fake.url} within 200 ms (after 2 attempts)`);
    expect(fake.chatRequests).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('times out a stream that goes silent, and does not retry once deltas were shown', async () => {
    fake.enqueue({ fault: 'stall', turn: { text: 'Half an ans' }, afterEvents: 3 }, { text: 'never asked for' });
    const deltas: ModelDelta[] = [];
    const error = await failure(model({ timeoutMs: 300, maxRetries: 2 }).complete(ask({ stream: true }), (d) => deltas.push(d)));
    expect(error.kind).toBe('timeout');
    expect(error.message).toBe(`the answer from ${fake.url} stalled for more than 300 ms`);
    expect(deltas.length).toBeGreaterThan(0);
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('reports a stream cut off mid-answer as a lost connection, never as half a turn', async () => {
    fake.enqueue({ fault: 'truncate', turn: { text: 'This will be cut' }, afterEvents: 3 });
    const error = await failure(model().complete(ask({ stream: true }), () => undefined));
    expect(error.kind).toBe('network');
    expect(error.message).toMatch(new RegExp(`^the connection to ${fake.url} was lost mid-answer`));
  });

  it('reports a stream that ends cleanly but early as a protocol error', async () => {
    fake.enqueue({ fault: 'end-early', turn: { toolCalls: [{ name: 'add_task', arguments: '{"content":"milk and bread"}' }] }, afterEvents: 3 });
    const error = await failure(model().complete(ask({ stream: true })));
    expect(error.kind).toBe('protocol');
    expect(error.message).toBe(`the stream from ${fake.url} ended before the answer was complete (no finish_reason, no [DONE])`);
  });

  it('retries a connection dropped before any answer', async () => {
    fake.enqueue({ fault: 'reset' }, { text: 'back' });
    const turn = await model({ maxRetryWaitMs: 10 }).complete(ask());
    expect(turn.text).toBe('back');
    expect(fake.chatRequests).toHaveLength(2);
  });
});

describe('errors', () => {
  it('says plainly when nothing listens at the base URL, without retrying', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const started = performance.now();
    const error = await failure(createOpenAIModel({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'm' }).complete(ask()));
    expect(error.kind).toBe('network');
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).toBe(`cannot reach http://127.0.0.1:${port}/v1: connection refused — is the server running?`);
    expect(performance.now() - started).toBeLessThan(1_000);
  });

  it('never shows the key, even when the server echoes it', async () => {
    const echo = (status: number): object => ({
      status,
      body: { error: { message: `Incorrect API key provided: ${KEY}. Header was Bearer ${KEY}.`, code: 'invalid_api_key' } },
    });
    fake.enqueue(echo(401), echo(400), { status: 200, body: `<html><title>Login for ${KEY}</title></html>` }, {
      status: 200,
      body: sse([{ error: { message: `bad key ${KEY}`, code: 500 } }]),
    });
    for (let i = 0; i < 4; i++) {
      const error = await failure(model().complete(ask({ stream: i === 3 })));
      expect(error.message).not.toContain(KEY);
      expect(JSON.stringify(error.details)).not.toContain(KEY);
      expect(error.message).toContain('***');
    }
    let keyError: ModelError | undefined;
    try {
      await model({ apiKey: () => Promise.reject(new Error('keychain locked')) }).complete(ask());
    } catch (e) {
      keyError = e as ModelError;
    }
    expect(keyError?.kind).toBe('auth');
    expect(keyError?.message).toBe('could not read the API key: keychain locked');
  });

  it('notes when a 401 came back because no key was sent', async () => {
    fake.enqueue(fakeError(401, "You didn't provide an API key.", { code: null }));
    const error = await failure(model({ apiKey: undefined }).complete(ask()));
    expect(error.message).toBe("401 invalid_request_error: You didn't provide an API key. (no API key was sent)");
  });

  it('classifies what local servers say about tools and context', async () => {
    const tools = [{ name: 'calculate', description: 'Calculates.', parameters: { type: 'object' } }];
    fake.enqueue(
      { status: 400, body: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools', type: 'api_error' } } },
      { status: 400, body: { object: 'error', message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set', type: 'BadRequestError', param: null, code: 400 } },
      { status: 400, body: { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error' } } },
      { status: 404, body: { error: { message: "model 'llama9' not found", type: 'api_error' } } },
      { status: 422, body: { detail: [{ loc: ['body', 'messages'], msg: 'Field required', type: 'missing' }] } },
    );
    const kinds: Array<[string, string]> = [];
    for (let i = 0; i < 5; i++) {
      const e = await failure(model().complete(ask({ tools })));
      kinds.push([e.kind, e.message]);
    }
    expect(kinds).toEqual([
      ['tools_unsupported', '400 api_error: registry.ollama.ai/library/gemma:2b does not support tools'],
      ['tools_unsupported', '400 BadRequestError: "auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'],
      ['context_length', '400 exceed_context_size_error: the request exceeds the available context size, try increasing it'],
      ['bad_request', "404 api_error: model 'llama9' not found"],
      ['bad_request', '422 Unprocessable Entity: Field required'],
    ]);
  });

  it('names garbage, web pages and wrong base URLs as such', async () => {
    fake.enqueue(
      { status: 200, body: 'Hello, I am not an API' },
      { status: 200, headers: { 'content-type': 'text/html' }, body: '<!doctype html><html><head><title>Open WebUI</title></head><body></body></html>' },
      { status: 404, headers: { 'content-type': 'text/html' }, body: '<html><head><title>404 Not Found</title></head></html>' },
      { status: 200, body: 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\ndata: {oops\n\n' },
      { status: 200, body: '{"id":"x","object":"chat.completion","choices":[]}' },
      { status: 200, body: '' },
    );
    const messages: Array<[string, string]> = [];
    for (let i = 0; i < 6; i++) {
      const e = await failure(model({ maxRetries: 0 }).complete(ask({ stream: i === 3 })));
      messages.push([e.kind, e.message]);
    }
    expect(messages).toEqual([
      ['protocol', `${fake.url} did not answer like an OpenAI-compatible API: "Hello, I am not an API"`],
      ['protocol', `${fake.url} answered with a web page ("Open WebUI"), not the OpenAI API; is the base URL right (it usually ends in /v1)?`],
      ['bad_request', `404 Not Found: 404 Not Found — no chat completions endpoint at ${fake.url}/chat/completions; is the base URL right (it usually ends in /v1)?`],
      ['protocol', `the stream from ${fake.url} carried data that is not JSON: "{oops"`],
      ['protocol', `${fake.url} answered without any choices: "{"id":"x","object":"chat.completion","choices":[]}"`],
      ['protocol', `${fake.url} sent an empty answer`],
    ]);
  });

  it('lets an exception thrown by onDelta through untouched, without retrying', async () => {
    fake.enqueue({ text: 'abc' });
    const boom = new Error('renderer went away');
    await expect(
      model().complete(ask({ stream: true }), () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
    expect(fake.chatRequests).toHaveLength(1);
  });

  it('rejects an invalid base URL without a request', async () => {
    const error = await failure(createOpenAIModel({ baseUrl: 'localhost:11434', model: 'm' }).complete(ask()));
    expect(error.kind).toBe('bad_request');
    expect(error.message).toBe('invalid base URL: localhost:11434 (expected e.g. http://localhost:11434/v1)');
  });
});

describe('the fake server itself', () => {
  it('lists its models and records every request', async () => {
    const res = await fetch(`${fake.url}/models`, { headers: { authorization: 'Bearer abc' } });
    expect(await res.json()).toEqual({
      object: 'list',
      data: [
        { id: 'fake-model', object: 'model', created: 0, owned_by: 'fake' },
        { id: 'other-model', object: 'model', created: 0, owned_by: 'fake' },
      ],
    });
    expect(fake.requests.map((r) => [r.method, r.path, r.bearer])).toEqual([['GET', '/v1/models', 'abc']]);
    expect(fake.chatRequests).toHaveLength(0);
  });

  it('answers a clear 400 when a test forgot to script a reply', async () => {
    const error = await failure(model().complete(ask()));
    expect(error.message).toBe('400 fake_no_reply: fake OpenAI server: nothing scripted for chat request #1');
  });
});

describe('openai SDK on this Node (declares node >= 22)', () => {
  it('streams, retries with retry-after and aborts with its own helpers', async () => {
    expect(process.versions.node).toMatch(/^\d+\./);
    const client = new OpenAI({ baseURL: fake.url, apiKey: 'sk-x', maxRetries: 2 });
    fake.enqueue(fakeError(500, 'boom', { type: 'server_error' }), fakeError(429, 'slow', { headers: { 'retry-after-ms': '50' } }), { text: 'Grüße 👋' });
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Grüße 👋');
    expect(fake.chatRequests).toHaveLength(3);

    // Known SDK behaviour that the adapter works around: an abort mid-stream ends the iteration
    // quietly, as if the stream were complete.
    fake.enqueue({ text: 'x'.repeat(300), chunkDelayMs: 5 });
    const controller = new AbortController();
    const s2 = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }, { signal: controller.signal });
    let got = 0;
    let threw = false;
    try {
      for await (const chunk of s2) {
        got += chunk.choices[0]?.delta?.content?.length ?? 0;
        if (got >= 20) controller.abort();
      }
    } catch {
      threw = true;
    }
    expect(got).toBeLessThan(300);
    expect(threw).toBe(false);
  });
});
