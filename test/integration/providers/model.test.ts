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
});
