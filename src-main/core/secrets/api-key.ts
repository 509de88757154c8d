/**
 * API keys per provider profile. The key is read from the keychain just before each request and handed
 * straight to the HTTP client; nothing here logs it, stores it elsewhere or puts it in an error message.
 *
 * Like a password manager's entry, a stored key is bound to the origin (scheme, host, port) it was saved
 * for: editing a profile's base URL — by hand, from the UI or in the SQLite file — cannot redirect the key
 * to another server until the user saves it again for the new address.
 */
import { endpointOrigin, isInsecureUrl, keyRequired, PRESETS, type KeySource, type KeyStatus, type KeyStorage, type ProviderProfile } from '../../../src-shared/providers';
import type { Failure, Result } from '../../../src-shared/result';
import { redactSecrets } from './redact';
import { KeychainUnavailableError, type SecretStore } from './store';

export const ENV_KEY = 'OPENAI_API_KEY';

/** Why a request cannot get the key it needs; `error — hint` is the one line the CLI prints. */
export class ApiKeyError extends Error implements Failure {
  override name = 'ApiKeyError';
  constructor(
    readonly error: string,
    readonly hint: string,
  ) {
    super(`${error} — ${hint}`);
  }
}

/**
 * A key as typed or piped: surrounding whitespace dropped, then one token of printable ASCII — it becomes
 * an HTTP header value, where a line break would inject headers. Messages never repeat the input.
 */
export function parseApiKey(text: string): Result<string> {
  const key = text.trim();
  const hint = 'paste the key alone, e.g. `echo "$KEY" | tidy key set` or type it at the hidden prompt';
  if (key === '') return { ok: false, error: 'no key was given on stdin', hint };
  if (key.length > 4096) return { ok: false, error: `the key is ${key.length} characters long; keys are at most 4096`, hint };
  if (!/^[\x21-\x7e]+$/.test(key)) {
    return { ok: false, error: 'the key contains spaces, line breaks or non-ASCII characters', hint };
  }
  return { ok: true, value: key };
}

/** Replaces the secret and every long piece of it (redact.ts), for text that came from elsewhere (a server's error body). */
export function redactSecret(text: string, secret: string | undefined): string {
  return redactSecrets(text, [secret], '[redacted]');
}

interface StoredKey {
  key: string;
  /** The origin the key was saved for; absent for an entry someone put in the keychain by hand. */
  origin?: string;
}

/**
 * The origin a key is bound to, in the normal form of src-shared/providers.ts (scheme and host lower
 * case, default port dropped, no trailing dot), so the binding holds however the URL is spelt. A URL
 * that is not an http(s) endpoint has no origin: no key is ever bound to or sent to it.
 */
const originOf = (url: string): string | undefined => endpointOrigin(url);

export function encodeStoredKey(key: string, baseUrl: string): string {
  const origin = originOf(baseUrl);
  if (origin === undefined) throw new ApiKeyError(`cannot bind the key to ${JSON.stringify(baseUrl.slice(0, 120))}: not an http(s) URL`, 'fix the base URL of the profile first');
  return JSON.stringify({ v: 1, key, origin });
}

function decodeStoredKey(secret: string): StoredKey {
  try {
    const v: unknown = JSON.parse(secret);
    if (typeof v === 'object' && v !== null && 'key' in v && typeof v.key === 'string') {
      return 'origin' in v && typeof v.origin === 'string' ? { key: v.key, origin: v.origin } : { key: v.key };
    }
  } catch {
    // Not ours: a raw key stored with secret-tool or Keychain Access, trusted as the user's own.
  }
  return { key: secret.trim() };
}

export interface KeyTarget {
  profile: ProviderProfile;
  /** The URL requests go to: the profile's, or a --base-url override. */
  baseUrl: string;
}

export interface KeyDeps {
  secrets: SecretStore;
  /** Keys kept for this session only (memory); looked at before `secrets`. */
  session?: SecretStore;
  env?: Record<string, string | undefined>;
  /** One line for the user when the keychain is unavailable and the environment stands in. */
  onNotice?: (line: string) => void;
}

interface Inspection {
  stored: boolean;
  keychain: KeyStatus['keychain'];
  found: { key: string; source: KeySource } | null;
  problem: ApiKeyError | null;
  required: boolean;
  notice: string | null;
}

