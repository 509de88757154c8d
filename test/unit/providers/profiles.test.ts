import { describe, expect, it } from 'vitest';
import {
  activeProfile,
  addProfile,
  createMemorySecretStore,
  listProfiles,
  readSettings,
  removeProfile,
  resolveConnection,
  updateProfile,
  useProfile,
  writeSetting,
} from '../../../src-main/core';
import { isLoopbackUrl, PRESETS, ProviderProfile } from '../../../src-shared/providers';
import { okValue, tempDb } from '../../support/db';

const failed = (r: { ok: boolean; error?: string; hint?: string }): string => {
  expect(r.ok).toBe(false);
  return `${r.error} — ${r.hint}`;
};

describe('provider profiles', () => {
  it('a fresh database knows OpenAI (active) and the three local servers', () => {
    const { db } = tempDb();
    expect(listProfiles(db).map((p) => [p.id, p.baseUrl, p.model])).toEqual([
      ['openai', 'https://api.openai.com/v1', 'gpt-4o-mini'],
      ['ollama', 'http://127.0.0.1:11434/v1', 'llama3.2'],
      ['lmstudio', 'http://127.0.0.1:1234/v1', 'qwen2.5-7b-instruct'],
      ['llamacpp', 'http://127.0.0.1:8080/v1', 'default'],
    ]);
    expect(activeProfile(db).id).toBe('openai');
  });

  it('switching profiles is one call, and baseUrl/model settings follow the active profile', () => {
    const { db } = tempDb();
    okValue(useProfile(db, 'ollama'));
    expect(readSettings(db)).toMatchObject({ profile: 'ollama', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.2' });
    okValue(writeSetting(db, 'model', 'qwen3:8b'));
    expect(listProfiles(db).find((p) => p.id === 'ollama')?.model).toBe('qwen3:8b');
    okValue(writeSetting(db, 'profile', 'openai'));
    expect(readSettings(db)).toMatchObject({ profile: 'openai', model: 'gpt-4o-mini' });
    expect(failed(writeSetting(db, 'profile', 'nope'))).toContain("no provider profile 'nope'");
    expect(failed(useProfile(db, 'nope'))).toContain('use one of: openai, ollama, lmstudio, llamacpp');
  });

  it('the API key is never part of a profile: the schema refuses extra fields and credentials in URLs', () => {
    expect(ProviderProfile.safeParse({ id: 'x', preset: 'openai', baseUrl: 'https://api.openai.com/v1', model: 'm', apiKey: 'sk-1' }).success).toBe(false);
    const { db } = tempDb();
    expect(failed(addProfile(db, { id: 'x', preset: 'custom', baseUrl: 'https://user:sk-1@h.example/v1', model: 'm' }))).toContain(
      'must not contain a user name or password',
    );
    expect(failed(writeSetting(db, 'baseUrl', 'https://h.example/v1?key=sk-1'))).toContain('must not contain a query');
  });

  it('adds from a preset: the preset fills in URL and model; required fields are asked for', () => {
    const { db } = tempDb();
    const p = okValue(addProfile(db, { id: 'vllm', preset: 'custom', baseUrl: 'http://gpu-box:8000/v1/', model: 'Qwen/Qwen3-8B' }));
    expect(p).toEqual({ id: 'vllm', preset: 'custom', baseUrl: 'http://gpu-box:8000/v1', model: 'Qwen/Qwen3-8B' });
    expect(okValue(addProfile(db, { id: 'ollama-2', preset: 'ollama' })).baseUrl).toBe(PRESETS.ollama.baseUrl);
    expect(failed(addProfile(db, { id: 'c', preset: 'custom', model: 'm' }))).toContain('needs --base-url');
    expect(failed(addProfile(db, { id: 'c', preset: 'custom', baseUrl: 'http://h/v1' }))).toContain('needs --model');
    expect(failed(addProfile(db, { id: 'c', preset: 'bedrock' }))).toContain("unknown preset 'bedrock'");
    expect(failed(addProfile(db, { id: 'Bad Id', preset: 'ollama' }))).toContain("profile id 'Bad Id' must be 1 to 40 lowercase");
    expect(failed(addProfile(db, { id: 'vllm', preset: 'ollama' }))).toContain("a profile 'vllm' exists already");
  });

  it('Azure: the v1 URL, or a deployment URL with an api-version; nothing else', () => {
    const { db } = tempDb();
    const v1 = okValue(addProfile(db, { id: 'az', preset: 'azure', baseUrl: 'https://res.openai.azure.com/openai/v1', model: 'my-gpt4o' }));
    expect(v1.apiVersion).toBeUndefined();
    expect(failed(addProfile(db, { id: 'az2', preset: 'azure', baseUrl: 'https://res.openai.azure.com/openai/deployments/gpt4o', model: 'gpt4o' }))).toContain(
      'apiVersion is needed with an Azure deployment URL',
    );
    okValue(addProfile(db, { id: 'az2', preset: 'azure', baseUrl: 'https://res.openai.azure.com/openai/deployments/gpt4o', model: 'gpt4o', apiVersion: '2024-10-21' }));
    expect(failed(addProfile(db, { id: 'az3', preset: 'azure', baseUrl: 'https://res.openai.azure.com/openai', model: 'x' }))).toContain('must end in /openai/v1');
    expect(failed(addProfile(db, { id: 'az4', preset: 'azure', baseUrl: 'https://res.openai.azure.com/openai/v1', model: 'x', apiVersion: 'soon' }))).toContain(
      'must look like 2024-10-21',
    );
    expect(failed(updateProfile(db, 'ollama', { apiVersion: '2024-10-21' }))).toContain('apiVersion is only for Azure profiles');
    expect(failed(addProfile(db, { id: 'az5', preset: 'azure', baseUrl: 'https://res.openai.azure.com/openai/v1' }))).toContain('--model <deployment>');
  });

  it('the Azure connection carries the api-key header style and the api-version query', () => {
    const { db } = tempDb();
    okValue(addProfile(db, { id: 'az', preset: 'azure', baseUrl: 'https://res.openai.azure.com/openai/deployments/gpt4o', model: 'gpt4o', apiVersion: '2024-10-21' }));
    const c = okValue(resolveConnection(db, { secrets: createMemorySecretStore() }, { profile: 'az' }));
    expect([c.auth, c.query, c.keyRequired]).toEqual(['api-key', { 'api-version': '2024-10-21' }, true]);
    const o = okValue(resolveConnection(db, { secrets: createMemorySecretStore() }));
    expect([o.profile.id, o.auth, o.query]).toEqual(['openai', 'bearer', {}]);
  });

  it('edits validate the whole profile; the active profile cannot be removed', () => {
    const { db } = tempDb();
    expect(failed(updateProfile(db, 'ollama', { baseUrl: 'ftp://x' }))).toContain('baseUrl must be an http(s) URL');
    expect(okValue(updateProfile(db, 'ollama', { baseUrl: 'http://127.0.0.1:11500/v1' })).baseUrl).toBe('http://127.0.0.1:11500/v1');
    expect(failed(removeProfile(db, 'openai'))).toContain('switch first: tidy config profile use ollama');
    okValue(removeProfile(db, 'lmstudio'));
    expect(listProfiles(db).map((p) => p.id)).toEqual(['openai', 'ollama', 'llamacpp']);
    expect(failed(removeProfile(db, 'lmstudio'))).toContain("no provider profile 'lmstudio'");
  });

  it('a damaged stored list reads as the defaults instead of breaking every request', () => {
    const { db } = tempDb();
    db.prepare(`INSERT INTO settings (key, value) VALUES ('profiles', '[{"id": 1}]')`).run();
    expect(activeProfile(db).id).toBe('openai');
  });

  it('per-run overrides are validated', () => {
    const { db } = tempDb();
    const deps = { secrets: createMemorySecretStore() };
    const c = okValue(resolveConnection(db, deps, { baseUrl: 'http://127.0.0.1:9/v1/', model: 'tiny' }));
    expect([c.baseUrl, c.model, c.keyRequired]).toEqual(['http://127.0.0.1:9/v1', 'tiny', false]);
    expect(failed(resolveConnection(db, deps, { baseUrl: 'localhost:1234' }))).toContain('must be an http(s) URL');
    expect(failed(resolveConnection(db, deps, { profile: 'gone' }))).toContain("no provider profile 'gone'");
  });
});

describe('isLoopbackUrl', () => {
  it.each([
    ['http://127.0.0.1:11434/v1', true],
    ['http://127.1.2.3/v1', true],
    ['http://localhost:1234/v1', true],
    ['http://[::1]:8080/v1', true],
    ['http://api.localhost/v1', true],
    ['http://127.0.0.1.evil.example/v1', false],
    ['http://192.168.1.2/v1', false],
    ['https://api.openai.com/v1', false],
  ])('%s → %s', (url, loopback) => expect(isLoopbackUrl(url)).toBe(loopback));
});
