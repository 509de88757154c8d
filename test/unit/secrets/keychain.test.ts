// The keytar store with keytar replaced: loading, error mapping and time limits. The real keychain is
// exercised in test/integration/secrets (inside scripts/with-keyring.sh).
import { describe, expect, it, vi } from 'vitest';
import { classifyKeychainError, createKeychainStore, KeychainUnavailableError, type KeytarLike } from '../../../src-main/core';

function fakeKeytar(): KeytarLike & { data: Map<string, string> } {
  const data = new Map<string, string>();
  return {
    data,
    getPassword: (s, a) => Promise.resolve(data.get(`${s}/${a}`) ?? null),
    setPassword: (s, a, p) => {
      data.set(`${s}/${a}`, p);
      return Promise.resolve();
    },
    deletePassword: (s, a) => Promise.resolve(data.delete(`${s}/${a}`)),
  };
}

async function rejection(p: Promise<unknown>): Promise<KeychainUnavailableError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(KeychainUnavailableError);
  return e as KeychainUnavailableError;
}

describe('createKeychainStore', () => {
  it('loads keytar on first use only, once, and files entries under the service and the profile id', async () => {
    const keytar = fakeKeytar();
    const load = vi.fn(() => Promise.resolve(keytar));
    const store = createKeychainStore({ load });
    expect(load).not.toHaveBeenCalled();
    await store.set('openai', 'secret-1');
    expect(await store.get('openai')).toBe('secret-1');
    expect(await store.get('ollama')).toBeUndefined();
    expect(keytar.data).toEqual(new Map([['Tidy/openai', 'secret-1']]));
    expect(await store.clear('openai')).toBe(true);
    expect(await store.clear('openai')).toBe(false);
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('a keytar that cannot be loaded is one clear error with the fix, on every call, not a crash', async () => {
    const load = vi.fn(() => Promise.reject(new Error('libsecret-1.so.0: cannot open shared object file\n    at Module._extensions')));
    const store = createKeychainStore({ load, platform: 'linux' });
    const e = await rejection(store.get('openai'));
    expect(e.message).toBe(
      'no OS keychain available (keytar could not be loaded: libsecret-1.so.0: cannot open shared object file): install libsecret-1-0 and run `npm rebuild keytar` in the Tidy folder, or set OPENAI_API_KEY',
    );
    await rejection(store.set('openai', 'x'));
    expect(load).toHaveBeenCalledTimes(1);
    expect(await store.probe()).toEqual({ available: false, error: e });
  });

  it('a keychain that never answers (an unlock prompt nobody sees) fails after the time limit', async () => {
    const hanging: KeytarLike = { ...fakeKeytar(), getPassword: () => new Promise(() => {}) };
    const store = createKeychainStore({ load: () => Promise.resolve(hanging), timeoutMs: 50 });
    const e = await rejection(store.get('openai'));
    expect(e.reason).toContain('did not answer within');
  });

  it('maps keytar failures to KeychainUnavailableError, and probe reports them without throwing', async () => {
    const broken: KeytarLike = { ...fakeKeytar(), getPassword: () => Promise.reject(new Error('Cannot autolaunch D-Bus without X11 $DISPLAY')) };
    const store = createKeychainStore({ load: () => Promise.resolve(broken), platform: 'linux' });
    const e = await rejection(store.get('openai'));
    expect(e.reason).toBe('no keyring service is running');
    const probe = await store.probe();
    expect(probe.available).toBe(false);
  });
});

describe('classifyKeychainError', () => {
  const cases: [string, string][] = [
    ['Cannot autolaunch D-Bus without X11 $DISPLAY', 'no keyring service is running'],
    ['Could not connect: No such file or directory', 'no keyring service is running'],
    ['The name org.freedesktop.secrets was not provided by any .service files', 'no keyring service is running'],
    ['Object does not exist at path “/org/freedesktop/secrets/collection/login”', 'your keyring has not been created yet'],
    ['Cannot create an item in a locked collection', 'the keyring is locked'],
    ['User interaction is not allowed.', 'the keyring is locked'],
    ['Something else entirely\nwith a second line', 'keychain error: Something else entirely'],
  ];
  it.each(cases)('%s → %s', (message, reason) => {
    expect(classifyKeychainError(new Error(message), 'linux').reason).toBe(reason);
  });

  it('says how to fix it on each platform, always offering OPENAI_API_KEY', () => {
    const err = new Error('Could not connect');
    expect(classifyKeychainError(err, 'linux').message).toBe(
      "no OS keychain available (no keyring service is running): start your desktop's keyring (sign in to a GNOME or KDE session), or set OPENAI_API_KEY before starting Tidy",
    );
    expect(classifyKeychainError(new Error('x'), 'darwin').fix).toContain('login keychain');
    // What the user reads is plain words: no D-Bus names, daemon commands or Secret Service jargon.
    for (const message of ['Cannot autolaunch D-Bus without X11 $DISPLAY', 'No such secret collection at path: /org/freedesktop/secrets/collection/login', 'Cannot create an item in a locked collection']) {
      const e = classifyKeychainError(new Error(message), 'linux');
      expect(e.message).not.toMatch(/gnome-keyring-daemon|D-Bus|Secret Service|--unlock|freedesktop|collection/i);
      expect(e.message.split('\n')).toHaveLength(1);
      expect(e.fix).toMatch(/or set OPENAI_API_KEY before starting Tidy$/);
    }
    expect(classifyKeychainError(new Error('x'), 'win32').fix).toContain('Credential Manager');
  });
});
