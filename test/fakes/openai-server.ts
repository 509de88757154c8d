/**
 * A fake OpenAI-compatible server for tests: node:http on 127.0.0.1, a random port, no network.
 *
 * ```ts
 * const fake = await startFakeOpenAI();            // options: see FakeServerOptions
 * fake.enqueue(
 *   { toolCalls: [{ name: 'get_inbox_tasks', arguments: {} }] },   // a scripted assistant turn
 *   { text: 'Inbox cleared.' },
 * );
 * const model = createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: 'sk-test' });
 * // ... run the code under test ...
 * expect(fake.chatRequests[0]?.bearer).toBe('sk-test');
 * expect(fake.chatRequests[0]?.body?.tools).toHaveLength(17);
 * await fake.close();
 * ```
 *
 * Every POST .../chat/completions takes the next reply from the queue (`enqueue`, or `replies` at
 * start); when the queue is empty the `handler` option is asked; when that has nothing either, the
 * server answers 400 `fake_no_reply` (not retried by the adapter, so a test missing a reply fails fast
 * with a clear message). A reply is one of:
 * - a turn (FakeTurn): `{ text?, reasoning?, refusal?, toolCalls?: [{ id?, name, arguments }],
 *   finishReason?, usage? }`. Served the way the request asked: with `stream: true` as SSE chunks the way
 *   api.openai.com sends them (role chunk, content in small pieces, each tool call opened with id+name then
 *   argument fragments, finish chunk, a usage chunk with `choices: []` when `stream_options.include_usage`,
 *   `data: [DONE]`); otherwise as one chat.completion JSON;
 * - a raw response (FakeRaw): `{ status, headers?, body? }`, e.g. `fakeError(429, 'Slow down', { headers:
 *   { 'retry-after': '1' } })`, a 500, garbage, HTML;
 * - a recorded response (FakeReplay): `{ replay: '08' }` (a case of test/fixtures/conformance/cases by number
 *   or file name, or a path), replayed by the rules of test/fixtures/conformance/INDEX.md; `rechunk: { seed }`
 *   re-splits the body into random byte chunks (mid-line, mid-UTF-8);
 * - a fault (FakeFault): `hang` (never answers), `reset` (drops the connection), `stall` (streams a few
 *   events, then goes silent), `truncate` (a few events, then drops the connection), `end-early` (a few
 *   events, then ends the response cleanly without finish_reason or [DONE]).
 * Every request is recorded in `requests` (all paths) and `chatRequests` (chat completions only):
 * method, path, lower-cased headers, the bearer token, the parsed JSON body; `reset()` forgets them
 * and empties the queue.
 * GET .../models answers a model list (`models` option).
 */
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// ---------------------------------------------------------------------------------------------------
// Public types

export interface FakeToolCall {
  /** Default: call_fake_<request>_<n>. */
  id?: string;
  name: string;
  /** JSON text as the model would write it, or an object to serialise. */
  arguments: string | Record<string, unknown>;
}

export interface FakeUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens?: number;
}

/** An assistant turn, streamed or not depending on the request's `stream` flag. */
export interface FakeTurn {
  text?: string;
  /** Sent as Ollama/vLLM do, under `reasoning`. */
  reasoning?: string;
  refusal?: string;
  toolCalls?: FakeToolCall[];
  /** Default: "tool_calls" when there are tool calls, else "stop"; null sends none. */
  finishReason?: string | null;
  /** Default: a rough count from the text lengths; null sends no usage. */
  usage?: FakeUsage | null;
  /** The `model` field of the answer. Default: the request's model. */
  model?: string;
  /** Wait before answering, in ms. */
  delayMs?: number;
  /** Wait between two SSE events, in ms (for abort tests). */
  chunkDelayMs?: number;
}

export interface FakeRaw {
  status: number;
  headers?: Record<string, string | string[]>;
  /** An object is sent as JSON (with a JSON content type unless given). */
  body?: string | Uint8Array | object;
  delayMs?: number;
}

export interface RechunkOptions {
  seed: number;
  /** Largest chunk, in bytes. Default 48. */
  maxBytes?: number;
}

export interface FakeReplay {
  /** A conformance case: its number ("08" or 8), its file name, or a path to a .http file. */
  replay: string | number;
  /** Re-split the body into random byte chunks. Default: the server's `rechunk` option. */
  rechunk?: RechunkOptions | false;
  /** Wrap a JSON-lines body (case 29) as SSE. Default true. */
  wrapJsonLines?: boolean;
  delayMs?: number;
}

export type FakeFault =
  | { fault: 'hang' }
  | { fault: 'reset' }
  | { fault: 'stall' | 'truncate' | 'end-early'; turn?: FakeTurn; afterEvents?: number };

