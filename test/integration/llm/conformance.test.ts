/**
 * The 30 recorded provider responses of test/fixtures/conformance, replayed through the real adapter over
 * loopback HTTP: as recorded, and re-split into random byte chunks (mid-line, mid-UTF-8) with a few
 * seeds. The expected values were read from the case files, not from the adapter's output. The
 * recordings come from other open-source projects; sources and licences: test/fixtures/conformance/INDEX.md.
 */
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOpenAIModel } from '../../../src-main/core/llm/openai';
import { ModelError, type ModelDelta, type ModelErrorKind, type ModelTurn, type ToolCall } from '../../../src-main/core/llm/port';
import { CONFORMANCE_DIR, startFakeOpenAI, type FakeOpenAI, type FakeReply, type RechunkOptions } from '../../fakes/openai-server';

const KEY = 'sk-test-conformance-0123456789';
const TOOLS = [{ name: 'weather', description: 'The weather at a place.', parameters: { type: 'object', properties: {} } }];

interface TurnExpectation {
  text?: string;
  textStart?: string;
  textEnd?: string;
  refusal?: string | null;
  reasoning?: string;
  reasoningStart?: string;
  reasoningEnd?: string;
  toolCalls: ToolCall[];
  finishReason: ModelTurn['finishReason'];
  usage: ModelTurn['usage'];
}

interface ErrorExpectation {
  kind: ModelErrorKind;
  status?: number;
  code?: string;
  message?: string;
  messageStart?: string;
  messageIncludes?: string;
  retryAfterMs?: number;
  failedGeneration?: string;
}

interface Case {
  /** How the recorded request was made (SSE bodies were streamed requests). */
  stream: boolean;
  turn?: TurnExpectation;
  error?: ErrorExpectation;
  /** Requests the adapter makes (retries, fallbacks). Default 1. */
  requests?: number;
}

const usage = (promptTokens: number, completionTokens: number, totalTokens: number, cachedTokens?: number): ModelTurn['usage'] => ({
  promptTokens,
  completionTokens,
  totalTokens,
  ...(cachedTokens !== undefined ? { cachedTokens } : {}),
});
const BERLIN = '{"latitude":"52.5200","longitude":"13.4050"}';

