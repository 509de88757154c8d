// No keychain, no setup: a key kept for this session only (memory), or Electron's safeStorage where the OS
// really encrypts; keys.status says where the key is kept, and the key never lands in a plain file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createFirstAvailableSecretStore,
  createMemorySecretStore,
  createSafeStorageSecretStore,
  createSessionSecretStore,
  createUnavailableSecretStore,
  KeychainUnavailableError,
  keyStatus,
  resolveApiKey,
  setApiKey,
  type SafeStorageLike,
} from '../../../src-main/core';
import { DEFAULT_PROFILES } from '../../../src-shared/providers';
import { tempDir } from '../../support/db';

const openai = DEFAULT_PROFILES.find((p) => p.id === 'openai')!;
const target = { profile: openai, baseUrl: openai.baseUrl };
const KEY = 'sk-test-session-0123456789abcdef';
const noKeychain = () => createUnavailableSecretStore('no keyring service is running', "start your desktop's keyring");

/** A safeStorage that really encrypts (a byte rotation stands in for the OS), on the given Linux backend. */
function fakeSafe(backend: string, available = true): SafeStorageLike {
  const rot = (b: Buffer, n: number) => Buffer.from(b.map((x) => (x + n) & 0xff));
  return {
    isEncryptionAvailable: () => available,
    getSelectedStorageBackend: () => backend,
    encryptString: (s) => rot(Buffer.from(`sealed:${s}`), 7),
    decryptString: (b) => rot(b, -7).toString().replace(/^sealed:/, ''),
  };
}

describe('a key for this session only', () => {
  it('is used when there is no keychain, says so (storage: session), and is forgotten with the store', async () => {
    const session = createSessionSecretStore();
    const deps = { secrets: noKeychain(), session, env: {} };
    expect(await keyStatus(target, deps)).toMatchObject({ source: null, storage: null, problem: { error: expect.stringContaining('no OS keychain available') } });
    await setApiKey(openai, KEY, session);
    expect(await resolveApiKey(target, deps)).toEqual({ key: KEY, source: 'session' });
    const status = await keyStatus(target, deps);
    expect(status).toMatchObject({ stored: true, source: 'session', storage: 'session', problem: null, keychain: { available: false } });
    expect(JSON.stringify(status)).not.toContain(KEY);
    // A new session (a new store: Tidy restarted) has no key.
    expect(await keyStatus(target, { ...deps, session: createSessionSecretStore() })).toMatchObject({ source: null, storage: null });
  });

  it('keeps the origin binding: a session key is not sent to another server', async () => {
    const session = createSessionSecretStore();
    await setApiKey(openai, KEY, session);
    await expect(resolveApiKey({ profile: openai, baseUrl: 'https://evil.example/v1' }, { secrets: noKeychain(), session, env: {} })).rejects.toThrow(/was saved for https:\/\/api\.openai\.com/);
  });

  it('says storage: keychain for a key in the OS keychain, and env for OPENAI_API_KEY', async () => {
    const keychain = createMemorySecretStore();
    await setApiKey(openai, KEY, keychain);
    expect(await keyStatus(target, { secrets: keychain, env: {} })).toMatchObject({ source: 'keychain', storage: 'keychain' });
    expect(await keyStatus(target, { secrets: noKeychain(), env: { OPENAI_API_KEY: KEY } })).toMatchObject({ source: 'env', storage: 'env' });
  });
});

describe("Electron's safeStorage", () => {
  it('is unavailable on basic_text (a fixed password) or without encryption, and writes nothing then', async () => {
    for (const safe of [fakeSafe('basic_text'), fakeSafe('gnome_libsecret', false)]) {
      const dir = tempDir();
      const store = createSafeStorageSecretStore(safe, join(dir, 'keys.sealed.json'));
      expect((await store.probe()).available).toBe(false);
      await expect(store.set('openai', KEY)).rejects.toBeInstanceOf(KeychainUnavailableError);
      await expect(store.get('openai')).rejects.toBeInstanceOf(KeychainUnavailableError);
      expect(readdirSync(dir)).toEqual([]);
    }
  });

  it('keeps only ciphertext in its file, owner-only, and reads it back', async () => {
    const dir = tempDir();
    const file = join(dir, 'keys.sealed.json');
    const store = createSafeStorageSecretStore(fakeSafe('kwallet5'), file);
    await setApiKey(openai, KEY, store);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('sk-');
    if (process.platform !== 'win32') expect((await import('node:fs')).statSync(file).mode & 0o777).toBe(0o600);
    expect(await resolveApiKey(target, { secrets: store, env: {} })).toEqual({ key: KEY, source: 'keychain' });
    expect(await keyStatus(target, { secrets: store, env: {} })).toMatchObject({ storage: 'safe_storage' });
    expect(await store.clear('openai')).toBe(true);
    expect(await store.clear('openai')).toBe(false);
    expect(await store.get('openai')).toBeUndefined();
  });

  it('survives a damaged file: read as empty, never a crash', async () => {
    const dir = tempDir();
    const file = join(dir, 'keys.sealed.json');
    for (const damaged of ['', 'not json', '[]', '{"openai": 5}', 'null']) {
      (await import('node:fs')).writeFileSync(file, damaged);
      const store = createSafeStorageSecretStore(fakeSafe('kwallet5'), file);
      expect(await store.get('openai')).toBeUndefined();
    }
    expect(existsSync(file)).toBe(true);
  });
});

describe('the first available store (the desktop app: keychain, else safeStorage)', () => {
  it('falls to safeStorage when the keychain is unavailable, and says so', async () => {
    const dir = tempDir();
    const store = createFirstAvailableSecretStore([noKeychain(), createSafeStorageSecretStore(fakeSafe('gnome_libsecret'), join(dir, 'k.json'))]);
    await setApiKey(openai, KEY, store);
    expect(await keyStatus(target, { secrets: store, env: {} })).toMatchObject({ source: 'keychain', storage: 'safe_storage', keychain: { available: true } });
  });

  it('keeps the keychain when it works, and its error when nothing is available', async () => {
    const keychain = createMemorySecretStore();
    const both = createFirstAvailableSecretStore([keychain, createSafeStorageSecretStore(fakeSafe('kwallet5'), join(tempDir(), 'k.json'))]);
    await setApiKey(openai, KEY, both);
    expect(keychain.entries.has('openai')).toBe(true);
    const none = createFirstAvailableSecretStore([noKeychain(), createSafeStorageSecretStore(fakeSafe('basic_text'), join(tempDir(), 'k.json'))]);
    await expect(none.set('openai', KEY)).rejects.toThrow(/no keyring service is running/);
  });
});