export type FakeReply = FakeTurn | FakeRaw | FakeReplay | FakeFault;

/** The JSON body of a chat-completions request, as far as tests care. */
export interface RecordedChatBody {
  model?: string;
  messages?: Array<Record<string, unknown> & { role: string }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
  max_completion_tokens?: number;
  [key: string]: unknown;
}

export interface RecordedRequest {
  /** 1-based, in arrival order over all paths. */
  seq: number;
  method: string;
  /** Without the query string. */
  path: string;
  /** Path and query string, as received. */
  url: string;
  /** Lower-cased names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  authorization: string | undefined;
  /** The token of `Authorization: Bearer <token>`. */
  bearer: string | undefined;
  rawBody: string;
  /** The parsed JSON body, when it was JSON. */
  body: RecordedChatBody | undefined;
  /** Set when the client went away before the response was complete (abort, timeout). */
  clientClosed: boolean;
}

export type FakeHandler = (request: RecordedRequest) => FakeReply | undefined | Promise<FakeReply | undefined>;

export interface FakeServerOptions {
  /** Initial queue. */
  replies?: FakeReply[];
  /** Asked when the queue is empty. */
  handler?: FakeHandler;
  /** Ids for GET /models. Default ["fake-model"]. */
  models?: string[];
  /** Re-chunk every replayed body (and scripted stream) with this seed. */
  rechunk?: RechunkOptions;
  /** JSON answers of a local server's own API, by "METHOD /path" (e.g. Ollama's "POST /api/show"). */
  routes?: Record<string, unknown>;
}

export interface FakeOpenAI {
  /** Base URL for the adapter: http://127.0.0.1:PORT/v1 */
  readonly url: string;
  readonly port: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[];
  /** Only POST .../chat/completions. */
  readonly chatRequests: RecordedRequest[];
  enqueue(...replies: FakeReply[]): void;
  /** Replies still queued. */
  pending(): number;
  /** Empties the queue and forgets the recorded requests (between tests sharing one server). */
  reset(): void;
  /** Resolves once `count` chat requests have arrived (default timeout 5 s). */
  waitForChatRequests(count: number, timeoutMs?: number): Promise<RecordedRequest>;
  close(): Promise<void>;
}

// ---------------------------------------------------------------------------------------------------
// Recorded cases (test/fixtures/conformance; sources and licences in its INDEX.md)

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where the recorded cases live: $TIDY_CONFORMANCE_DIR, else the copy vendored in test/fixtures/conformance/cases. */
export const CONFORMANCE_DIR = process.env.TIDY_CONFORMANCE_DIR ?? path.resolve(REPO_ROOT, 'test/fixtures/conformance/cases');

/** The path of a case given by number (8, "08"), file name or path. */
export function conformanceCase(ref: string | number): string {
  const s = String(ref);
  if (s.includes('/') && existsSync(s)) return s;
  const prefix = /^\d+$/.test(s) ? `${s.padStart(2, '0')}_` : s;
  const file = readdirSync(CONFORMANCE_DIR).find((f) => f === prefix || f.startsWith(prefix));
  if (!file) throw new Error(`no conformance case ${s} in ${CONFORMANCE_DIR}`);
  return path.join(CONFORMANCE_DIR, file);
}

export interface HttpCase {
  status: number;
  reason: string;
  /** In recorded order, without the headers the replay rules drop. */
  headers: Array<[string, string]>;
  body: Buffer;
}

/** Headers the replay must not send: the body is stored decoded and our server frames it itself. */
const DROPPED = new Set(['content-length', 'transfer-encoding', 'content-encoding', 'connection', 'keep-alive']);

function looksLikeChunkLine(line: string): boolean {
  try {
    const v: unknown = JSON.parse(line);
    return typeof v === 'object' && v !== null && 'choices' in v;
  } catch {
    return false;
  }
}

/**
 * Reads a .http case by INDEX.md's replay rules: split at the first blank line (CRLF or LF), drop
 * Content-Length / Transfer-Encoding / Content-Encoding, and wrap a JSON-lines body (case 29) as SSE.
 */
