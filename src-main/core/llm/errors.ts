/**
 * Turning what a provider (or the network) did wrong into a ModelError: a kind the loop can act on and
 * one line in the provider's own words, e.g. "401 invalid_api_key: Incorrect API key provided: sk-…".
 * Pure functions, no I/O.
 */
import { redactSecrets } from '../secrets/redact';
import { ModelError, type ModelErrorDetails, type ModelErrorKind } from './port';

const MAX_MESSAGE = 600;

/** Collapses whitespace to one line and caps the length. */
export function oneLine(text: string, max = MAX_MESSAGE): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** Replaces every secret (e.g. the API key we sent), and every long piece of one, found in `text` (secrets/redact.ts). */
function redact(text: string, secrets: readonly string[]): string {
  return redactSecrets(text, secrets, '***');
}

export function redactError(error: ModelError, secrets: readonly string[]): ModelError {
  const message = redact(error.message, secrets);
  const failed = error.details.failedGeneration;
  const failedGeneration = failed === undefined ? undefined : redact(failed, secrets);
  if (message === error.message && failedGeneration === failed) return error;
  const copy = new ModelError(message, error.kind, error.status, error.code, { ...error.details, failedGeneration });
  if (failedGeneration === undefined) delete copy.details.failedGeneration;
  const override = retryOverride.get(error);
  if (override !== undefined) retryOverride.set(copy, override);
  return copy;
}

/** A base URL fit for a message: no user info, query or fragment. */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return oneLine(url, 120);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  return undefined;
}

/** The fields of an error envelope, whatever shape the server used. */
interface ProviderError {
  message?: string;
  code?: string;
  type?: string;
  param?: string;
  failedGeneration?: string;
  innerCode?: string;
  /** Numeric status some servers put in the body (llama.cpp's code 500, vLLM's code 400). */
  bodyStatus?: number;
}

/**
 * Reads an error envelope: OpenAI `{"error":{message,type,param,code}}`, Ollama `{"error":"..."}`,
 * vLLM `{"object":"error","message":...}`, FastAPI `{"detail":...}`, Azure `innererror`.
 */
function readProviderError(body: unknown): ProviderError | undefined {
  if (!isRecord(body)) return undefined;
  const envelope = body.error;
  if (typeof envelope === 'string') return { message: envelope };
  const e: Record<string, unknown> | undefined = isRecord(envelope)
    ? envelope
    : typeof body.message === 'string' || body.detail !== undefined
      ? body
      : undefined;
  if (!e) return undefined;
  const out: ProviderError = {};
  if (typeof e.message === 'string') out.message = e.message;
  else if (e.message !== undefined && e.message !== null) out.message = JSON.stringify(e.message);
  else if (typeof e.detail === 'string') out.message = e.detail;
  else if (Array.isArray(e.detail)) {
    out.message = e.detail
      .map((d) => (isRecord(d) && typeof d.msg === 'string' ? d.msg : JSON.stringify(d)))
      .join('; ');
  }
  if (typeof e.code === 'number') out.bodyStatus = e.code;
  const code = text(e.code);
  if (code) out.code = code;
  if (typeof e.type === 'string' && e.type) out.type = e.type;
  if (typeof e.param === 'string' && e.param) out.param = e.param;
  if (typeof e.failed_generation === 'string') out.failedGeneration = e.failed_generation;
  if (isRecord(e.innererror)) {
    const inner = text(e.innererror.code);
    if (inner) out.innerCode = inner;
  }
  return out;
}

/** The label after the status: the provider's code, else its type, else the reason phrase. */
function label(status: number | undefined, err: ProviderError | undefined, statusText: string): string {
  const code = err?.code;
  if (code && !/^\d+$/.test(code)) return code;
  if (err?.type) return err.type;
  if (statusText && status !== undefined) return statusText;
  return '';
}

function format(status: number | undefined, lbl: string, message: string): string {
  const head = [status === undefined ? '' : String(status), lbl].filter(Boolean).join(' ');
  const msg = oneLine(message);
  if (!head) return msg;
  return msg ? `${head}: ${msg}` : head;
}

const CONTEXT_PATTERNS = [
  /context[ _-]?(length|window|size)/i,
  /prompt is too long/i,
  /input (is )?too long/i,
  /reduce the length of the (messages|prompt|input)/i,
];
const CONTEXT_CODES = new Set(['context_length_exceeded', 'string_above_max_length', 'exceed_context_size_error']);

const TOOLS_PATTERNS = [
  /cannot use tools with stream/i,
  /does not support tools/i,
  /--jinja/i,
  /"?auto"? tool choice requires/i,
  /enable-auto-tool-choice/i,
  /\b(tools?|functions?|tool[ _]choice)( calling| calls?| use)? (is |are )?not supported/i,
  /does not support (tool|function)[ _-]?(calls?|calling|use)/i,
  /unrecognized request arguments? supplied:.*\btools\b/i,
];

