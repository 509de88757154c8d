// keytar against a real Secret Service (gnome-keyring in a private D-Bus session, see
// scripts/with-keyring.sh). A service name of its own per run, so even a real keyring would not be touched.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createKeychainStore, resolveApiKey, setApiKey } from '../../../src-main/core';
import { DEFAULT_PROFILES } from '../../../src-shared/providers';
import { describeWithKeyring } from '../../support/keyring';

describeWithKeyring('OS keychain (keytar + Secret Service)', () => {
  const service = `Tidy-test-${randomBytes(4).toString('hex')}`;
  const store = createKeychainStore({ service, timeoutMs: 10_000 });
  const accounts = ['openai', 'work', 'ollama'];

  afterAll(async () => {
    for (const a of accounts) await store.clear(a).catch(() => false);
  });

  it('is available', async () => {
    expect(await store.probe()).toEqual({ available: true });
  });

  it('sets, reads, replaces and clears a key', async () => {
    expect(await store.get('openai')).toBeUndefined();
    await store.set('openai', 'sk-first-1111');
    expect(await store.get('openai')).toBe('sk-first-1111');
    await store.set('openai', 'sk-second-2222');
    expect(await store.get('openai')).toBe('sk-second-2222');
    expect(await store.clear('openai')).toBe(true);
    expect(await store.get('openai')).toBeUndefined();
    expect(await store.clear('openai')).toBe(false);
  });

  it('keeps profiles apart: setting or clearing one leaves the other alone', async () => {
    await store.set('openai', 'sk-openai-aaaa');
    await store.set('work', 'sk-work-bbbb');
    expect([await store.get('openai'), await store.get('work'), await store.get('ollama')]).toEqual(['sk-openai-aaaa', 'sk-work-bbbb', undefined]);
    await store.clear('openai');
    expect([await store.get('openai'), await store.get('work')]).toEqual([undefined, 'sk-work-bbbb']);
  });

  it('is what resolveApiKey reads, bound to the profile’s origin, and a long key survives intact', async () => {
    const openai = DEFAULT_PROFILES[0]!;
    const long = `sk-${'x9'.repeat(2000)}`;
    await setApiKey(openai, long, store);
    expect(await resolveApiKey({ profile: openai, baseUrl: openai.baseUrl }, { secrets: store, env: {} })).toEqual({ key: long, source: 'keychain' });
    expect(JSON.parse((await store.get('openai'))!)).toEqual({ v: 1, key: long, origin: 'https://api.openai.com' });
  });

  it('the keyring on disk does not hold the key in plain text', async () => {
    const marker = `sk-plaintext-probe-${randomBytes(6).toString('hex')}`;
    await store.set('work', marker);
    const dir = join(process.env['XDG_DATA_HOME'] ?? '', 'keyrings');
    const files = readdirSync(dir);
    expect(files.length).toBeGreaterThan(0);
    for (const f of files) expect(readFileSync(join(dir, f)).includes(marker)).toBe(false);
  });
});