async function inspect({ profile, baseUrl }: KeyTarget, deps: KeyDeps): Promise<Inspection> {
  const required = keyRequired(profile, baseUrl);
  const keySet = `tidy key set --profile ${profile.id}`;
  let unavailable: KeychainUnavailableError | null = null;
  let stored: StoredKey | undefined;
  // A key kept for this session only wins: the user chose it now, because the keychain could not be used.
  const held = await deps.session?.get(profile.id);
  const storedIn: KeySource = held !== undefined ? 'session' : 'keychain';
  if (held !== undefined) stored = decodeStoredKey(held);
  try {
    if (held === undefined) {
      const raw = await deps.secrets.get(profile.id);
      if (raw !== undefined) stored = decodeStoredKey(raw);
    } else {
      const probe = await deps.secrets.probe();
      if (!probe.available) unavailable = probe.error;
    }
  } catch (e) {
    if (!(e instanceof KeychainUnavailableError)) throw e;
    unavailable = e;
  }
  const keychain: KeyStatus['keychain'] = unavailable ? { available: false, problem: unavailable.message } : { available: true };
  const base = { stored: stored !== undefined, keychain, required };

  let mismatch: string | null = null;
  const origin = originOf(baseUrl);
  if (stored) {
    // The stored origin is compared in normal form too: entries written by hand or by older versions.
    if (stored.origin !== undefined && (origin === undefined || (originOf(stored.origin) ?? stored.origin) !== origin)) {
      mismatch = stored.origin;
    } else if (isInsecureUrl(baseUrl)) {
      const problem = new ApiKeyError(
        `refusing to send the API key of profile ${profile.id} over plain http to ${origin?.replace(/^[a-z]+:\/\//, '') ?? 'an address that is not an http(s) URL'}`,
        `use an https:// base URL, or if that server needs no key: tidy key clear --profile ${profile.id}`,
      );
      return { ...base, found: null, problem, notice: null };
    } else {
      return { ...base, found: { key: stored.key, source: storedIn }, problem: null, notice: null };
    }
  }

  // The environment stands in for the keychain, but an OpenAI key is never handed to a local server
  // (it needs none) nor sent in clear text.
  const envKey = deps.env?.[ENV_KEY]?.trim();
  if (envKey && !PRESETS[profile.preset].local && !isInsecureUrl(baseUrl)) {
    if (!parseApiKey(envKey).ok) {
      const problem = new ApiKeyError(`${ENV_KEY} is not a usable key (it contains spaces or other characters)`, `set it to the key alone, or store one: ${keySet}`);
      return { ...base, found: null, problem, notice: null };
    }
    const notice = unavailable ? `no OS keychain available (${unavailable.reason}); using ${ENV_KEY} from the environment` : null;
    return { ...base, found: { key: envKey, source: 'env' }, problem: null, notice };
  }

  let problem: ApiKeyError | null = null;
  if (mismatch !== null && required) {
    problem = new ApiKeyError(
      `the key of profile ${profile.id} was saved for ${mismatch}, not ${origin ?? 'this address'}`,
      `to send it to the new address, save it again: ${keySet}`,
    );
  } else if (required && unavailable) {
    problem = new ApiKeyError(`no API key for profile ${profile.id}: no OS keychain available (${unavailable.reason})`, `${unavailable.fix}, or pick a local server, which needs no key`);
  } else if (required) {
    // The two ways forward, for a first run as much as for a lost key: a key, or a model that needs none.
    problem = new ApiKeyError(
      `no API key for profile ${profile.id}`,
      `add a key (in Settings, with \`${keySet}\`, or in ${ENV_KEY}) or pick a local server, which needs no key (Ollama, LM Studio, llama.cpp)`,
    );
  }
  return { ...base, found: null, problem, notice: null };
}

export type ResolvedKey = { key: string; source: KeySource } | { key: undefined; source: null };

/**
 * The key for one request: the profile's keychain entry (if saved for this origin), else OPENAI_API_KEY
 * (not for local presets), else none — fine for local servers. Throws ApiKeyError when the endpoint needs
 * a key and there is none usable, before anything is sent.
 */
export async function resolveApiKey(target: KeyTarget, deps: KeyDeps): Promise<ResolvedKey> {
  const r = await inspect(target, deps);
  if (r.problem) throw r.problem;
  if (r.notice) deps.onNotice?.(r.notice);
  return r.found ?? { key: undefined, source: null };
}

/** What the UI and `tidy key status` may know: whether a key is there and usable — never the key. */
export async function keyStatus(target: KeyTarget, deps: KeyDeps): Promise<KeyStatus> {
  const r = await inspect(target, deps);
  return {
    profile: target.profile.id,
    stored: r.stored,
    source: r.found?.source ?? null,
    storage: storageOf(r.found?.source ?? null, deps.secrets),
    required: r.required,
    keychain: r.keychain,
    problem: r.problem ? { error: r.problem.error, hint: r.problem.hint } : null,
  };
}

/** Where a key from `source` is kept: the keychain source is the OS keychain or safeStorage, as the store says. */
function storageOf(source: KeySource | null, secrets: SecretStore): KeyStorage | null {
  if (source === 'keychain') return secrets.kind === 'safe_storage' ? 'safe_storage' : 'keychain';
  return source;
}

/**
 * Saves (or replaces) a profile's key in the keychain, bound to the profile's current origin. Throws
 * KeychainUnavailableError: there is deliberately no plain-text fallback.
 */
export async function setApiKey(profile: ProviderProfile, key: string, secrets: SecretStore): Promise<void> {
  const parsed = parseApiKey(key);
  if (!parsed.ok) throw new ApiKeyError(parsed.error, parsed.hint);
  await secrets.set(profile.id, encodeStoredKey(parsed.value, profile.baseUrl));
}

/** Removes a profile's key; false when none was stored. Throws KeychainUnavailableError. */
export function clearApiKey(profileId: string, secrets: SecretStore): Promise<boolean> {
  return secrets.clear(profileId);
}
