/**
 * The real model adapter: any OpenAI-compatible chat-completions endpoint, called with `fetch` directly.
 *
 * The request is one POST of the body request.ts builds to `<baseUrl>/chat/completions` (plus `query`,
 * Azure's api-version, on deployment URLs), with no SDK between: the openai SDK's request building cost
 * about a millisecond a step, and what it would add does not fit a desktop agent:
 * - Retries (policy in retry.ts). The SDK would wait whatever retry-after says up to 60 s (Azure says 60,
 *   case 11), cannot be capped, retries a 429 that can never succeed (OpenAI "Request too large", case
 *   08) and a llama.cpp 500 that means "no tools with stream" (case 18). No wait ever outlives the
 *   AbortSignal; a stream that breaks is an error, never half a turn.
 * - Reading the body (body.ts): an abort is never taken for a normal end of stream, a finished stream is
 *   told from a truncated one, and nothing is read past a size limit (`maxResponseBytes`): our own SSE
 *   decoder, an accumulator that knows the quirks of real servers (assemble.ts). Error bodies are read up
 *   to 1 MB, whole as the server sent them (vLLM's top-level `message`, FastAPI's `detail`, an HTML page).
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

  const url = `${baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const query = Object.entries(options.query ?? {});
  const requestUrl = query.length ? `${url}?${query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}` : url;

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

  /** Classifies whatever one attempt threw that is not a ModelError already: the network's errors. */
  const classify = (error: unknown, midBody: boolean): ModelError =>
    error instanceof ModelError ? error : classifyNetworkError(error, baseUrl, midBody);

  /** A non-2xx answer as a ModelError: its body (up to 1 MB) in the provider's words, or where a redirect points. */
  const httpError = async (response: Response, hadTools: boolean, signal: AbortSignal): Promise<ModelError> => {
    const status = response.status;
    if (status >= 300 && status < 400) {
      void response.body?.cancel().catch(() => undefined);
      const to = response.headers.get('location');
      let target = 'another address';
      try {
        if (to) target = displayUrl(new URL(to, url).toString());
      } catch {
        // A Location that is no address: say only that it redirects.
      }
      return new ModelError(
        `${where} redirects (${status}) to ${target}; Tidy does not follow redirects with the API key: use the address it redirects to as the base URL`,
        'bad_request',
        status,
        'redirect',
      );
    }
    const body = await abortable(readUpTo(response, MAX_ERROR_BYTES), signal).catch(() => '');
    return classifyHttpError({ status, statusText: response.statusText, body, headers: response.headers, hadTools, url });
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
    arm();
    try {
      const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/json' };
      if (key) {
        if (options.auth === 'api-key') headers['api-key'] = key;
        else headers.authorization = `Bearer ${key}`;
      }
      const response = await abortable(
        baseFetch(requestUrl, {
          method: 'POST',
          headers,
          body: JSON.stringify(buildBody(options.model, request, stream, quirks, baseUrl)),
          signal: ctl.signal,
          redirect: 'manual',
        }),
        ctl.signal,
      );
      if (!response.ok) throw await httpError(response, hadTools, ctl.signal);
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
      throw classify(error, midBody);
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
        const error = redactError(thrown instanceof ModelError ? thrown : classify(thrown, false), secrets);
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
