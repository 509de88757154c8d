import { describe, expect, it } from 'vitest';
import {
  ApiKeyError,
  createMemorySecretStore,
  createUnavailableSecretStore,
  encodeStoredKey,
  keyStatus,
  parseApiKey,
  redactSecret,
  resolveApiKey,
  setApiKey,
  type KeyDeps,
} from '../../../src-main/core';
import { DEFAULT_PROFILES, type ProviderProfile } from '../../../src-shared/providers';

const openai = DEFAULT_PROFILES.find((p) => p.id === 'openai')!;
const ollama = DEFAULT_PROFILES.find((p) => p.id === 'ollama')!;
const custom: ProviderProfile = { id: 'router', preset: 'custom', baseUrl: 'https://router.example/api/v1', model: 'm' };
const lanHttp: ProviderProfile = { id: 'lan', preset: 'custom', baseUrl: 'http://192.168.1.20:8000/v1', model: 'm' };

const noKeychain = () => createUnavailableSecretStore('Secret Service not running', 'install and unlock gnome-keyring, or set OPENAI_API_KEY');
const at = (profile: ProviderProfile, baseUrl = profile.baseUrl) => ({ profile, baseUrl });

async function failure(p: Promise<unknown>): Promise<ApiKeyError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiKeyError);
  return e as ApiKeyError;
}

describe('parseApiKey', () => {
  it('trims what a pipe or a paste adds, and keeps the key as it is', () => {
    expect(parseApiKey('  sk-proj-AbC_123.x\r\n')).toEqual({ ok: true, value: 'sk-proj-AbC_123.x' });
  });

  it('refuses empty input, inner whitespace, line breaks (header injection) and non-ASCII, without repeating the input', () => {
    for (const bad of ['', '  \n', 'sk-a b', 'sk-a\nX-Evil: 1', 'sk-ä', 'x'.repeat(4097)]) {
      const r = parseApiKey(bad);
      expect(r.ok).toBe(false);
      if (!r.ok && bad.trim()) expect(r.error + r.hint).not.toContain(bad.trim().slice(0, 6));
    }
  });
});

describe('resolveApiKey: keychain, then OPENAI_API_KEY, then none', () => {
  it('uses the profile’s keychain entry first, even when the environment has a key', async () => {
    const secrets = createMemorySecretStore();
    await setApiKey(openai, 'sk-from-keychain', secrets);
    const r = await resolveApiKey(at(openai), { secrets, env: { OPENAI_API_KEY: 'sk-from-env' } });
    expect(r).toEqual({ key: 'sk-from-keychain', source: 'keychain' });
  });

  it('falls back to OPENAI_API_KEY, and to no key for a local server', async () => {
    const secrets = createMemorySecretStore();
    expect(await resolveApiKey(at(openai), { secrets, env: { OPENAI_API_KEY: ' sk-env ' } })).toEqual({ key: 'sk-env', source: 'env' });
    expect(await resolveApiKey(at(ollama), { secrets, env: {} })).toEqual({ key: undefined, source: null });
  });

  it('never hands OPENAI_API_KEY to a local preset, which needs none', async () => {
    const r = await resolveApiKey(at(ollama), { secrets: createMemorySecretStore(), env: { OPENAI_API_KEY: 'sk-env' } });
    expect(r.key).toBeUndefined();
  });

  it('keeps two profiles apart', async () => {
    const secrets = createMemorySecretStore();
    await setApiKey(openai, 'sk-openai', secrets);
    await setApiKey(custom, 'sk-router', secrets);
    expect((await resolveApiKey(at(openai), { secrets })).key).toBe('sk-openai');
    expect((await resolveApiKey(at(custom), { secrets })).key).toBe('sk-router');
    expect((await resolveApiKey(at(ollama), { secrets })).key).toBeUndefined();
  });

  it('fails before sending when a cloud preset has no key, naming the profile and the fix', async () => {
    const e = await failure(resolveApiKey(at(openai), { secrets: createMemorySecretStore(), env: {} }));
    expect(e.error).toBe('no API key for profile openai');
    expect(e.hint).toContain('tidy key set --profile openai');
  });

  it('with no key for OpenAI, says to add a key or pick a local server', async () => {
    const e = await failure(resolveApiKey(at(openai), { secrets: createMemorySecretStore(), env: {} }));
    expect(e.hint).toMatch(/^add a key \(in Settings, .*\) or pick a local server, which needs no key/);
    expect(`${e.error} — ${e.hint}`).not.toMatch(/\n/);
  });

  it('needs no key when a cloud profile is pointed at this machine (a proxy, a test server)', async () => {
    const r = await resolveApiKey(at(openai, 'http://127.0.0.1:9999/v1'), { secrets: createMemorySecretStore(), env: {} });
    expect(r).toEqual({ key: undefined, source: null });
  });

  it('without a keychain: uses the environment with one notice, or fails with the keychain’s reason and fix', async () => {
    const notices: string[] = [];
    const deps: KeyDeps = { secrets: noKeychain(), env: { OPENAI_API_KEY: 'sk-env' }, onNotice: (l) => notices.push(l) };
    expect(await resolveApiKey(at(openai), deps)).toEqual({ key: 'sk-env', source: 'env' });
    expect(notices).toEqual(['no OS keychain available (Secret Service not running); using OPENAI_API_KEY from the environment']);

    const e = await failure(resolveApiKey(at(openai), { secrets: noKeychain(), env: {} }));
    expect(e.error).toBe('no API key for profile openai: no OS keychain available (Secret Service not running)');
    expect(e.hint).toBe('install and unlock gnome-keyring, or set OPENAI_API_KEY, or pick a local server, which needs no key');
    // A local server goes on without a key, and without nagging about the keychain.
    expect(await resolveApiKey(at(ollama), { secrets: noKeychain(), env: {}, onNotice: (l) => notices.push(l) })).toEqual({ key: undefined, source: null });
    expect(notices).toHaveLength(1);
  });

  it('refuses an OPENAI_API_KEY that would break the Authorization header', async () => {
    const e = await failure(resolveApiKey(at(openai), { secrets: createMemorySecretStore(), env: { OPENAI_API_KEY: 'sk-1\nX-Injected: yes' } }));
    expect(e.error).toContain('OPENAI_API_KEY is not a usable key');
    expect(e.message).not.toContain('Injected');
  });
});

