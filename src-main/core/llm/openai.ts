/**
 * The real model adapter: any OpenAI-compatible chat-completions endpoint, through the `openai` SDK.
 *
 * What the SDK does: building the request (base URL, headers, body) and the HTTP exchange, and turning
 * a non-2xx answer into an APIError. What this adapter does itself, and why:
 * - Retries (SDK `maxRetries: 0`, policy in retry.ts). The SDK would wait whatever retry-after says up
 *   to 60 s (Azure says 60, case 11), cannot be capped, retries a 429 that can never succeed (OpenAI
 *   "Request too large", case 08) and a llama.cpp 500 that means "no tools with stream" (case 18). No
 *   wait ever outlives the AbortSignal; a stream that breaks is an error, never half a turn.
 * - Reading the body (`asResponse()`, body.ts): the SDK's stream helper swallows an abort as a normal
 *   end of stream, cannot tell a finished stream from a truncated one, and reads any size. Here: our own
 *   SSE decoder, an accumulator that knows the quirks of real servers (assemble.ts), and a size limit
 *   (`maxResponseBytes`). Error bodies are read up to 1 MB.
 * - Redirects are not followed: the key would go with the request to wherever the server points (fetch
 *   drops Authorization across origins, but not Azure's api-key), and a POST redirect is rarely meant.
 *   The error names the address to use instead.
 * - Timeouts: `timeoutMs` is the longest silence tolerated: until the response headers, then between
 *   two pieces of the body. A long answer that keeps streaming never times out; the run's own time
 *   limit belongs to the caller's AbortSignal.
 * - Errors: one line in the provider's words, "<status> <code|type|reason>: <message>", with the key
 *   we sent (and any long piece of it) replaced by *** wherever the server echoed it (errors.ts).
 * - The API key is read by `apiKey()` right before every attempt (it lives in the OS keychain), and
 *   sent as `Authorization: Bearer` (or Azure's `api-key` header with `auth: 'api-key'`). With no key
 *   (local servers) no Authorization header is sent at all: a dummy bearer would only confuse proxies,
 *   and api.openai.com then says plainly that no key was provided.
 * - Learnt after one failed request each, and kept across runs through `quirks` (quirks.ts): a server
 *   that rejects `max_tokens`, a custom `temperature`, `stream_options`, or streaming with tools.
 */
import type OpenAI from 'openai';
import type * as OpenAISdk from 'openai';

// The SDK is loaded on the first request, not at start-up: most `tidy` commands and the app's first
// paint never talk to a model, and the SDK is the largest module Tidy has.
type Sdk = typeof OpenAISdk;
let sdk: Sdk | undefined;
const loadSdk = async (): Promise<Sdk> => (sdk ??= await import('openai'));
import { TurnAssembler } from './assemble';
import { DEFAULT_MAX_RESPONSE_BYTES, readAnswer } from './body';
import { classifyHttpError, classifyNetworkError, displayUrl, oneLine, redactError } from './errors';
import { ModelError, type Model, type ModelDelta, type ModelRequest, type ModelTurn } from './port';
import { adaptation, DEFAULT_QUIRKS, mergeQuirks, type QuirkMemory, type Quirks } from './quirks';
import { buildBody, streams } from './request';
import { duration, retryDecision } from './retry';
import { abortable, abortedError, sleep } from './signals';

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
  /** Largest answer read, in bytes: a non-streamed body, one SSE line or event, the turn's text. Default 8 MB. */
  maxResponseBytes?: number;
  /** A fetch implementation (tests, proxies). Default: the global fetch. */
  fetch?: typeof fetch;
  /** How the key is sent: `Authorization: Bearer` (default) or Azure's `api-key` header. */
  auth?: 'bearer' | 'api-key';
  /** Query parameters for every request (Azure's api-version on deployment URLs). */
  query?: Readonly<Record<string, string>>;
  /** What this endpoint and model are known not to accept, kept across runs. Default: learnt per instance only. */
  quirks?: QuirkMemory;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const DEFAULT_MAX_RETRY_WAIT_MS = 20_000;
/** An error body is a short JSON object or page; more is not read (and not quoted). */
const MAX_ERROR_BYTES = 1024 * 1024;

/** Raw error bodies by the Headers object the SDK puts on its APIError (see `capturingFetch`). */
interface RawError {
  text: string;
  statusText: string;
}

/** An exception thrown by the caller's onDelta: not ours to classify. */
class CallerError {
  constructor(readonly error: unknown) {}
}

