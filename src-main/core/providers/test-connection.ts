/**
 * "Test connection": GET {baseUrl}/models with the key, and one clear line about what is wrong — nothing
 * listening, DNS, timeout, TLS, a rejected key, a web page instead of the API — or the models it lists and
 * whether the configured one is among them. Plain fetch rather than the SDK, to see the raw answer.
 */
import { ConnectionReport, parseEndpointUrl, PRESETS, type ConnectionProblem, type ContextReport, type KeySource } from '../../../src-shared/providers';
import { timeLimit } from '../abort';
import { ApiKeyError, redactSecret } from '../secrets/api-key';
import { authHeaders, readCapped, type Connection } from './connection';
import { readContextWindow, readsContextWindow } from './context-window';

export interface TestConnectionOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Read a local server's context window for the model (default true; a mere look at the model list skips it). */
  context?: boolean;
}

const MAX_BODY = 8 * 1024 * 1024;
const MAX_MODELS = 200;

/** The models URL. Azure deployment URLs list models one level up, at …/openai/models. Throws for a URL that is not http(s). */
export function modelsUrl(conn: Pick<Connection, 'baseUrl' | 'query'>): string {
  const endpoint = parseEndpointUrl(conn.baseUrl);
  if (!endpoint.ok) throw new TypeError(`base URL ${endpoint.error}`);
  const url = new URL(`${endpoint.url.replace(/\/openai\/deployments\/[^/]+$/, '/openai')}/models`);
  for (const [k, v] of Object.entries(conn.query)) url.searchParams.set(k, v);
  return url.toString();
}

function errorCode(e: unknown): string {
  const seen = new Set<unknown>();
  let cur: unknown = e;
  while (typeof cur === 'object' && cur !== null && !seen.has(cur)) {
    seen.add(cur);
    if ('code' in cur && typeof cur.code === 'string' && cur.code !== '') return cur.code;
    // `localhost` resolves to ::1 and 127.0.0.1: undici then reports an AggregateError of both attempts.
    if (cur instanceof AggregateError && cur.errors.length) cur = cur.errors[0];
    else cur = 'cause' in cur ? cur.cause : undefined;
  }
  return '';
}

const oneLine = (s: string, max = 200): string => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/** The provider's own words from an OpenAI-style error body: {"error": {"message": "…"}} or {"error": "…"}. */
function providerMessage(body: string): string {
  try {
    const v: unknown = JSON.parse(body);
    if (typeof v === 'object' && v !== null && 'error' in v) {
      const err = v.error;
      if (typeof err === 'string') return oneLine(err);
      if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string') return oneLine(err.message);
    }
    if (typeof v === 'object' && v !== null && 'message' in v && typeof v.message === 'string') return oneLine(v.message);
  } catch {
    // not JSON: nothing the provider said that is worth quoting
  }
  return '';
}

const looksLikeHtml = (contentType: string, body: string): boolean => /html/i.test(contentType) || /^\s*(<!doctype|<html|<head|<body)/i.test(body);