const CASES: Record<number, Case> = {
  1: {
    stream: false,
    turn: {
      text: '',
      refusal: null,
      reasoning: '',
      toolCalls: [
        { id: 'call_GOotzq3y3C45fdLNjm8SXXRo', name: 'weather', arguments: '{"latitude": "52.5200", "longitude": "13.4050"}' },
        { id: 'call_6IvZGzhTPoSUAGUWnRx0po6X', name: 'best_language_to_learn', arguments: '{}' },
      ],
      finishReason: 'tool_calls',
      usage: usage(194, 255, 449, 0),
    },
  },
  2: {
    stream: true,
    turn: {
      text: '',
      refusal: null,
      toolCalls: [{ id: 'call_N2fJZh6fGguUrjbTlDD9mkbh', name: 'weather', arguments: BERLIN }],
      finishReason: 'tool_calls',
      usage: usage(169, 96, 265, 0),
    },
  },
  3: {
    stream: true,
    turn: {
      text: '',
      toolCalls: [
        { id: 'call_JMW1whyEaYG438VE1OIflxA2', name: 'GetWeatherArgs', arguments: '{"city": "Edinburgh", "country": "GB", "units": "c"}' },
        { id: 'call_DNYTawLBoN8fj3KN6qU9N1Ou', name: 'get_stock_price', arguments: '{"ticker": "AAPL", "exchange": "NASDAQ"}' },
      ],
      finishReason: 'tool_calls',
      usage: usage(149, 60, 209),
    },
  },
  4: { stream: true, turn: { text: '{"', refusal: null, toolCalls: [], finishReason: 'length', usage: usage(79, 1, 80) } },
  5: {
    stream: true,
    turn: { text: '', refusal: "I'm sorry, I can't assist with that request.", toolCalls: [], finishReason: 'stop', usage: usage(79, 11, 90) },
  },
  6: {
    stream: false,
    turn: {
      text: '',
      refusal: "I'm very sorry, but I can't assist with that request.",
      toolCalls: [],
      finishReason: 'stop',
      usage: usage(95, 13, 108, 0),
    },
  },
  7: {
    stream: false,
    error: {
      kind: 'auth',
      status: 401,
      code: 'invalid_api_key',
      message:
        '401 invalid_api_key: Incorrect API key provided: invalid-key. You can find your API key at https://platform.openai.com/account/api-keys.',
    },
  },
  // A prompt over the tokens-per-minute limit: waiting cannot help, trimming can. Never retried.
  8: {
    stream: false,
    error: {
      kind: 'context_length',
      status: 429,
      code: 'rate_limit_exceeded',
      messageStart: '429 rate_limit_exceeded: Request too large for gpt-5-nano in organization org-eLwBCUaB2ePnSi6dlToWtHZK on tokens per min (TPM): Limit 2000000, Requested 2500013.',
    },
  },
  9: {
    stream: false,
    requests: 2,
    error: {
      kind: 'server',
      status: 500,
      messageStart: '500 server_error: The server had an error processing your request. Sorry about that!',
      messageIncludes: '(after 2 attempts)',
    },
  },
  10: {
    stream: true,
    turn: {
      text: '',
      refusal: null,
      toolCalls: [{ id: 'call_sMtK8n27Us4SGPwHCMpYJhYu', name: 'weather', arguments: BERLIN }],
      finishReason: 'tool_calls',
      usage: usage(88, 24, 112, 0),
    },
  },
  // Retry-After: 60 is longer than the adapter may wait: fail at once, say so.
  11: {
    stream: false,
    error: {
      kind: 'rate_limit',
      status: 429,
      code: 'RateLimitReached',
      messageStart: '429 RateLimitReached: Your requests to gpt-4.1 for gpt-4.1 in East US have exceeded the token rate limit',
      messageIncludes: 'asked to retry after 60 s',
      retryAfterMs: 60_000,
    },
  },
  12: {
    stream: false,
    error: {
      kind: 'auth',
      status: 401,
      messageStart: '401 PermissionDenied: Access denied due to invalid subscription key or wrong API endpoint.',
    },
  },
  13: {
    stream: true,
    turn: {
      text: Array(10).fill('svirblocked').join(' '),
      refusal: null,
      toolCalls: [],
      finishReason: 'content_filter',
      usage: usage(30, 101, 131, 0),
    },
  },
  14: {
    stream: true,
    turn: {
      text: '',
      toolCalls: [{ id: 'call_28sm5ma0', name: 'return_list_of_int', arguments: '{"value":"[1, 2, 3, 4, 5]"}' }],
      finishReason: 'tool_calls',
      usage: null,
    },
  },
  15: {
    stream: true,
    turn: {
      text: '',
      reasoningStart: 'Okay, the user is asking for the weather in Berlin,',
      reasoningEnd: ' Alright, that should do it.\n',
      toolCalls: [{ id: 'call_blqyt530', name: 'weather', arguments: BERLIN }],
      finishReason: 'tool_calls',
      usage: usage(195, 140, 335),
    },
  },
  16: {
    stream: false,
    turn: {
      text: '',
      reasoningStart: 'Okay, let me tackle this user query.',
      reasoningEnd: 'Just return both tool calls in the specified XML format.\n',
      toolCalls: [
        { id: 'call_blwig54z', name: 'weather', arguments: BERLIN },
        { id: 'call_k7oscaqs', name: 'best_language_to_learn', arguments: '{}' },
      ],
      finishReason: 'tool_calls',
      usage: usage(235, 320, 555),
    },
  },
  17: {
    stream: false,
    turn: {
      text: '\n\n',
      reasoningStart: "Okay, the user wants me to run the 'date' command.",
      reasoningEnd: 'Alright, that should do it.',
      toolCalls: [{ id: 'AY2dW2Wbgun2c3PwztgafKYNKdnyj5Yi', name: 'system', arguments: '{"command":"date"}' }],
      finishReason: 'tool_calls',
      usage: usage(166, 92, 258),
    },
  },
  // Streaming + tools is refused: the adapter asks once more without streaming (the replay refuses
  // that too), then reports tools_unsupported, not a retryable 500.
  18: {
    stream: true,
    requests: 2,
    error: { kind: 'tools_unsupported', status: 500, messageStart: '500 server_error: Cannot use tools with stream' },
  },
  19: {
    stream: true,
    error: {
      kind: 'protocol',
      message: 'the stream failed: 500 server_error: The model produced output that does not match the expected peg-native format',
    },
  },
  20: {
    stream: true,
    turn: {
      text: '',
      reasoning: "The user wants me to open locker 7. I'll use the open_locker function with the number 7.\n",
      toolCalls: [{ id: 'chatcmpl-tool-92b83d16c7648d0e', name: 'open_locker', arguments: '{"number": 7}' }],
      finishReason: 'tool_calls',
      usage: usage(303, 53, 356),
    },
  },
  21: {
    stream: false,
    turn: {
      text: '',
      reasoning: 'We need to call weather function.',
      toolCalls: [{ id: '117069919', name: '', arguments: BERLIN }],
      finishReason: 'tool_calls',
      usage: usage(146, 42, 188),
    },
  },
  22: {
    stream: false,
    error: {
      kind: 'tool_call_invalid',
      status: 400,
      code: 'tool_use_failed',
      message:
        "400 tool_use_failed: Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name did not match schema: errors: [missing properties: 'name', additionalProperties 'foo' not allowed]",
      failedGeneration: '{"name": "get_something_by_name", "arguments": {\n  "foo": "bar"\n}}',
    },
  },
  23: {
    stream: true,
    turn: {
      text: '',
      toolCalls: [{ id: 'toolu_bdrk_01FnJwNhnbF7UbXLQGHJ5dda', name: 'weather', arguments: '{"latitude": "52.5200", "longitude": "13.4050"}' }],
      finishReason: 'tool_calls',
      usage: usage(633, 75, 708, 0),
    },
  },
  24: {
    stream: true,
    turn: { text: '', toolCalls: [{ id: '0', name: 'llm_version', arguments: '{}' }], finishReason: 'tool_calls', usage: usage(57, 17, 74, 0) },
  },
  25: {
    stream: false,
    turn: {
      text: '**Berlin (52.5200\u202fN, 13.4050\u202fE)**  \n- **Temperature:** ~15\u202f°C  \n- **Wind:** ~10\u202fkm/h  \n\nThe forecast is mild with clear skies. Enjoy your day!',
      refusal: null,
      reasoning: 'We need to respond with weather.',
      toolCalls: [],
      finishReason: 'stop',
      usage: usage(213, 67, 280),
    },
  },
  26: {
    stream: true,
    turn: {
      text: '',
      toolCalls: [{ id: 'call_0', name: 'return_list_of_str', arguments: '{"value":["apple","banana","orange"]}' }],
      finishReason: 'tool_calls',
      usage: usage(14, 11, 25),
    },
  },
  27: {
    stream: false,
    error: {
      kind: 'context_length',
      status: 400,
      messageStart: "400 invalid_request_error: This model's maximum context length is 1048565 tokens. However, you requested 1250025 tokens",
    },
  },
  28: {
    stream: true,
    turn: {
      text: 'Reading it.',
      toolCalls: [{ id: 'toolu_sanitized', name: 'read_file', arguments: '{"path": "a.txt"}' }],
      finishReason: 'tool_calls',
      usage: null,
    },
  },
  29: {
    stream: true,
    turn: {
      text: '',
      toolCalls: [{ id: 'call_eee11723464a4b9eb8cee71d', name: 'weather', arguments: '{"location": "San Francisco"}' }],
      finishReason: 'tool_calls',
      usage: usage(295, 22, 317, 0),
    },
  },
  30: {
    stream: false,
    turn: {
      // DeepSeek-R1 thinking in `content`, cut off by max_tokens: reasoning, not an answer.
      text: '',
      reasoningStart: 'Okay, the user is asking "What is 2+2?" Hmm, this seems like a very basic arithmetic question.',
      reasoningEnd: 'the user might be either',
      refusal: null,
      toolCalls: [],
      finishReason: 'length',
      usage: usage(13, 50, 63),
    },
  },
};

