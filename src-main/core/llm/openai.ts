/**
 * The real model adapter: any OpenAI-compatible chat-completions endpoint, through the `openai` SDK.
 *
 * What the SDK does: building the request (base URL, headers, body) and the HTTP exchange, and turning
 * a non-2xx answer into an APIError. What this adapter does itself, and why:
 * - Retries (SDK `maxRetries: 0`). The SDK would wait whatever retry-after says up to 60 s (Azure says
 *   60, case 11), cannot be capped, retries a 429 that can never succeed (OpenAI "Request too large",
 *   case 08) and a llama.cpp 500 that means "no tools with stream" (case 18). Here: 429, 5xx, 408/409,
 *   timeouts and lost connections are retried up to `maxRetries` times with exponential backoff (0.5 s,
 *   1 s, 2 s … ±25 %), or after the server's retry-after(-ms); a retry-after longer than
 *   `maxRetryWaitMs` fails at once instead of waiting (the error says how long the server asked for), no
 *   wait ever outlives the AbortSignal, and an attempt that already streamed deltas to the caller is
 *   never retried, so a live trace never shows the same words twice (a stream that breaks is an error,
 *   never half a turn).
 * - Reading the body (`asResponse()`): the SDK's stream helper swallows an abort as a normal end of
 *   stream and cannot tell a finished stream from a truncated one. Here: our own SSE decoder and an
 *   accumulator that knows the quirks of real servers (see assemble.ts); a JSON body where SSE was
 *   expected (or the reverse) is accepted; garbage, HTML or a stream that ends without finish_reason
 *   and without [DONE] is a `protocol` error.
 * - Timeouts: `timeoutMs` is the longest silence tolerated: until the response headers, then between
 *   two pieces of the body. A long answer that keeps streaming never times out; the run's own time
 *   limit belongs to the caller's AbortSignal.
 * - Errors: one line in the provider's words, "<status> <code|type|reason>: <message>", with the key
 *   we sent replaced by *** wherever the server echoed it (see errors.ts for kinds).
 * - The API key is read by `apiKey()` right before every attempt (it lives in the OS keychain), and
 *   sent as `Authorization: Bearer` (or Azure's `api-key` header with `auth: 'api-key'`). With no key
 *   (local servers) no Authorization header is sent at all: a dummy bearer would only confuse proxies,
 *   and api.openai.com then says plainly that no key was provided.
 * - Remembered per model, after one failed request each: a server that rejects `max_tokens` (OpenAI
 *   reasoning models want `max_completion_tokens`), a custom `temperature` (they only allow the
 *   default), `stream_options`, or streaming together with tools (old llama.cpp, case 18: then the turn
 *   is fetched without streaming and replayed to `onDelta` in one piece).
 */
import type OpenAI from 'openai';
import type * as OpenAISdk from 'openai';