/** Up to `max` bytes of a body as text; the rest is left unread. */
async function readUpTo(response: Response, max: number): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const parts: Uint8Array[] = [];
  let total = 0;
  try {
    while (total < max) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      total += value.byteLength;
    }
  } finally {
    void reader.cancel().catch(() => undefined);
  }
  return new TextDecoder().decode(Buffer.concat(parts).subarray(0, max));
}

export function createOpenAIModel(options: OpenAIModelOptions): Model {
  const baseUrl = options.baseUrl;
  const where = displayUrl(baseUrl);
  const timeoutMs = Math.max(1, Math.floor(options.timeoutMs ?? DEFAULT_TIMEOUT_MS));
  const policy = {
    maxRetries: Math.max(0, Math.floor(options.maxRetries ?? DEFAULT_MAX_RETRIES)),
    maxRetryWaitMs: Math.max(0, options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS),
  };
  const maxBytes = Math.max(1024, Math.floor(options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES));
  const baseFetch = options.fetch ?? globalThis.fetch;

  const rawErrors = new WeakMap<Headers, RawError>();
  // The SDK keeps only `error` of a JSON error body and drops everything else (vLLM's top-level
  // `message`, FastAPI's `detail`, an HTML page). Keep the raw text, keyed by the Headers object the
  // SDK hands to its APIError.
  const capturingFetch: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, { ...init, redirect: 'manual' });
    if (response.ok) return response;
    const text = await readUpTo(response, MAX_ERROR_BYTES).catch(() => '');
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

  // What this server turned out not to accept: remembered from earlier runs, then learnt as we go.
  let quirks: Quirks = { ...DEFAULT_QUIRKS };
  try {
    quirks = mergeQuirks(quirks, options.quirks?.load() ?? {});
  } catch {
    // A memory that cannot be read costs one failing request per quirk, as without one.
  }
  const learn = (change: Partial<Quirks>): void => {
    quirks = { ...quirks, ...change };
    try {
      options.quirks?.save(quirks);
    } catch {
      // Not remembered for the next run; this one goes on with it.
    }
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

  /** Classifies whatever one attempt threw. */
  const classify = (error: unknown, hadTools: boolean, midBody: boolean, url: string): ModelError => {
    if (error instanceof ModelError) return error;
    if (sdk && error instanceof sdk.APIConnectionTimeoutError) {
      return new ModelError(`no answer from ${where} within ${duration(timeoutMs)}`, 'timeout');
    }
    if (sdk && error instanceof sdk.APIError && typeof error.status === 'number') {
      if (error.status >= 300 && error.status < 400) {
        const to = error.headers?.get('location');
        return new ModelError(
          `${where} redirects (${error.status}) to ${to ? displayUrl(new URL(to, url).toString()) : 'another address'}; Tidy does not follow redirects with the API key: use the address it redirects to as the base URL`,
          'bad_request',
          error.status,
          'redirect',
        );
      }
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
    let settled = false;
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
          .create(buildBody(options.model, request, stream, quirks, baseUrl), {
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
      await readAnswer(response, assembler, { where, emitWhole: request.stream, hadTools, signal: ctl.signal, onData: arm, maxBytes });
      const turn = assembler.result();
      // The body is read and its reader released: nothing is left to abort (an abort costs a DOMException and its listeners).
      settled = true;
      return turn;
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
      if (!settled) ctl.abort();
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
      const stream = streams(request, quirks);
      const assembler = new TurnAssembler(hadTools, request.stream ? delta : undefined, maxBytes, where);
      attempts++;
      try {
        return await attempt(request, key, stream, assembler);
      } catch (thrown) {
        if (thrown instanceof CallerError) throw thrown.error;
        const error = redactError(thrown instanceof ModelError ? thrown : classify(thrown, hadTools, false, baseUrl), secrets);
        if (error.kind === 'aborted') throw error;
        if (!assembler.emitted) {
          const fix = adaptation(quirks, error, request, stream);
          // Each fix flips one quirk for good, so this cannot loop; the bound is belt and braces.
          if (fix && adaptations < 4) {
            learn(fix);
            adaptations++;
            continue;
          }
        }
        const decision = retryDecision(error, { attempts, retries, emitted: assembler.emitted, keyless: !key }, policy);
        if ('error' in decision) throw decision.error;
        retries++;
        await sleep(decision.waitMs, signal);
      }
    }
  };

  return { name: options.model, complete };
}