function checkTurn(turn: ModelTurn, want: TurnExpectation, deltas: ModelDelta[], streamed: boolean): void {
  if (want.text !== undefined) expect(turn.text).toBe(want.text);
  if (want.textStart !== undefined) expect(turn.text.startsWith(want.textStart)).toBe(true);
  if (want.textEnd !== undefined) expect(turn.text.endsWith(want.textEnd)).toBe(true);
  if (want.refusal !== undefined) expect(turn.refusal).toBe(want.refusal);
  if (want.reasoning !== undefined) expect(turn.reasoning).toBe(want.reasoning);
  if (want.reasoningStart !== undefined) expect(turn.reasoning.startsWith(want.reasoningStart)).toBe(true);
  if (want.reasoningEnd !== undefined) expect(turn.reasoning.endsWith(want.reasoningEnd)).toBe(true);
  expect(turn.toolCalls).toEqual(want.toolCalls);
  expect(turn.finishReason).toBe(want.finishReason);
  expect(turn.usage).toEqual(want.usage);
  // The live pieces add up to the final turn (nothing lost or doubled by re-chunking).
  const joined = (kind: ModelDelta['kind']): string => deltas.filter((d) => d.kind === kind).map((d) => d.text).join('');
  if (streamed) {
    expect(joined('text')).toBe(turn.text);
    expect(joined('reasoning')).toBe(turn.reasoning);
    expect(joined('refusal')).toBe(turn.refusal ?? '');
  } else {
    expect(deltas).toEqual([]);
  }
}

