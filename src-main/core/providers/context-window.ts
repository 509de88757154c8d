/**
 * The context window a local server runs a model with, read from the server's own API (not the OpenAI
 * one, which does not say): Ollama `POST /api/show {model}` (the `num_ctx` parameter it was given;
 * `model_info["<arch>.context_length"]` is the most the model can take), else `GET /api/ps` (the
 * `context_length` a loaded model runs with: what OLLAMA_CONTEXT_LENGTH or Ollama's own default, which
 * depends on the machine's VRAM, gave it), else unknown — never a guessed default; LM Studio
 * `GET /api/v0/models/<id>` (`loaded_context_length`, else `max_context_length`), llama.cpp `GET /props`
 * (`default_generation_settings.n_ctx`, or `n_ctx`). Bounded: one time limit, a capped body, numbers in
 * a sane range; anything unreadable is "unknown" with a one-line reason, never an error.
 */
import type { PresetId } from '../../../src-shared/providers';
import { parseEndpointUrl } from '../../../src-shared/providers';
import { timeLimit } from '../abort';
import { authHeaders, readCapped, type Connection } from './connection';

const MAX_BODY = 1024 * 1024;
const MIN_TOKENS = 256;
const MAX_TOKENS = 100_000_000;

export type ContextWindow =
  | {
      known: true;
      /** Tokens the server runs the model with: prompt and answer together. */
      tokens: number;
      /** The most the model itself can take, when the server says. */
      modelMax: number | null;
      /** Where the number came from, in words ("num_ctx of the model", "Ollama's default"). */
      source: string;
    }
  | { known: false; reason: string };

/** Whether the context window of this kind of server can be read. */
export const readsContextWindow = (preset: PresetId): boolean => preset === 'ollama' || preset === 'lmstudio' || preset === 'llamacpp';

const tokensOf = (v: unknown): number | null => {
  const n = typeof v === 'string' && /^\d{1,12}$/.test(v.trim()) ? Number(v) : v;
  return typeof n === 'number' && Number.isInteger(n) && n >= MIN_TOKENS && n <= MAX_TOKENS ? n : null;
};

const record = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);

/** `num_ctx 8192` in Ollama's `parameters` text (one parameter a line). */
function numCtx(parameters: unknown): number | null {
  if (typeof parameters !== 'string') return null;
  const m = /^\s*num_ctx\s+(\d{1,12})\s*$/m.exec(parameters.slice(0, 64_000));
  return m ? tokensOf(m[1]) : null;
}

/** The model's own limit in Ollama's model_info: the key ending in `.context_length` (`llama.context_length`). */
function modelInfoMax(info: unknown): number | null {
  const r = record(info);
  if (!r) return null;
  const arch = typeof r['general.architecture'] === 'string' ? r['general.architecture'] : null;
  if (arch && tokensOf(r[`${arch}.context_length`]) !== null) return tokensOf(r[`${arch}.context_length`]);
  for (const [k, v] of Object.entries(r).slice(0, 2_000)) if (k.endsWith('.context_length') && tokensOf(v) !== null) return tokensOf(v);
  return null;
}

/** The `context_length` `/api/ps` gives the loaded model `model` ("qwen3" is "qwen3:latest"), if it is loaded. */
function loadedContext(ps: Record<string, unknown>, model: string): number | null {
  const models = Array.isArray(ps['models']) ? (ps['models'] as unknown[]).slice(0, 1_000) : [];
  const names = new Set([model, model.includes(':') ? model : `${model}:latest`]);
  for (const m of models) {
    const r = record(m);
    if (r && (names.has(String(r['name'])) || names.has(String(r['model'])))) return tokensOf(r['context_length']);
  }
  return null;
}

async function readJson(res: Response): Promise<unknown> {
  if (!res.body) return null;
  const { text, cut } = await readCapped(res, MAX_BODY);
  if (cut) throw new RangeError(`its answer is larger than ${MAX_BODY / 1024 / 1024} MB`);
  return JSON.parse(text) as unknown;
}

