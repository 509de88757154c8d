// The one place a run's model is made from a connection: the CLI and the hosts both use it, so Azure's
// header style and api-version must arrive at the server whichever way a run starts.
import { describe, expect, it, onTestFinished } from 'vitest';
import { addProfile, createMemorySecretStore, resolveConnection, setApiKey, useProfile } from '../../../src-main/core';
import { connectionModel } from '../../../src-main/core/providers/connection';
import { startFakeOpenAI } from '../../fakes/openai-server';
import { okValue, tempDb } from '../../support/db';

describe('connectionModel', () => {
  it('sends an Azure key as api-key with the api-version query, and no bearer token', async () => {
    const fake = await startFakeOpenAI({ replies: [{ text: 'hello' }] });
    onTestFinished(() => fake.close());
    const { db } = tempDb();
    const base = fake.url.replace(/\/v1$/, '/openai/deployments/gpt-4.1');
    const profile = okValue(addProfile(db, { id: 'work', preset: 'azure', baseUrl: base, model: 'gpt-4.1', apiVersion: '2024-10-21' }));
    okValue(useProfile(db, 'work'));
    const secrets = createMemorySecretStore();
    await setApiKey(profile, 'azure-secret-123', secrets);
    const conn = okValue(resolveConnection(db, { secrets, env: {} }));
    const turn = await connectionModel(conn, conn).complete({ messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(turn.text).toBe('hello');
    const req = fake.chatRequests[0]!;
    expect(req.headers['api-key']).toBe('azure-secret-123');
    expect(req.authorization).toBeUndefined();
    expect(req.url).toContain('api-version=2024-10-21');
  });

  it('sends an OpenAI-style key as a bearer token', async () => {
    const fake = await startFakeOpenAI({ replies: [{ text: 'hi' }] });
    onTestFinished(() => fake.close());
    const { db } = tempDb();
    const profile = okValue(addProfile(db, { id: 'proxy', preset: 'custom', baseUrl: fake.url, model: 'm' }));
    okValue(useProfile(db, 'proxy'));
    const secrets = createMemorySecretStore();
    await setApiKey(profile, 'sk-test-456', secrets);
    const conn = okValue(resolveConnection(db, { secrets, env: {} }));
    await connectionModel(conn, conn).complete({ messages: [{ role: 'user', content: 'hi' }], stream: true });
    expect(fake.chatRequests[0]!.bearer).toBe('sk-test-456');
  });

  it('decides on the key for the URL the request really goes to, in normal form', async () => {
    const fake = await startFakeOpenAI({ replies: [{ text: 'one' }, { text: 'two' }] });
    onTestFinished(() => fake.close());
    const { db } = tempDb();
    const profile = okValue(addProfile(db, { id: 'cloud', preset: 'custom', baseUrl: 'https://llm.example/v1', model: 'm' }));
    okValue(useProfile(db, 'cloud'));
    const secrets = createMemorySecretStore();
    await setApiKey(profile, 'sk-cloud-0123456789', secrets);
    const conn = okValue(resolveConnection(db, { secrets, env: {} }));
    // A run pointed elsewhere than the profile: the key, bound to llm.example, does not go along.
    await connectionModel(conn, { baseUrl: fake.url, model: 'm' }).complete({ messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(fake.chatRequests[0]!.authorization).toBeUndefined();
    // The same server spelt differently is still the same server.
    const local = okValue(addProfile(db, { id: 'local', preset: 'custom', baseUrl: fake.url, model: 'm' }));
    await setApiKey(local, 'sk-local-0123456789', secrets);
    okValue(useProfile(db, 'local'));
    const conn2 = okValue(resolveConnection(db, { secrets, env: {} }));
    await connectionModel(conn2, { baseUrl: `${fake.url.replace('http://', 'HTTP://')}/`, model: 'm' }).complete({ messages: [{ role: 'user', content: 'hi' }], stream: false });
    expect(fake.chatRequests[1]!.bearer).toBe('sk-local-0123456789');
  });
});
