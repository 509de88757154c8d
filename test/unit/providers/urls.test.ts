/**
 * One normal form for endpoint URLs, used by every security decision and for storing them: a spelling
 * (`HTTP://`, a mixed-case host, a trailing dot, a default port) can no longer make the plain-http check,
 * the loopback check or the key's origin binding disagree with where the request goes.
 */
import { describe, expect, it } from 'vitest';
import {
  addProfile,
  ApiKeyError,
  connectionFor,
  createMemorySecretStore,
  encodeStoredKey,
  listProfiles,
  resolveApiKey,
  resolveConnection,
  setApiKey,
  updateProfile,
  writeSetting,
} from '../../../src-main/core';
import { BaseUrl, endpointOrigin, isInsecureUrl, isLoopbackUrl, keyRequired, parseEndpointUrl, type ProviderProfile } from '../../../src-shared/providers';
import { okValue, tempDb } from '../../support/db';

const normal = (url: string): string => {
  const e = parseEndpointUrl(url);
  if (!e.ok) throw new Error(`${url}: ${e.error}`);
  return e.url;
};
const refusal = (url: string): string => {
  const e = parseEndpointUrl(url);
  if (e.ok) throw new Error(`${url} was accepted as ${e.url}`);
  return e.error;
};

describe('parseEndpointUrl', () => {
  it.each([
    ['HTTP://Example.COM:80/v1/', 'http://example.com/v1'],
    ['hTTps://API.OpenAI.com:443/v1', 'https://api.openai.com/v1'],
    ['https://API.OpenAI.com:8443/V1', 'https://api.openai.com:8443/V1'],
    ['http://127.0.0.1./v1', 'http://127.0.0.1/v1'],
    ['http://LocalHost.:11434/v1//', 'http://localhost:11434/v1'],
    ['http://[0:0:0:0:0:0:0:1]:8080/v1', 'http://[::1]:8080/v1'],
    ['http://[::1]/v1', 'http://[::1]/v1'],
    ['http://2130706433/v1', 'http://127.0.0.1/v1'],
    ['http://0x7f.1:1234', 'http://127.0.0.1:1234'],
    ['  https://router.example/api/v1/  ', 'https://router.example/api/v1'],
    ['https://bücher.example/v1', 'https://xn--bcher-kva.example/v1'],
  ])('%s → %s', (input, expected) => expect(normal(input)).toBe(expected));

  it('refuses what is not an http(s) endpoint, with a line that says what is wrong', () => {
    expect(refusal('ftp://x.example/v1')).toBe('must be an http(s) URL, e.g. http://127.0.0.1:11434/v1');
    expect(refusal('localhost:11434/v1')).toBe('must be an http(s) URL, e.g. http://127.0.0.1:11434/v1');
    expect(refusal('javascript:alert(1)')).toBe('must be an http(s) URL, e.g. http://127.0.0.1:11434/v1');
    expect(refusal('http://./v1')).toBe('must name a host, e.g. http://127.0.0.1:11434/v1');
    // The URL parser would delete these and read another host; they are refused instead.
    expect(refusal('http://127.0.0.1\n.evil.example/v1')).toBe('must not contain spaces, line breaks or control characters');
    expect(refusal('http://127.0.0.1\t.evil.example/v1')).toBe('must not contain spaces, line breaks or control characters');
    expect(refusal('http://exa mple.com/v1')).toBe('must not contain spaces, line breaks or control characters');
  });

  it('reports credentials and a query without keeping them in the normal form', () => {
    const e = parseEndpointUrl('https://user:sk-secret@H.example/v1?x=1');
    expect(e).toMatchObject({ ok: true, url: 'https://h.example/v1', origin: 'https://h.example', hasCredentials: true, hasQuery: true });
    expect(endpointOrigin('HTTPS://H.example:443/v1/')).toBe('https://h.example');
    expect(endpointOrigin('not a url')).toBeUndefined();
  });
});

describe('decisions are made on the normal form', () => {
  it.each([
    ['HTTP://api.example.com/v1', false, true],
    ['Http://API.Example.com./v1', false, true],
    ['hTTps://api.example.com/v1', false, false],
    ['HTTP://LOCALHOST:1234/v1', true, false],
    ['http://127.0.0.1./v1', true, false],
    ['http://localhost./v1', true, false],
    ['http://[::1]:8080/v1', true, false],
    ['http://[0:0:0:0:0:0:0:1]/v1', true, false],
    ['http://127.0.0.1\n.evil.example/v1', false, true],
    ['http://127.0.0.1.evil.example/v1', false, true],
    ['HTTP://user:pw@api.example.com/v1', false, true],
    ['garbage', false, true],
  ])('%j: loopback %s, plain http beyond this machine %s', (url, loopback, insecure) => {
    expect(isLoopbackUrl(url)).toBe(loopback);
    expect(isInsecureUrl(url)).toBe(insecure);
  });

  it('a cloud preset pointed at this machine in capitals needs no key; pointed elsewhere it does', () => {
    expect(keyRequired({ preset: 'openai' }, 'HTTP://LOCALHOST:8080/v1')).toBe(false);
    expect(keyRequired({ preset: 'openai' }, 'HTTPS://evil.example/v1')).toBe(true);
  });
});