/** llama.cpp before tool streaming: tools work, but only without `stream`. */
export function isStreamWithToolsUnsupported(error: ModelError): boolean {
  return error.kind === 'tools_unsupported' && /with stream/i.test(error.message);
}

/** Whether a 429 can never succeed by waiting: the request alone is over the limit, or no quota. */
function isOverLimit(message: string): boolean {
  if (/request too large/i.test(message)) return true;
  const limit = /\blimit:? (\d+)/i.exec(message);
  const requested = /\brequested:? (\d+)/i.exec(message);
  return !!limit && !!requested && Number(requested[1]) > Number(limit[1]);
}

/** Parses retry-after-ms / retry-after (seconds or HTTP date), else OpenAI's "try again in 6s" text. */
function retryAfterMs(headers: Headers | undefined, message: string): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(parseFloat(ms))) return Math.max(0, parseFloat(ms));
  const ra = headers?.get('retry-after');
  if (ra) {
    const seconds = Number(ra.trim());
    if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
    const date = Date.parse(ra);
    if (Number.isFinite(date)) return Math.max(0, date - Date.now());
  }
  const hint = /(?:try again|retry after) in ([\d.]+)\s*(ms|s|seconds?)\b/i.exec(message)
    ?? /retry after ([\d.]+)\s*(ms|s|seconds?)\b/i.exec(message);
  if (hint) {
    const n = parseFloat(hint[1] ?? '');
    if (Number.isFinite(n)) return hint[2] === 'ms' ? n : n * 1000;
  }
  return undefined;
}

/** Retry decisions the server made for us (`x-should-retry`), keyed by error. */
const retryOverride = new WeakMap<ModelError, boolean>();

interface HttpFailure {
  status: number;
  statusText: string;
  body: string;
  headers?: Headers;
  /** The request carried `tools`. */
  hadTools: boolean;
  /** The endpoint, for hints ("is the base URL right?"). */
  url: string;
}

function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** Text of a non-JSON body: an HTML page's title, else the text itself. */
function bodySnippet(body: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(body);
  if (title?.[1]) return title[1];
  return oneLine(body.replace(/<[^>]+>/g, ' '), 200);
}

function specificKind(
  status: number | undefined,
  err: ProviderError | undefined,
  message: string,
  hadTools: boolean,
): ModelErrorKind | undefined {
  const code = err?.code ?? '';
  if (code === 'tool_use_failed' || err?.failedGeneration !== undefined || /tool call validation failed/i.test(message)) {
    return 'tool_call_invalid';
  }
  if (code === 'content_filter' || code === 'content_policy_violation' || err?.innerCode === 'ResponsibleAIPolicyViolation' || /content management policy/i.test(message)) {
    return 'content_filter';
  }
  if (CONTEXT_CODES.has(code) || err?.type === 'exceed_context_size_error' || CONTEXT_PATTERNS.some((p) => p.test(message))) {
    return 'context_length';
  }
  if (status === 429 && isOverLimit(message)) return 'context_length';
  if (hadTools && status !== 429 && TOOLS_PATTERNS.some((p) => p.test(message))) return 'tools_unsupported';
  return undefined;
}

function kindForStatus(status: number): ModelErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'timeout';
  if (status === 413) return 'context_length';
  if (status === 409 || status >= 500) return 'server';
  return 'bad_request';
}

/** A non-2xx answer. */
export function classifyHttpError(f: HttpFailure): ModelError {
  const json = parseJson(f.body);
  const err = readProviderError(json);
  let message = err?.message ?? '';
  if (!err) {
    const snippet = f.body.trim() ? bodySnippet(f.body) : '';
    message = snippet;
    if (f.status === 404 || f.status === 405) {
      message = `${snippet ? `${snippet} — ` : ''}no chat completions endpoint at ${displayUrl(f.url)}; is the base URL right (it usually ends in /v1)?`;
    }
  }
  const auth = f.status === 401 || f.status === 403;
  const kind = (auth ? undefined : specificKind(f.status, err, message, f.hadTools)) ?? kindForStatus(f.status);
  const details: ModelErrorDetails = {};
  const wait = retryAfterMs(f.headers, message);
  if (wait !== undefined && (kind === 'rate_limit' || kind === 'server' || kind === 'timeout')) details.retryAfterMs = wait;
  if (err?.param) details.param = err.param;
  if (err?.failedGeneration !== undefined) details.failedGeneration = err.failedGeneration;
  const error = new ModelError(format(f.status, label(f.status, err, f.statusText), message), kind, f.status, err?.code, details);
  const should = f.headers?.get('x-should-retry');
  if (should === 'true' || should === 'false') retryOverride.set(error, should === 'true');
  return error;
}

