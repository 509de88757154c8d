/**
 * A Connection is everything a model request needs to reach its endpoint: the profile's URL and model
 * (or the --base-url / --model overrides), how the key travels, Azure's api-version, and a function that
 * fetches the key just before each request. The agent and test connection both start from one.
 */
import { BaseUrl, ModelName, PRESETS, keyRequired, parseEndpointUrl, type AuthStyle, type KeyStatus, type ProviderProfile } from '../../../src-shared/providers';
import type { Result } from '../../../src-shared/result';
import { keyStatus, resolveApiKey, type KeyDeps, type ResolvedKey } from '../secrets/api-key';
import type { Db } from '../store/db';
import { activeProfile, getProfile, listProfiles } from './profiles';
import { createOpenAIModel } from '../llm/openai';
import type { Model } from '../llm/port';
import { quirkMemory } from '../llm/quirk-store';

export interface Connection {
  readonly profile: ProviderProfile;
  /** Where requests go, in the normal form of src-shared/providers.ts (lower-case scheme and host, no trailing slash). */
  readonly baseUrl: string;
  readonly model: string;
  readonly auth: AuthStyle;
  /** Query parameters for every request: Azure's api-version on deployment URLs, else empty. */
  readonly query: Readonly<Record<string, string>>;
  /** The endpoint refuses requests without a key. */
  readonly keyRequired: boolean;
  /**
   * The key for the next request, read from the keychain now (never cached); undefined when none is
   * needed or available. Throws ApiKeyError ("no API key for profile openai …") when one is needed.
   * This is the `getApiKey` the model adapter calls right before each request. `baseUrl`: the URL the
   * request really goes to, when that is not the connection's (the origin binding and the plain-http
   * check are made for it).
   */
  apiKey(baseUrl?: string): Promise<string | undefined>;
  /** The same, with where the key came from (keychain or environment). */
  resolveKey(): Promise<ResolvedKey>;
  /** Whether a usable key is there, for a check before a run starts or for the UI; never the key. */
  keyStatus(): Promise<KeyStatus>;
  /** The database the connection was resolved from: models made from it remember server quirks there. */
  readonly db?: Db;
}

export interface ConnectionOverrides {
  /** A profile other than the active one. */
  profile?: string | undefined;
  /** --base-url / TIDY_BASE_URL: this run only. */
  baseUrl?: string | undefined;
  /** --model / TIDY_MODEL: this run only. */
  model?: string | undefined;
}

/** The headers that carry the key: `Authorization: Bearer …`, or Azure's `api-key`. None without a key. */
export function authHeaders(auth: AuthStyle, key: string | undefined): Record<string, string> {
  if (!key) return {};
  return auth === 'api-key' ? { 'api-key': key } : { authorization: `Bearer ${key}` };
}

/** A URL in normal form; one that is not an http(s) URL stays as it is (no key goes to it, and requests to it fail). */
const normalUrl = (url: string): string => {
  const e = parseEndpointUrl(url);
  return e.ok ? e.url : url;
};

export function connectionFor(profile: ProviderProfile, deps: KeyDeps, overrides: Omit<ConnectionOverrides, 'profile'> = {}, db?: Db): Connection {
  const baseUrl = normalUrl(overrides.baseUrl ?? profile.baseUrl);
  const target = { profile, baseUrl };
  return {
    profile,
    baseUrl,
    model: overrides.model ?? profile.model,
    auth: PRESETS[profile.preset].auth,
    query: profile.apiVersion !== undefined ? { 'api-version': profile.apiVersion } : {},
    keyRequired: keyRequired(profile, baseUrl),
    apiKey: async (url) => (await resolveApiKey(url === undefined ? target : { profile, baseUrl: normalUrl(url) }, deps)).key,
    resolveKey: () => resolveApiKey(target, deps),
    keyStatus: () => keyStatus(target, deps),
    ...(db ? { db } : {}),
  };
}

/**
 * The connection of the active profile (or `overrides.profile`), with validated overrides. A failure is
 * a usage error: an unknown profile, a bad URL or model name.
 */
export function resolveConnection(db: Db, deps: KeyDeps, overrides: ConnectionOverrides = {}): Result<Connection> {
  let profile: ProviderProfile;
  if (overrides.profile !== undefined) {
    const p = getProfile(db, overrides.profile);
    if (!p) {
      return { ok: false, error: `no provider profile '${overrides.profile}'`, hint: `use one of: ${listProfiles(db).map((x) => x.id).join(', ')}` };
    }
    profile = p;
  } else {
    profile = activeProfile(db);
  }
  let baseUrl: string | undefined;
  if (overrides.baseUrl !== undefined) {
    const parsed = BaseUrl.safeParse(overrides.baseUrl);
    if (!parsed.success) return { ok: false, error: `base URL ${JSON.stringify(overrides.baseUrl)} ${parsed.error.issues[0]?.message ?? 'is not valid'}`, hint: 'e.g. --base-url http://127.0.0.1:11434/v1' };
    baseUrl = parsed.data;
  }
  let model: string | undefined;
  if (overrides.model !== undefined) {
    const parsed = ModelName.safeParse(overrides.model);
    if (!parsed.success) return { ok: false, error: `model name ${parsed.error.issues[0]?.message ?? 'is not valid'}`, hint: 'e.g. --model gpt-4o-mini' };
    model = parsed.data;
  }
  return { ok: true, value: connectionFor(profile, deps, { baseUrl, model }, db) };
}

export interface ConnectionModelDeps {
  /**
   * Where the endpoint's quirks are remembered across runs (see llm/quirk-store.ts). Default: the
   * connection's own database (set by resolveConnection); without either, each model learns afresh.
   */
  db?: Db | undefined;
}

/**
 * The model for a run over this connection. The key is read just before each request (never kept), and
 * decided for the URL the request goes to, in normal form; Azure's header style and api-version come
 * with the connection. What the server refused before (max_tokens, temperature, …) is loaded now.
 */
export function connectionModel(c: Connection, endpoint: { baseUrl: string; model: string }, deps: ConnectionModelDeps = {}): Model {
  const baseUrl = normalUrl(endpoint.baseUrl);
  const db = deps.db ?? c.db;
  return createOpenAIModel({
    baseUrl,
    model: endpoint.model,
    apiKey: () => c.apiKey(baseUrl),
    auth: c.auth,
    query: c.query,
    ...(db ? { quirks: quirkMemory(db, { baseUrl, model: endpoint.model }) } : {}),
  });
}

/**
 * Reads an answer's body up to `max` bytes (a server may send anything): the text read, and whether it
 * was cut there (the rest is not read).
 */
export async function readCapped(res: Response, max: number): Promise<{ text: string; cut: boolean }> {
  if (!res.body) return { text: '', cut: false };
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    total += value.byteLength;
    if (total > max) {
      await reader.cancel();
      return { text: Buffer.concat(chunks).toString('utf8'), cut: true };
    }
  }
  return { text: Buffer.concat(chunks).toString('utf8'), cut: false };
}