// The SDK is loaded on the first request, not at start-up: most `tidy` commands and the app's first
// paint never talk to a model, and the SDK is the largest module Tidy has.
type Sdk = typeof OpenAISdk;
let sdk: Sdk | undefined;
const loadSdk = async (): Promise<Sdk> => (sdk ??= await import('openai'));
import type {
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { TurnAssembler } from './assemble';
import {
  classifyHttpError,
  classifyInBandError,
  classifyNetworkError,
  displayUrl,
  isStreamWithToolsUnsupported,
  isTransient,
  oneLine,
  redactError,
} from './errors';
import { ModelError, type ChatMessage, type Model, type ModelDelta, type ModelRequest, type ModelTurn } from './port';
import { SseDecoder, type SseEvent } from './sse';

export interface OpenAIModelOptions {
  /** e.g. https://api.openai.com/v1, http://localhost:11434/v1 (Ollama), http://localhost:1234/v1 (LM Studio). */
  baseUrl: string;
  /** The key, or a function that reads it (called before every attempt). Undefined/empty: no key sent. */
  apiKey?: string | (() => Promise<string | undefined>);
  model: string;
  /** Longest silence tolerated, in ms: until the headers, then between body pieces. Default 60 000. */
  timeoutMs?: number;
  /** Retries of transient failures (429, 5xx, timeouts, lost connections). Default 2. */
  maxRetries?: number;
  /** Longest single wait before a retry, in ms; a longer retry-after fails at once. Default 20 000. */
  maxRetryWaitMs?: number;
  /** A fetch implementation (tests, proxies). Default: the global fetch. */
  fetch?: typeof fetch;
  /** How the key is sent: `Authorization: Bearer` (default) or Azure's `api-key` header. */
  auth?: 'bearer' | 'api-key';
  /** Query parameters for every request (Azure's api-version on deployment URLs). */
  query?: Readonly<Record<string, string>>;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_RETRY_WAIT_MS = 20_000;
/** Bytes of the body kept to quote in a protocol error. */
const SNIPPET_BYTES = 2048;

/** Raw error bodies by the Headers object the SDK puts on its APIError (see `capturingFetch`). */
interface RawError {
  text: string;
  statusText: string;
}

/** An exception thrown by the caller's onDelta: not ours to classify. */
class CallerError {
  constructor(readonly error: unknown) {}
}

function abortedError(signal: AbortSignal): ModelError {
  const reason: unknown = signal.reason;
  const detail =
    reason instanceof Error && reason.name !== 'AbortError' && reason.message ? `: ${oneLine(reason.message, 200)}` : '';
  return new ModelError(`the request was cancelled${detail}`, 'aborted');
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      if (signal) reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Rejects as soon as `signal` aborts, whatever `promise` does. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new Error('aborted'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function toWire(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
      return { role: 'system', content: message.content };
    case 'user':
      return { role: 'user', content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? {
              tool_calls: message.toolCalls.map((tc) => ({
                id: tc.id,
                type: 'function' as const,
                function: { name: tc.name, arguments: tc.arguments },
              })),
            }
          : {}),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function looksLikeChunk(value: unknown): boolean {
  if (!isRecord(value)) return false;
  if (value.object === 'chat.completion.chunk') return true;
  return Array.isArray(value.choices) && value.choices.some((c) => isRecord(c) && isRecord(c.delta));
}

export function createOpenAIModel(options: OpenAIModelOptions): Model {
  const baseUrl = options.baseUrl;
  const where = displayUrl(baseUrl);
  const timeoutMs = Math.max(1, Math.floor(options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  const maxRetries = Math.max(0, Math.floor(options.maxRetries ?? DEFAULT_MAX_RETRIES));
  const maxRetryWaitMs = Math.max(0, options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS);
  const baseFetch = options.fetch ?? globalThis.fetch;

  const rawErrors = new WeakMap<Headers, RawError>();
  // The SDK keeps only `error` of a JSON error body and drops everything else (vLLM's top-level
  // `message`, FastAPI's `detail`, an HTML page). Keep the raw text, keyed by the Headers object the
  // SDK hands to its APIError.
  const capturingFetch: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, init);
    if (response.ok) return response;
    const text = await response.text().catch(() => '');
    const nullBody = response.status === 204 || response.status === 205 || response.status === 304;
    const copy = new Response(nullBody ? null : text, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
    rawErrors.set(copy.headers, { text, statusText: response.statusText });
    return copy;
  };

  let client: OpenAI | undefined;
  const getClient = async (): Promise<OpenAI> => {
    const { default: OpenAIClient } = await loadSdk();
    client ??= new OpenAIClient({
      baseURL: baseUrl,
      // Never sent: every request sets (or removes) Authorization itself, from the key read just before.
      apiKey: 'unused-placeholder',
      // Explicit nulls so environment variables (OPENAI_ORG_ID, OPENAI_ADMIN_KEY, ...) add nothing.
      organization: null,
      project: null,
      adminAPIKey: null,
      webhookSecret: null,
      maxRetries: 0,
      // Our own timer (timeoutMs) fires first; this one only backs it up.
      timeout: timeoutMs + 5_000,
      fetch: capturingFetch,
      ...(options.query && Object.keys(options.query).length ? { defaultQuery: { ...options.query } } : {}),
    });
    return client;
  };

  // What this server turned out not to accept (see the header comment).
  const quirks = {
    maxTokensParam: 'max_tokens' as 'max_tokens' | 'max_completion_tokens',
    temperature: true,
    streamOptions: true,
    streamWithTools: true,
  };

  const resolveKey = async (): Promise<string | undefined> => {
    const source = options.apiKey;
    if (typeof source !== 'function') return source || undefined;
    try {
      return (await source()) || undefined;
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      throw new ModelError(`could not read the API key: ${oneLine(detail, 200)}`, 'auth', undefined, 'api_key_unavailable');
    }
  };

  const buildBody = (request: ModelRequest, stream: boolean): ChatCompletionCreateParams => {
    const tools: ChatCompletionTool[] | undefined = request.tools?.length
      ? request.tools.map((t) => ({
          type: 'function',
          function: { name: t.name, description: t.description, parameters: t.parameters },
        }))
      : undefined;
    const body: ChatCompletionCreateParams = {
      model: options.model,
      messages: request.messages.map(toWire),
      stream,
    };
    if (stream && quirks.streamOptions) body.stream_options = { include_usage: true };
    if (tools) body.tools = tools;
    if (request.temperature !== undefined && quirks.temperature) body.temperature = request.temperature;
    if (request.maxTokens !== undefined) body[quirks.maxTokensParam] = request.maxTokens;
    return body;
  };

  /** One way the request could be changed so this server accepts it, or undefined. */
  const adaptation = (error: ModelError, request: ModelRequest, stream: boolean): (() => void) | undefined => {
    const msg = error.message;
    const param = error.details.param;
    if (isStreamWithToolsUnsupported(error) && stream) return () => (quirks.streamWithTools = false);
    if (error.kind !== 'bad_request') return undefined;
    if (
      request.maxTokens !== undefined &&
      quirks.maxTokensParam === 'max_tokens' &&
      (param === 'max_tokens' || (/\bmax_tokens\b/.test(msg) && /max_completion_tokens/.test(msg)))
    ) {
      return () => (quirks.maxTokensParam = 'max_completion_tokens');
    }
    if (
      request.temperature !== undefined &&
      quirks.temperature &&
      (param === 'temperature' || (/temperature/i.test(msg) && /unsupported|not support|only the default/i.test(msg)))
    ) {
      return () => (quirks.temperature = false);
    }
    if (stream && quirks.streamOptions && (param === 'stream_options' || /stream_options/.test(msg))) {
      return () => (quirks.streamOptions = false);
    }
    return undefined;
  };

  /** Classifies whatever one attempt threw. */
  const classify = (error: unknown, hadTools: boolean, midBody: boolean, url: string): ModelError => {
    if (error instanceof ModelError) return error;
    if (sdk && error instanceof sdk.APIConnectionTimeoutError) {
      return new ModelError(`no answer from ${where} within ${duration(timeoutMs)}`, 'timeout');
    }
    if (sdk && error instanceof sdk.APIError && typeof error.status === 'number') {
      const raw = error.headers ? rawErrors.get(error.headers) : undefined;
      return classifyHttpError({
        status: error.status,
        statusText: raw?.statusText ?? '',
        body: raw?.text ?? JSON.stringify({ error: error.error ?? { message: error.message } }),
        headers: error.headers,
        hadTools,
        url,
      });
    }
    if (sdk && error instanceof sdk.APIConnectionError && !(error instanceof sdk.APIUserAbortError)) {
      return classifyNetworkError(error.cause ?? error, baseUrl, false);
    }
    return classifyNetworkError(error, baseUrl, midBody);
  };

  /** Reads the whole answer into `assembler`. Throws ModelError (or CallerError). */
  const readAnswer = async (
    response: Response,
    assembler: TurnAssembler,
    emitWhole: boolean,
    hadTools: boolean,
    signal: AbortSignal,
    onData: () => void,
  ): Promise<void> => {
    const reader = response.body?.getReader();
    if (!reader) throw new ModelError(`${where} sent an empty answer`, 'protocol');
    const sse = new SseDecoder();
    let mode: 'sniff' | 'sse' | 'json' | 'html' = 'sniff';
    let pending: Uint8Array[] = [];
    const jsonParts: Uint8Array[] = [];
    const snippetParts: Uint8Array[] = [];
    let snippetBytes = 0;
    let sawDone = false;
    let events = 0;
    const decode = (parts: Uint8Array[]): string => new TextDecoder().decode(Buffer.concat(parts));
    const snippet = (): string => oneLine(decode(snippetParts).slice(0, 200), 200);

    const onEvent = (event: SseEvent): void => {
      if (sawDone) return;
      const data = event.data.trim();
      if (data === '[DONE]') {
        sawDone = true;
        return;
      }
      if (event.event === 'error') {
        let body: unknown;
        try {
          body = JSON.parse(data);
        } catch {
          body = { error: { message: data } };
        }
        throw classifyInBandError(isRecord(body) && body.error !== undefined ? body : { error: body }, hadTools, true);
      }
      // Named events other than "message" are not part of the chat-completions protocol (keep-alives).
      if (event.event !== '' && event.event !== 'message') return;
      if (data === '') return;
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new ModelError(`the stream from ${where} carried data that is not JSON: "${oneLine(data, 120)}"`, 'protocol');
      }
      events++;
      assembler.addChunk(chunk);
    };

    try {
      for (;;) {
        let next: Awaited<ReturnType<typeof reader.read>>;
        try {
          next = await abortable(reader.read(), signal);
        } catch (error) {
          // The connection dropped after the finish chunk: only usage and [DONE] are missing.
          if (mode === 'sse' && assembler.finished && !signal.aborted) break;
          throw error;
        }
        if (next.done) break;
        const value = next.value;
        onData();
        if (!value || value.byteLength === 0) continue;
        if (snippetBytes < SNIPPET_BYTES) {
          snippetParts.push(value);
          snippetBytes += value.byteLength;
        }
        if (mode === 'sniff') {
          pending.push(value);
          const head = decode(pending).trimStart();
          if (head === '') continue;
          mode = head.startsWith('{') || head.startsWith('[') ? 'json' : head.startsWith('<') ? 'html' : 'sse';
          const parts = pending;
          pending = [];
          if (mode === 'json') jsonParts.push(...parts);
          if (mode === 'sse') for (const part of parts) for (const event of sse.push(part)) onEvent(event);
        } else if (mode === 'sse') {
          for (const event of sse.push(value)) onEvent(event);
        } else if (mode === 'json') {
          jsonParts.push(value);
        }
        if (sawDone || (mode === 'html' && snippetBytes >= SNIPPET_BYTES)) break;
      }
    } finally {
      void reader.cancel().catch(() => undefined);
    }

    if (mode === 'sniff') throw new ModelError(`${where} sent an empty answer`, 'protocol');
    if (mode === 'html') {
      const title = /<title[^>]*>([^<]*)<\/title>/i.exec(decode(snippetParts));
      throw new ModelError(
        `${where} answered with a web page${title?.[1] ? ` ("${oneLine(title[1], 80)}")` : ''}, not the OpenAI API; is the base URL right (it usually ends in /v1)?`,
        'protocol',
      );
    }
    if (mode === 'sse') {
      if (!sawDone) for (const event of sse.end()) onEvent(event);
      if (!sawDone && !assembler.finished) {
        if (events === 0) {
          throw new ModelError(`${where} did not answer like an OpenAI-compatible API: "${snippet()}"`, 'protocol');
        }
        throw new ModelError(`the stream from ${where} ended before the answer was complete (no finish_reason, no [DONE])`, 'protocol');
      }
      if (events === 0 && !assembler.sawData) throw new ModelError(`the stream from ${where} ended without an answer`, 'protocol');
      return;
    }
    // JSON: a chat.completion (also when a stream was asked for and the server ignored it), an error
    // object, or JSON lines of chunks (a stream without SSE framing).
    const text = decode(jsonParts);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
      const chunks: unknown[] = [];
      for (const line of lines) {
        try {
          chunks.push(JSON.parse(line));
        } catch {
          throw new ModelError(`${where} answered with invalid JSON: "${snippet()}"`, 'protocol');
        }
      }
      if (!chunks.every(looksLikeChunk)) throw new ModelError(`${where} answered with invalid JSON: "${snippet()}"`, 'protocol');
      for (const chunk of chunks) assembler.addChunk(chunk);
      if (!assembler.finished) {
        throw new ModelError(`the stream from ${where} ended before the answer was complete (no finish_reason)`, 'protocol');
      }
      return;
    }
    if (isRecord(body) && body.error !== undefined && body.error !== null) throw classifyInBandError(body, hadTools, false);
    if (looksLikeChunk(body)) {
      assembler.addChunk(body);
      return;
    }
    if (!isRecord(body) || !Array.isArray(body.choices) || body.choices.length === 0) {
      throw new ModelError(`${where} answered without any choices: "${snippet()}"`, 'protocol');
    }
    assembler.addCompletion(body, emitWhole);
  };

  const attempt = async (
    request: ModelRequest,
    key: string | undefined,
    stream: boolean,
    assembler: TurnAssembler,
  ): Promise<ModelTurn> => {
    const outer = request.signal;
    const hadTools = !!request.tools?.length;
    const ctl = new AbortController();
    let timedOut = false;
    let midBody = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        ctl.abort();
      }, timeoutMs);
    };
    const onAbort = (): void => ctl.abort();
    outer?.addEventListener('abort', onAbort, { once: true });
    const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
    arm();
    try {
      const client = await getClient();
      const response = await abortable(
        client.chat.completions
          .create(buildBody(request, stream), {
            signal: ctl.signal,
            headers:
              options.auth === 'api-key'
                ? { Authorization: null, 'api-key': key ?? null }
                : { Authorization: key ? `Bearer ${key}` : null },
          })
          .asResponse(),
        ctl.signal,
      );
      midBody = true;
      arm();
      await readAnswer(response, assembler, request.stream, hadTools, ctl.signal, arm);
      return assembler.result();
    } catch (error) {
      if (error instanceof CallerError) throw error;
      if (outer?.aborted) throw abortedError(outer);
      if (timedOut) {
        throw new ModelError(
          midBody
            ? `the answer from ${where} stalled for more than ${duration(timeoutMs)}`
            : `no answer from ${where} within ${duration(timeoutMs)}`,
          'timeout',
        );
      }
      throw classify(error, hadTools, midBody, url);
    } finally {
      clearTimeout(timer);
      outer?.removeEventListener('abort', onAbort);
      ctl.abort();
    }
  };

  const complete = async (request: ModelRequest, onDelta?: (delta: ModelDelta) => void): Promise<ModelTurn> => {
    const signal = request.signal;
    if (signal?.aborted) throw abortedError(signal);
    try {
      const u = new URL(baseUrl);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
    } catch {
      throw new ModelError(`invalid base URL: ${oneLine(baseUrl, 120)} (expected e.g. http://localhost:11434/v1)`, 'bad_request');
    }
    const hadTools = !!request.tools?.length;
    const delta =
      onDelta &&
      ((d: ModelDelta): void => {
        try {
          onDelta(d);
        } catch (error) {
          throw new CallerError(error);
        }
      });
    const secrets: string[] = [];
    let adaptations = 0;
    let retries = 0;
    let attempts = 0;
    for (;;) {
      const key = signal ? await abortable(resolveKey(), signal).catch((e: unknown) => {
        throw signal.aborted ? abortedError(signal) : e;
      }) : await resolveKey();
      if (key) secrets.push(key);
      if (signal?.aborted) throw abortedError(signal);
      const stream = request.stream && (quirks.streamWithTools || !hadTools);
      const assembler = new TurnAssembler(hadTools, request.stream ? delta : undefined);
      attempts++;
      try {
        return await attempt(request, key, stream, assembler);
      } catch (thrown) {
        if (thrown instanceof CallerError) throw thrown.error;
        let error = redactError(thrown instanceof ModelError ? thrown : classify(thrown, hadTools, false, baseUrl), secrets);
        if (error.kind === 'aborted') throw error;
        if (!assembler.emitted) {
          const fix = adaptation(error, request, stream);
          // Each fix flips one quirk for good, so this cannot loop; the bound is belt and braces.
          if (fix && adaptations < 4) {
            fix();
            adaptations++;
            continue;
          }
        }
        if (error.status === 401 && !key) error = suffixed(error, ' (no API key was sent)');
        if (assembler.emitted || !isTransient(error)) throw suffixed(error, attempts > 1 ? ` (after ${attempts} attempts)` : '');
        const asked = error.details.retryAfterMs;
        if (asked !== undefined && asked > maxRetryWaitMs) {
          throw suffixed(error, ` (asked to retry after ${duration(asked)}; this client waits at most ${duration(maxRetryWaitMs)})`);
        }
        if (retries >= maxRetries) throw suffixed(error, attempts > 1 ? ` (after ${attempts} attempts)` : '');
        const backoff = Math.min(8_000, 500 * 2 ** retries) * (0.75 + Math.random() * 0.5);
        retries++;
        await sleep(Math.min(asked ?? backoff, maxRetryWaitMs), signal);
      }
    }
  };

  return { name: options.model, complete };
}

function suffixed(error: ModelError, suffix: string): ModelError {
  if (!suffix) return error;
  return new ModelError(error.message + suffix, error.kind, error.status, error.code, error.details);
}

function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