describe('a stored key is bound to its origin', () => {
  it('is not sent once the profile points elsewhere; saving it again moves it', async () => {
    const secrets = createMemorySecretStore();
    await setApiKey(openai, 'sk-bound', secrets);
    const moved = { ...openai, baseUrl: 'https://collector.example/v1' };
    const e = await failure(resolveApiKey(at(moved), { secrets, env: {} }));
    expect(e.error).toBe('the key of profile openai was saved for https://api.openai.com, not https://collector.example');
    expect(e.hint).toContain('tidy key set --profile openai');
    expect(e.message).not.toContain('sk-bound');

    // The same origin with another path is the same server.
    expect((await resolveApiKey(at(openai, 'https://api.openai.com/v2'), { secrets })).key).toBe('sk-bound');
    await setApiKey(moved, 'sk-bound', secrets);
    expect((await resolveApiKey(at(moved), { secrets })).key).toBe('sk-bound');
  });

  it('a per-run --base-url override to another server does not get the key (a loopback one simply goes without)', async () => {
    const secrets = createMemorySecretStore();
    await setApiKey(openai, 'sk-bound', secrets);
    expect(await resolveApiKey(at(openai, 'http://127.0.0.1:4000/v1'), { secrets })).toEqual({ key: undefined, source: null });
    expect((await resolveApiKey(at(openai, 'http://127.0.0.1:4000/v1'), { secrets, env: { OPENAI_API_KEY: 'sk-env' } })).source).toBe('env');
  });

  it('accepts a raw key put in the keychain by hand (no origin recorded)', async () => {
    const secrets = createMemorySecretStore({ router: 'sk-raw-by-hand\n' });
    expect((await resolveApiKey(at(custom), { secrets })).key).toBe('sk-raw-by-hand');
  });

  it('stores JSON with the origin, never the path or anything else', () => {
    expect(JSON.parse(encodeStoredKey('sk-1', 'https://h.example:8443/openai/v1'))).toEqual({ v: 1, key: 'sk-1', origin: 'https://h.example:8443' });
  });
});

describe('plain http', () => {
  it('a stored key is never sent in clear text to another machine', async () => {
    const secrets = createMemorySecretStore();
    await setApiKey(lanHttp, 'sk-lan', secrets);
    const e = await failure(resolveApiKey(at(lanHttp), { secrets }));
    expect(e.error).toBe('refusing to send the API key of profile lan over plain http to 192.168.1.20:8000');
  });

  it('OPENAI_API_KEY is simply not sent there; loopback http is fine', async () => {
    expect((await resolveApiKey(at(lanHttp), { secrets: createMemorySecretStore(), env: { OPENAI_API_KEY: 'sk-env' } })).key).toBeUndefined();
    const local = { ...custom, baseUrl: 'http://localhost:8000/v1' };
    expect((await resolveApiKey(at(local), { secrets: createMemorySecretStore(), env: { OPENAI_API_KEY: 'sk-env' } })).key).toBe('sk-env');
  });
});

describe('keyStatus: what the UI may know', () => {
  it('says whether a key is stored and which source a request uses — never the key', async () => {
    const secrets = createMemorySecretStore();
    await setApiKey(openai, 'sk-secret-value', secrets);
    const s = await keyStatus(at(openai), { secrets, env: { OPENAI_API_KEY: 'sk-env-value' } });
    expect(s).toEqual({ profile: 'openai', stored: true, source: 'keychain', storage: 'keychain', required: true, keychain: { available: true }, problem: null });
    expect(JSON.stringify(s)).not.toMatch(/sk-/);
  });

  it('reports a missing key and an unavailable keychain as a problem with its fix', async () => {
    const s = await keyStatus(at(openai), { secrets: noKeychain(), env: {} });
    expect(s.stored).toBe(false);
    expect(s.source).toBeNull();
    expect(s.keychain).toEqual({ available: false, problem: 'no OS keychain available (Secret Service not running): install and unlock gnome-keyring, or set OPENAI_API_KEY' });
    expect(s.problem?.error).toBe('no API key for profile openai: no OS keychain available (Secret Service not running)');
  });
});

describe('redactSecret', () => {
  it('replaces every occurrence of the key in text from elsewhere', () => {
    expect(redactSecret('bad key sk-abc123 (sk-abc123)', 'sk-abc123')).toBe('bad key [redacted] ([redacted])');
    expect(redactSecret('unchanged', undefined)).toBe('unchanged');
  });
});