export interface ContextWindowOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
  fetch?: typeof fetch;
}

/** Reads the context window of the connection's model from a local server; `known: false` with the reason otherwise. */
export async function readContextWindow(conn: Connection, options: ContextWindowOptions = {}): Promise<ContextWindow> {
  const preset = conn.profile.preset;
  if (!readsContextWindow(preset)) return { known: false, reason: 'the server does not say its context window' };
  const endpoint = parseEndpointUrl(conn.baseUrl);
  if (!endpoint.ok) return { known: false, reason: `the base URL ${endpoint.error}` };
  // The servers' own APIs sit beside the OpenAI one: http://127.0.0.1:11434/v1 → http://127.0.0.1:11434.
  const root = endpoint.url.replace(/\/v1$/, '');
  const timeoutMs = options.timeoutMs ?? 5_000;
  const limit = timeLimit(timeoutMs, [options.signal]);
  const doFetch = options.fetch ?? fetch;
  let key: string | undefined;
  try {
    key = await conn.apiKey();
  } catch {
    key = undefined;
  }
  const headers = { accept: 'application/json', ...authHeaders(conn.auth, key) };
  const ask = async (path: string, body?: unknown): Promise<Record<string, unknown>> => {
    const res = await doFetch(`${root}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      redirect: 'manual',
      signal: limit.signal,
    });
    if (res.status !== 200) {
      await res.body?.cancel().catch(() => undefined);
      throw new RangeError(`${path} answered ${res.status}`);
    }
    const data = record(await readJson(res));
    if (!data) throw new RangeError(`${path} did not answer a JSON object`);
    return data;
  };
  try {
    if (preset === 'ollama') {
      const show = await ask('/api/show', { model: conn.model });
      const modelMax = modelInfoMax(show['model_info']);
      const own = numCtx(show['parameters']);
      if (own !== null) return { known: true, tokens: own, modelMax, source: 'the num_ctx of the model' };
      // No num_ctx: the server's default applies (OLLAMA_CONTEXT_LENGTH, else one that depends on the VRAM),
      // which only a loaded model shows. An older Ollama without `context_length` in /api/ps says nothing.
      const loaded = loadedContext(await ask('/api/ps'), conn.model);
      if (loaded !== null) return { known: true, tokens: loaded, modelMax, source: 'the context length Ollama has it loaded with' };
      return { known: false, reason: 'the model sets no num_ctx and Ollama does not say the context length of an unloaded model' };
    }
    if (preset === 'lmstudio') {
      const info = await ask(`/api/v0/models/${encodeURIComponent(conn.model)}`);
      const loaded = tokensOf(info['loaded_context_length']);
      const max = tokensOf(info['max_context_length']);
      if (loaded !== null) return { known: true, tokens: loaded, modelMax: max, source: 'the context length it is loaded with' };
      if (max !== null) return { known: true, tokens: max, modelMax: max, source: 'the most the model takes (it is not loaded yet)' };
      return { known: false, reason: 'LM Studio did not say the context length' };
    }
    const props = await ask('/props');
    const n = tokensOf(record(props['default_generation_settings'])?.['n_ctx']) ?? tokensOf(props['n_ctx']);
    if (n === null) return { known: false, reason: 'llama.cpp did not say n_ctx' };
    return { known: true, tokens: n, modelMax: null, source: 'the --ctx-size llama-server runs with' };
  } catch (e) {
    if (limit.expired()) return { known: false, reason: `no answer about the context window within ${timeoutMs / 1000} s` };
    if (options.signal?.aborted) return { known: false, reason: 'cancelled' };
    const why = e instanceof SyntaxError ? 'its answer is not JSON' : e instanceof Error ? e.message : String(e);
    return { known: false, reason: `could not read the context window: ${why.replace(/\s+/g, ' ').slice(0, 160)}` };
  }
}