export function loadHttpCase(file: string, wrapJsonLines = true): HttpCase {
  const raw = readFileSync(file);
  const crlf = raw.indexOf('\r\n\r\n');
  const lf = raw.indexOf('\n\n');
  const [split, sepLen] = crlf !== -1 && (lf === -1 || crlf < lf) ? [crlf, 4] : [lf, 2];
  if (split === -1) throw new Error(`${file}: no blank line between head and body`);
  const head = raw.subarray(0, split).toString('utf8').split(/\r?\n/);
  let body = raw.subarray(split + sepLen);
  const statusLine = /^HTTP\/[\d.]+ (\d{3})(?: (.*))?$/.exec(head[0] ?? '');
  if (!statusLine) throw new Error(`${file}: bad status line ${JSON.stringify(head[0])}`);
  const headers: Array<[string, string]> = [];
  for (const line of head.slice(1)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    if (DROPPED.has(name.toLowerCase())) continue;
    headers.push([name, line.slice(colon + 1).trim()]);
  }
  const status = Number(statusLine[1]);
  if (wrapJsonLines && status === 200) {
    const lines = body.toString('utf8').split('\n').filter((l) => l.trim() !== '');
    if (lines.length >= 2 && lines.every(looksLikeChunkLine)) {
      body = Buffer.from(lines.map((l) => `data: ${l}\n\n`).join('') + 'data: [DONE]\n\n', 'utf8');
    }
  }
  return { status, reason: statusLine[2] ?? '', headers, body };
}

// ---------------------------------------------------------------------------------------------------
// Helpers for scripted replies

/** An OpenAI-style error response. */
export function fakeError(
  status: number,
  message: string,
  opts: { code?: string | null; type?: string; param?: string | null; headers?: Record<string, string> } = {},
): FakeRaw {
  return {
    status,
    headers: opts.headers,
    body: { error: { message, type: opts.type ?? 'invalid_request_error', param: opts.param ?? null, code: opts.code ?? null } },
  };
}

/** Deterministic PRNG (mulberry32). */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Splits bytes into random chunks of 1..maxBytes bytes (ignoring line and character boundaries). */
export function rechunk(bytes: Uint8Array, opts: RechunkOptions): Uint8Array[] {
  const rand = prng(opts.seed);
  const max = Math.max(1, opts.maxBytes ?? 48);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; ) {
    const n = 1 + Math.floor(rand() * max);
    out.push(bytes.subarray(i, i + n));
    i += n;
  }
  return out;
}

/** Small pieces of a string, on code-point boundaries (the server then splits bytes itself if asked). */
function pieces(text: string, size = 4): string[] {
  const chars = Array.from(text);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

function argsText(args: string | Record<string, unknown>): string {
  return typeof args === 'string' ? args : JSON.stringify(args);
}

interface TurnContext {
  seq: number;
  body: RecordedChatBody | undefined;
  rawBody: string;
}

function usageOf(turn: FakeTurn, ctx: TurnContext): Record<string, number> | null {
  if (turn.usage === null) return null;
  if (turn.usage) {
    const u = turn.usage;
    return { prompt_tokens: u.promptTokens, completion_tokens: u.completionTokens, total_tokens: u.totalTokens ?? u.promptTokens + u.completionTokens };
  }
  const out = (turn.text ?? '') + (turn.reasoning ?? '') + (turn.refusal ?? '') + (turn.toolCalls ?? []).map((c) => c.name + argsText(c.arguments)).join('');
  const prompt = Math.ceil(ctx.rawBody.length / 4);
  const completion = Math.ceil(out.length / 4);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function finishOf(turn: FakeTurn): string | null {
  if (turn.finishReason !== undefined) return turn.finishReason;
  return turn.toolCalls?.length ? 'tool_calls' : 'stop';
}

function callId(call: FakeToolCall, ctx: TurnContext, i: number): string {
  return call.id ?? `call_fake_${ctx.seq}_${i}`;
}

/** The turn as one chat.completion object. */
export function turnToCompletion(turn: FakeTurn, ctx: TurnContext): Record<string, unknown> {
  const calls = turn.toolCalls ?? [];
  const message: Record<string, unknown> = {
    role: 'assistant',
    content: turn.text ?? (calls.length ? null : ''),
    refusal: turn.refusal ?? null,
  };
  if (turn.reasoning !== undefined) message.reasoning = turn.reasoning;
  if (calls.length) {
    message.tool_calls = calls.map((c, i) => ({
      id: callId(c, ctx, i),
      type: 'function',
      function: { name: c.name, arguments: argsText(c.arguments) },
    }));
  }
  const usage = usageOf(turn, ctx);
  return {
    id: `chatcmpl-fake-${ctx.seq}`,
    object: 'chat.completion',
    created: 1_700_000_000 + ctx.seq,
    model: turn.model ?? ctx.body?.model ?? 'fake-model',
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishOf(turn) }],
    ...(usage ? { usage } : {}),
  };
}

/**
 * The turn as SSE event payloads ("data: ..." without framing), the way api.openai.com streams;
 * `withEnd: false` leaves out the finish chunk, the usage chunk and [DONE].
 */