/** An error object inside a 200 response: in a stream (llama.cpp, OpenRouter) or as the whole body. */
export function classifyInBandError(body: unknown, hadTools: boolean, midStream: boolean): ModelError {
  const err = readProviderError(body) ?? { message: JSON.stringify(body) };
  const message = err.message ?? '';
  const status = err.bodyStatus;
  const kind = specificKind(status, err, message, hadTools) ?? 'protocol';
  const lbl = label(status, err, '');
  const prefix = midStream ? 'the stream failed: ' : 'the server answered 200 with an error: ';
  const details: ModelErrorDetails = {};
  if (err.param) details.param = err.param;
  if (err.failedGeneration !== undefined) details.failedGeneration = err.failedGeneration;
  return new ModelError(prefix + format(status, lbl, message), kind, undefined, err.code, details);
}

const CERT_CODE = /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY/;

/** Codes and messages along an error's cause chain (fetch wraps the socket error in `cause`). */
function causes(error: unknown): { codes: string[]; messages: string[] } {
  const codes: string[] = [];
  const messages: string[] = [];
  const seen = new Set<unknown>();
  const visit = (e: unknown, depth: number): void => {
    if (!e || typeof e !== 'object' || seen.has(e) || depth > 6) return;
    seen.add(e);
    const r = e as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof r.code === 'string') codes.push(r.code);
    if (typeof r.message === 'string' && r.message) messages.push(r.message);
    visit(r.cause, depth + 1);
    if (Array.isArray(r.errors)) for (const x of r.errors) visit(x, depth + 1);
  };
  visit(error, 0);
  return { codes, messages };
}

/** A failure below HTTP: refused, reset, DNS, TLS, lost mid-stream. */
export function classifyNetworkError(error: unknown, baseUrl: string, midStream: boolean): ModelError {
  const { codes, messages } = causes(error);
  const where = displayUrl(baseUrl);
  const has = (c: string): boolean => codes.includes(c);
  let host = '';
  try {
    host = new URL(baseUrl).hostname;
  } catch {
    // displayUrl already shows what we have
  }
  if (has('ECONNREFUSED')) {
    return new ModelError(`cannot reach ${where}: connection refused — is the server running?`, 'network', undefined, 'ECONNREFUSED');
  }
  if (has('ENOTFOUND') || has('EAI_AGAIN') || has('EAI_FAIL')) {
    const code = has('ENOTFOUND') ? 'ENOTFOUND' : has('EAI_AGAIN') ? 'EAI_AGAIN' : 'EAI_FAIL';
    return new ModelError(`cannot reach ${where}: host ${host} not found`, 'network', undefined, code);
  }
  if (has('ETIMEDOUT') || has('UND_ERR_CONNECT_TIMEOUT')) {
    return new ModelError(`cannot reach ${where}: connection timed out`, 'timeout', undefined, 'ETIMEDOUT');
  }
  const cert = codes.find((c) => CERT_CODE.test(c));
  if (cert) return new ModelError(`cannot reach ${where}: TLS certificate problem (${cert})`, 'network', undefined, cert);
  if (has('EHOSTUNREACH') || has('ENETUNREACH')) {
    return new ModelError(`cannot reach ${where}: host unreachable`, 'network', undefined, has('EHOSTUNREACH') ? 'EHOSTUNREACH' : 'ENETUNREACH');
  }
  const code = codes.find((c) => c !== 'ERR_INVALID_ARG_TYPE') ?? 'connection_lost';
  const detail = oneLine(messages.at(-1) ?? 'connection error', 200);
  if (midStream) return new ModelError(`the connection to ${where} was lost mid-answer (${detail})`, 'network', undefined, code);
  return new ModelError(`cannot reach ${where}: ${detail}`, 'network', undefined, code);
}

const PERMANENT_NETWORK = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_FAIL', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether waiting and sending the same request again may succeed. */
export function isTransient(error: ModelError): boolean {
  const override = retryOverride.get(error);
  if (override !== undefined) return override && error.kind !== 'aborted';
  switch (error.kind) {
    case 'rate_limit':
      return error.code !== 'insufficient_quota' && !/exceeded your current quota/i.test(error.message);
    case 'server':
    case 'timeout':
      return true;
    case 'network':
      return !PERMANENT_NETWORK.has(error.code ?? '') && !CERT_CODE.test(error.code ?? '');
    default:
      return false;
  }
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 1 ? `${Math.round(mb * 10) / 10} MB` : `${Math.round(bytes / 1024)} KB`;
}

/** The `protocol` error for an answer beyond the limit; `what` names the part ("the answer", "one stream event"). */
export function tooLarge(where: string, what: string, maxBytes: number): ModelError {
  return new ModelError(
    `${what} from ${where} is larger than ${megabytes(maxBytes)}, more than Tidy reads from a model; check that the base URL is an OpenAI-compatible API, or lower maxTokens`,
    'protocol',
    undefined,
    'response_too_large',
  );
}