describe('the API key', () => {
  const secrets = createMemorySecretStore();
  // A profile as older versions stored it (the schema now normalises, so it is written by hand here).
  const upper: ProviderProfile = { id: 'proxy', preset: 'custom', baseUrl: 'HTTP://api.example.com/v1', model: 'm' };

  it('is not sent over plain http when the scheme is upper case', async () => {
    const store = createMemorySecretStore({ proxy: JSON.stringify({ v: 1, key: 'sk-proxy-123456789', origin: 'http://api.example.com' }) });
    const e = await resolveApiKey({ profile: upper, baseUrl: upper.baseUrl }, { secrets: store, env: {} }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(e).toBeInstanceOf(ApiKeyError);
    expect((e as ApiKeyError).error).toBe('refusing to send the API key of profile proxy over plain http to api.example.com');
    const conn = connectionFor(upper, { secrets: store, env: {} });
    expect(conn.baseUrl).toBe('http://api.example.com/v1');
    await expect(conn.apiKey()).rejects.toThrow(/over plain http/);
    // Nor is OPENAI_API_KEY from the environment.
    const openaiUpper: ProviderProfile = { id: 'openai', preset: 'openai', baseUrl: 'HTTP://api.openai.com/v1', model: 'gpt-4o-mini' };
    await expect(resolveApiKey({ profile: openaiUpper, baseUrl: openaiUpper.baseUrl }, { secrets, env: { OPENAI_API_KEY: 'sk-env-123456789' } })).rejects.toThrow(
      ApiKeyError,
    );
  });

  it('stays bound to its origin however the URL is spelt, and only to it', async () => {
    const profile: ProviderProfile = { id: 'router', preset: 'custom', baseUrl: 'https://router.example/api/v1', model: 'm' };
    const store = createMemorySecretStore();
    await setApiKey(profile, 'sk-router-123456789', store);
    const deps = { secrets: store, env: {} };
    for (const url of ['HTTPS://Router.Example:443/api/v1/', 'https://router.example./api/v1', 'https://ROUTER.example/other']) {
      expect(await resolveApiKey({ profile, baseUrl: url }, deps)).toEqual({ key: 'sk-router-123456789', source: 'keychain' });
    }
    for (const url of ['http://router.example/api/v1', 'https://router.example:8443/api/v1', 'https://router.example.evil/api/v1', 'not a url']) {
      expect((await resolveApiKey({ profile, baseUrl: url }, deps)).key).toBeUndefined();
    }
    // An entry written by hand (or by an older version) with the origin in capitals still matches.
    const hand = createMemorySecretStore({ router: JSON.stringify({ key: 'sk-hand-123456789', origin: 'HTTPS://ROUTER.EXAMPLE:443' }) });
    expect((await resolveApiKey({ profile, baseUrl: profile.baseUrl }, { secrets: hand, env: {} })).key).toBe('sk-hand-123456789');
    expect(JSON.parse(encodeStoredKey('k', 'HTTPS://Router.Example:443/api/v1'))).toMatchObject({ origin: 'https://router.example' });
    expect(() => encodeStoredKey('k', 'file:///etc/passwd')).toThrow(ApiKeyError);
  });
});

describe('stored URLs are normalised', () => {
  it('profiles, edits, the baseUrl setting and --base-url overrides', () => {
    const { db } = tempDb();
    expect(okValue(addProfile(db, { id: 'lan', preset: 'custom', baseUrl: 'HTTP://GPU-Box.:8000/v1/', model: 'm' })).baseUrl).toBe('http://gpu-box:8000/v1');
    expect(okValue(updateProfile(db, 'lan', { baseUrl: 'hTTps://GPU-box:443/V1' })).baseUrl).toBe('https://gpu-box/V1');
    okValue(writeSetting(db, 'baseUrl', 'HTTPS://API.OpenAI.com:443/v1/'));
    expect(listProfiles(db).find((p) => p.id === 'openai')?.baseUrl).toBe('https://api.openai.com/v1');
    const c = okValue(resolveConnection(db, { secrets: createMemorySecretStore() }, { baseUrl: 'HTTP://[0:0:0:0:0:0:0:1]:11434/v1/' }));
    expect(c.baseUrl).toBe('http://[::1]:11434/v1');
  });

  it('refuses credentials, line breaks and queries with one line', () => {
    const issue = (url: string): string => {
      const r = BaseUrl.safeParse(url);
      expect(r.success).toBe(false);
      return r.error!.issues[0]!.message;
    };
    expect(issue('https://user:sk-1@h.example/v1')).toContain('must not contain a user name or password');
    expect(issue('https://:sk-1@h.example/v1')).toContain('must not contain a user name or password');
    expect(issue('https://h.example/v1\nX-Evil: 1')).toBe('must not contain spaces, line breaks or control characters');
    expect(issue('https://h.example/v1?')).toContain('must not contain a query');
    expect(issue('https://h.example/v1#x')).toContain('must not contain a query');
  });
});