export function turnToEvents(turn: FakeTurn, ctx: TurnContext, withEnd = true): string[] {
  const base = {
    id: `chatcmpl-fake-${ctx.seq}`,
    object: 'chat.completion.chunk',
    created: 1_700_000_000 + ctx.seq,
    model: turn.model ?? ctx.body?.model ?? 'fake-model',
  };
  const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
    JSON.stringify({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const calls = turn.toolCalls ?? [];
  const events: string[] = [];
  events.push(chunk({ role: 'assistant', content: calls.length && !turn.text ? null : '', refusal: null }));
  for (const p of pieces(turn.reasoning ?? '')) events.push(chunk({ reasoning: p }));
  for (const p of pieces(turn.text ?? '')) events.push(chunk({ content: p }));
  for (const p of pieces(turn.refusal ?? '')) events.push(chunk({ refusal: p }));
  calls.forEach((c, i) => {
    events.push(chunk({ tool_calls: [{ index: i, id: callId(c, ctx, i), type: 'function', function: { name: c.name, arguments: '' } }] }));
    for (const p of pieces(argsText(c.arguments), 7)) events.push(chunk({ tool_calls: [{ index: i, function: { arguments: p } }] }));
  });
  if (!withEnd) return events;
  events.push(chunk({}, finishOf(turn)));
  const usage = usageOf(turn, ctx);
  if (usage && ctx.body?.stream_options?.include_usage) {
    events.push(JSON.stringify({ ...base, choices: [], usage }));
  }
  events.push('[DONE]');
  return events;
}

// ---------------------------------------------------------------------------------------------------
// The server

function isRaw(r: FakeReply): r is FakeRaw {
  return 'status' in r;
}
function isReplay(r: FakeReply): r is FakeReplay {
  return 'replay' in r;
}
function isFault(r: FakeReply): r is FakeFault {
  return 'fault' in r;
}

export async function startFakeOpenAI(options: FakeServerOptions = {}): Promise<FakeOpenAI> {
  const queue: FakeReply[] = [...(options.replies ?? [])];
  const requests: RecordedRequest[] = [];
  const chatRequests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const waiters: Array<() => void> = [];
  let closed = false;

  const wait = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      if (ms <= 0 || closed) {
        resolve();
        return;
      }
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });
  const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

  /** Writes chunks one by one, yielding between them so they leave as separate writes. */
  const writeChunks = async (res: ServerResponse, chunks: Uint8Array[], delayMs = 0): Promise<boolean> => {
    for (const c of chunks) {
      if (res.destroyed || closed) return false;
      res.write(c);
      if (delayMs > 0) await wait(delayMs);
      else await tick();
    }
    return !res.destroyed;
  };

  const sseBytes = (events: string[]): Uint8Array[] => events.map((e) => Buffer.from(`data: ${e}\n\n`, 'utf8'));

  const sendTurn = async (res: ServerResponse, turn: FakeTurn, ctx: TurnContext, stream: boolean): Promise<void> => {
    await wait(turn.delayMs ?? 0);
    if (res.destroyed) return;
    if (!stream) {
      const body = Buffer.from(JSON.stringify(turnToCompletion(turn, ctx)), 'utf8');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (options.rechunk) {
        await writeChunks(res, rechunk(body, options.rechunk));
        res.end();
      } else {
        res.end(body);
      }
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const events = sseBytes(turnToEvents(turn, ctx));
    const chunks = options.rechunk ? rechunk(Buffer.concat(events), options.rechunk) : events;
    if (await writeChunks(res, chunks, turn.chunkDelayMs)) res.end();
  };

  const sendFault = async (res: ServerResponse, fault: FakeFault, ctx: TurnContext): Promise<void> => {
    if (fault.fault === 'hang') return; // the socket stays open until the client gives up or close()
    if (fault.fault === 'reset') {
      res.socket?.destroy();
      return;
    }
    const turn = fault.turn ?? { text: 'This answer never gets to its end.' };
    const events = turnToEvents(turn, ctx, false).slice(0, fault.afterEvents ?? 3);
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8' });
    res.flushHeaders();
    if (!(await writeChunks(res, sseBytes(events), turn.chunkDelayMs))) return;
    // Give the client time to read what was sent before the connection goes.
    await wait(20);
    if (fault.fault === 'truncate') res.socket?.destroy();
    else if (fault.fault === 'end-early') res.end();
    // 'stall': silence until the client gives up or close()
  };

  const sendReplay = async (res: ServerResponse, replay: FakeReplay): Promise<void> => {
    await wait(replay.delayMs ?? 0);
    const c = loadHttpCase(conformanceCase(replay.replay), replay.wrapJsonLines ?? true);
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of c.headers) {
      const prev = headers[name];
      headers[name] = prev === undefined ? value : [...(Array.isArray(prev) ? prev : [prev]), value];
    }
    res.writeHead(c.status, c.reason || undefined, headers);
    const chunking = replay.rechunk === undefined ? options.rechunk : replay.rechunk || undefined;
    if (chunking) {
      res.flushHeaders();
      if (await writeChunks(res, rechunk(c.body, chunking))) res.end();
    } else {
      res.end(c.body);
    }
  };

  const sendRaw = async (res: ServerResponse, raw: FakeRaw): Promise<void> => {
    await wait(raw.delayMs ?? 0);
    const headers: Record<string, string | string[]> = { ...raw.headers };
    let body: string | Uint8Array | undefined;
    if (raw.body === undefined || typeof raw.body === 'string' || raw.body instanceof Uint8Array) {
      body = raw.body;
    } else {
      body = JSON.stringify(raw.body);
      if (!Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) headers['content-type'] = 'application/json';
    }
    res.writeHead(raw.status, headers);
    res.end(body);
  };

  const sendJson = (res: ServerResponse, status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const rawBody = Buffer.concat(parts).toString('utf8');
    let body: RecordedChatBody | undefined;
    try {
      const parsed: unknown = rawBody ? JSON.parse(rawBody) : undefined;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as RecordedChatBody;
    } catch {
      body = undefined;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) {
      if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    const authorization = headers.authorization;
    const urlPath = (req.url ?? '/').split('?')[0] ?? '/';
    const record: RecordedRequest = {
      seq: requests.length + 1,
      method: req.method ?? 'GET',
      path: urlPath,
      url: req.url ?? '/',
      headers,
      authorization,
      bearer: authorization?.startsWith('Bearer ') ? authorization.slice(7) : undefined,
      rawBody,
      body,
      clientClosed: false,
    };
    requests.push(record);
    res.on('close', () => {
      if (!res.writableFinished) record.clientClosed = true;
    });

    if (record.method === 'GET' && urlPath.endsWith('/models')) {
      const ids = options.models ?? ['fake-model'];
      sendJson(res, 200, { object: 'list', data: ids.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      return;
    }
    const route = `${record.method} ${urlPath}`;
    if (options.routes && Object.hasOwn(options.routes, route)) {
      sendJson(res, 200, options.routes[route]);
      return;
    }
    if (record.method !== 'POST' || !urlPath.endsWith('/chat/completions')) {
      sendJson(res, 404, { error: { message: `fake OpenAI server: no route ${record.method} ${urlPath}`, type: 'invalid_request_error', param: null, code: 'not_found' } });
      return;
    }
    chatRequests.push(record);
    for (const w of waiters.splice(0)) w();

    const reply = queue.shift() ?? (await options.handler?.(record));
    if (!reply) {
      sendJson(res, 400, {
        error: { message: `fake OpenAI server: nothing scripted for chat request #${chatRequests.length}`, type: 'invalid_request_error', param: null, code: 'fake_no_reply' },
      });
      return;
    }
    const ctx: TurnContext = { seq: chatRequests.length, body, rawBody };
    if (isFault(reply)) await sendFault(res, reply, ctx);
    else if (isReplay(reply)) await sendReplay(res, reply);
    else if (isRaw(reply)) await sendRaw(res, reply);
    else await sendTurn(res, reply, ctx, body?.stream === true);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in a test's script: answer it visibly instead of hanging.
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake OpenAI server failed: ${String(error)}`, type: 'fake_server_error' } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests,
    chatRequests,
    enqueue: (...replies) => {
      queue.push(...replies);
    },
    pending: () => queue.length,
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      chatRequests.length = 0;
    },
    waitForChatRequests: (count, timeoutMs = 5_000) =>
      new Promise<RecordedRequest>((resolve, reject) => {
        const ready = chatRequests[count - 1];
        if (ready) {
          resolve(ready);
          return;
        }
        const timer = setTimeout(() => {
          timers.delete(timer);
          reject(new Error(`fake OpenAI server: ${chatRequests.length} of ${count} chat requests after ${timeoutMs} ms`));
        }, timeoutMs);
        timers.add(timer);
        const waiter = (): void => {
          const r = chatRequests[count - 1];
          if (!r) {
            waiters.push(waiter);
            return;
          }
          clearTimeout(timer);
          timers.delete(timer);
          resolve(r);
        };
        waiters.push(waiter);
      }),
    close: async () => {
      closed = true;
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