export async function testConnection(conn: Connection, options: TestConnectionOptions = {}): Promise<ConnectionReport> {
  const started = performance.now();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const preset = PRESETS[conn.profile.preset];
  // Every decision below (hints about http/https, the host named) is made on the URL in normal form.
  const endpoint = parseEndpointUrl(conn.baseUrl);
  if (!endpoint.ok) {
    return ConnectionReport.parse({
      ok: false,
      problem: 'bad_url',
      message: `the base URL ${JSON.stringify(oneLine(conn.baseUrl, 120))} ${endpoint.error}`,
      hint: `fix it: tidy config profile edit ${conn.profile.id} --base-url URL`,
      url: oneLine(conn.baseUrl, 120),
      status: null,
      keySource: null,
      models: [],
      modelCount: 0,
      model: conn.model,
      modelListed: null,
      warning: null,
      elapsedMs: Math.round(performance.now() - started),
    });
  }
  const url = modelsUrl(conn);
  const where = endpoint.origin.replace(/^https?:\/\//, '');
  let key: string | undefined;
  let keySource: KeySource | null = null;

  const report = (r: Partial<ConnectionReport> & { ok: boolean; message: string }): ConnectionReport => ({
    problem: null,
    hint: '',
    url,
    status: null,
    keySource,
    models: [],
    modelCount: 0,
    model: conn.model,
    modelListed: null,
    warning: null,
    elapsedMs: Math.round(performance.now() - started),
    ...r,
    // Whatever came back from the server, the key does not leave in the report.
    message: redactSecret(r.message, key),
    ...(r.hint !== undefined ? { hint: redactSecret(r.hint, key) } : {}),
  });
  const failed = (problem: ConnectionProblem, message: string, hint: string, status: number | null = null): ConnectionReport =>
    report({ ok: false, problem, message, hint, status });

  try {
    ({ key, source: keySource } = await conn.resolveKey());
  } catch (e) {
    if (e instanceof ApiKeyError) return failed('no_key', e.error, e.hint);
    throw e;
  }

  const v1Hint = `check the base URL: it usually ends in /v1 (${preset.id === 'custom' || preset.id === 'azure' ? 'e.g. http://127.0.0.1:11434/v1' : preset.baseUrl})`;
  const startHint: Partial<Record<string, string>> = {
    ollama: 'start Ollama (`ollama serve`) or check the port in the base URL',
    lmstudio: "start LM Studio's local server (Developer tab, or `lms server start`) or check the port",
    llamacpp: 'start `llama-server -m model.gguf --port 8080` or check the port in the base URL',
  };

  const limit = timeLimit(timeoutMs, [options.signal]);
  const signal = limit.signal;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: { accept: 'application/json', ...authHeaders(conn.auth, key) },
      // Never follow a redirect with the key: fetch strips Authorization across origins, but not api-key.
      redirect: 'manual',
      signal,
    });
  } catch (e) {
    if (limit.expired()) return failed('timeout', `no answer from ${where} within ${timeoutMs / 1000} s`, 'check that the server is running and reachable; a server still loading a model can take a while');
    if (options.signal?.aborted) return failed('cancelled', 'the test was cancelled', '');
    const code = errorCode(e);
    if (code === 'ECONNREFUSED') {
      return failed('refused', `nothing is listening at ${where} (connection refused)`, startHint[preset.id] ?? 'check that the server is running and the host and port in the base URL');
    }
    if (/^(ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|EAI_NODATA)$/.test(code)) {
      return failed('dns', `cannot resolve the host ${endpoint.hostname} (DNS: ${code})`, 'check the host name in the base URL and your network connection');
    }
    if (/TIMEDOUT|TIMEOUT/.test(code)) return failed('timeout', `connecting to ${where} timed out (${code})`, 'check the host, the port and any firewall in between');
    if (/CERT|SSL|TLS|EPROTO|ERR_SSL/i.test(code)) {
      return failed('tls', `TLS failed with ${where} (${code})`, endpoint.protocol === 'https:' ? 'if the server speaks plain http (most local servers do), use http:// in the base URL' : 'check the certificate of the server');
    }
    const msg = e instanceof Error ? e.message : String(e);
    if (e instanceof Error && e.cause instanceof Error && e.cause.message === 'bad port') {
      // The fetch standard blocks ports of old services (9, 25, 6000, …): no request ever leaves.
      return failed('network', `port ${endpoint.port} is a blocked port for HTTP clients`, 'run the server on another port, e.g. 8000');
    }
    return failed('network', `cannot reach ${where}: ${oneLine(code || msg)}`, endpoint.protocol === 'http:' ? 'if the server speaks https, use https:// in the base URL' : 'check the base URL and your network connection');
  }

  let body: string;
  try {
    body = (await readCapped(res, MAX_BODY)).text;
  } catch {
    return failed(limit.expired() ? 'timeout' : 'network', `${where} stopped answering in the middle of the reply`, 'try again; check the server is healthy', res.status);
  }
  const contentType = res.headers.get('content-type') ?? '';
  const said = redactSecret(providerMessage(body), key);
  const quote = said ? `: ${said}` : '';
  const status = res.status;

  if (status >= 300 && status < 400) {
    const to = res.headers.get('location');
    return failed('redirect', `${where} redirects (${status}) to ${to ? oneLine(to, 120) : 'another address'}`, 'use the address it redirects to as the base URL', status);
  }
  if (status === 401) {
    return key === undefined
      ? failed('auth', `${where} requires an API key (401${quote}) and none is set for profile ${conn.profile.id}`, `store one: tidy key set --profile ${conn.profile.id}`, status)
      : failed('auth', `${where} rejected the API key (401${quote})`, `store the right key: tidy key set --profile ${conn.profile.id}`, status);
  }
  if (status === 403) return failed('forbidden', `${where} refused access with this key (403${quote})`, "check the key's permissions and project, or use another key: tidy key set", status);
  if (status === 404) {
    return failed('not_found', `GET ${url} answered 404${looksLikeHtml(contentType, body) ? ' with a web page' : quote}: no OpenAI API at this address`, v1Hint, status);
  }
  if (status === 429) return failed('rate_limit', `${where} is rate limiting (429${quote})`, 'wait a moment, or check your plan and quota', status);
  if (status >= 500) return failed('server', `${where} failed with ${status}${quote}`, 'the server has a problem; try again later or check its log', status);
  if (status < 200 || status >= 300) return failed('http', `${where} answered ${status}${quote}`, v1Hint, status);

  if (looksLikeHtml(contentType, body)) return failed('not_openai', `${url} answered with HTML, not the OpenAI API`, v1Hint, status);
  let data: unknown;
  try {
    data = JSON.parse(body);
  } catch {
    return failed('not_openai', `${url} answered with ${oneLine(contentType, 60) || 'text'}, not JSON: not the OpenAI API`, v1Hint, status);
  }
  const list = typeof data === 'object' && data !== null && 'data' in data && Array.isArray(data.data) ? data.data : null;
  if (!list) return failed('not_openai', `${url} answered JSON without a model list ({"data": [...]}): not the OpenAI API`, v1Hint, status);

  const all = list
    .map((m: unknown) => (typeof m === 'object' && m !== null && 'id' in m && typeof m.id === 'string' ? m.id : null))
    .filter((id): id is string => id !== null)
    .sort();
  const models = all.slice(0, MAX_MODELS);
  // Azure lists base models, not the deployment names requests use; it cannot confirm the model.
  const modelListed = preset.id === 'azure' ? null : all.includes(conn.model) || all.includes(`${conn.model}:latest`);
  const shown = models.slice(0, 8).join(', ') + (all.length > 8 ? ', …' : '');
  const warning =
    modelListed === false
      ? all.length === 0
        ? `${where} lists no models; load one on the server`
        : `the model '${conn.model}' is not among the ${all.length} models ${where} lists (${shown}); set one with: tidy config set model NAME`
      : null;
  const what = `${all.length} model${all.length === 1 ? '' : 's'} listed`;
  const modelNote = modelListed === true ? `, '${conn.model}' among them` : modelListed === null ? ` (Azure lists base models, not deployments: '${conn.model}' is not checked)` : '';
  // A local server runs the model with a context window of its own: read it, so a small one is said before it cuts requests.
  let context: ContextReport | null = null;
  if (options.context !== false && modelListed !== false && readsContextWindow(preset.id)) {
    const left = Math.max(500, Math.min(5_000, timeoutMs - (performance.now() - started)));
    const w = await readContextWindow(conn, { timeoutMs: left, ...(options.signal ? { signal: options.signal } : {}) });
    context = w.known
      ? { tokens: w.tokens, modelMax: w.modelMax, source: w.source, promptTokens: null, budget: null, tooSmall: false, note: `context window ${w.tokens.toLocaleString('en')} tokens (${w.source})` }
      : { tokens: null, modelMax: null, source: w.reason, promptTokens: null, budget: null, tooSmall: false, note: `context window unknown: ${w.reason}` };
  }
  return report({ ok: true, status, models, modelCount: all.length, modelListed, warning, message: `connected to ${where}: ${what}${modelNote}`, context });
}