const VARIANTS: Array<{ name: string; rechunk: RechunkOptions | false }> = [
  { name: 'as recorded', rechunk: false },
  { name: 'rechunked, seed 1 (1..5 bytes)', rechunk: { seed: 1, maxBytes: 5 } },
  { name: 'rechunked, seed 2 (1..40 bytes)', rechunk: { seed: 2, maxBytes: 40 } },
  { name: 'rechunked, seed 3 (1..300 bytes)', rechunk: { seed: 3, maxBytes: 300 } },
];

describe('conformance corpus', () => {
  it('is where the tests expect it', () => {
    const where = `not found: ${CONFORMANCE_DIR} (vendored in test/fixtures/conformance/cases; TIDY_CONFORMANCE_DIR overrides)`;
    expect(existsSync(CONFORMANCE_DIR), where).toBe(true);
    expect(Object.keys(CASES)).toHaveLength(30);
  });
});

describe.each(VARIANTS)('conformance replay, $name', ({ rechunk }) => {
  let fake: FakeOpenAI;
  let current: FakeReply | undefined;

  beforeAll(async () => {
    fake = await startFakeOpenAI({ handler: () => current });
  });
  afterAll(async () => {
    await fake.close();
  });

  it.each(Object.entries(CASES).map(([n, c]) => ({ n: Number(n), c })))('case $n', { timeout: 10_000 }, async ({ n, c }) => {
    fake.reset();
    current = { replay: n, rechunk };
    let keyReads = 0;
    const model = createOpenAIModel({
      baseUrl: fake.url,
      model: 'gpt-test',
      apiKey: () => {
        keyReads++;
        return Promise.resolve(KEY);
      },
      maxRetries: 1,
      maxRetryWaitMs: 30,
      timeoutMs: 5_000,
    });
    const deltas: ModelDelta[] = [];
    const outcome = await model
      .complete(
        { messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather in Berlin?' }], tools: TOOLS, stream: c.stream },
        (d) => deltas.push(d),
      )
      .then(
        (turn) => ({ turn }),
        (error: unknown) => ({ error }),
      );

    if (c.turn) {
      if (!('turn' in outcome)) throw outcome.error;
      checkTurn(outcome.turn, c.turn, deltas, c.stream);
    } else if (c.error) {
      if (!('error' in outcome)) throw new Error(`case ${n}: expected a ${c.error.kind} error, got a turn`);
      const error = outcome.error;
      expect(error).toBeInstanceOf(ModelError);
      if (!(error instanceof ModelError)) return;
      expect(error.kind).toBe(c.error.kind);
      expect(error.message).not.toMatch(/\n/);
      expect(error.message).not.toMatch(/\bat .*\.(ts|js):\d+/);
      expect(error.message).not.toContain(KEY);
      if (c.error.status !== undefined) expect(error.status).toBe(c.error.status);
      if (c.error.code !== undefined) expect(error.code).toBe(c.error.code);
      if (c.error.message !== undefined) expect(error.message).toBe(c.error.message);
      if (c.error.messageStart !== undefined) expect(error.message.startsWith(c.error.messageStart)).toBe(true);
      if (c.error.messageIncludes !== undefined) expect(error.message).toContain(c.error.messageIncludes);
      if (c.error.retryAfterMs !== undefined) expect(error.details.retryAfterMs).toBe(c.error.retryAfterMs);
      if (c.error.failedGeneration !== undefined) expect(error.details.failedGeneration).toBe(c.error.failedGeneration);
    }

    // What was sent: the key read once per request, the tools, and the streaming options.
    const sent = fake.chatRequests;
    expect(sent).toHaveLength(c.requests ?? 1);
    expect(keyReads).toBe(sent.length);
    const first = sent[0]?.body;
    expect(sent[0]?.bearer).toBe(KEY);
    expect(first?.model).toBe('gpt-test');
    expect(first?.stream).toBe(c.stream);
    expect(first?.stream_options).toEqual(c.stream ? { include_usage: true } : undefined);
    expect(first?.tools?.map((t) => t.function.name)).toEqual(['weather']);
    if (n === 18) expect(sent[1]?.body?.stream).toBe(false);
  });
});
