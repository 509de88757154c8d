/**
 * What a server refused (max_tokens, temperature, stream_options, streaming with tools) is remembered per
 * endpoint and model in the database, so the next run sends the right request at once instead of
 * relearning each quirk with a failing request.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addProfile, createMemorySecretStore, resolveConnection, useProfile, type Connection, type Db } from '../../../src-main/core';
import { connectionModel } from '../../../src-main/core/providers/connection';
import type { ModelRequest } from '../../../src-main/core/llm/port';
import { readQuirks } from '../../../src-main/core/llm/quirk-store';
import { fakeError, startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server';
import { okValue, tempDb } from '../../support/db';

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => fake.reset());

function connection(db: Db): Connection {
  okValue(addProfile(db, { id: 'box', preset: 'custom', baseUrl: fake.url, model: 'reasoner' }));
  okValue(useProfile(db, 'box'));
  return okValue(resolveConnection(db, { secrets: createMemorySecretStore(), env: {} }));
}

const ask: ModelRequest = { messages: [{ role: 'user', content: 'hi' }], temperature: 0.2, maxTokens: 100, stream: false };
const sent = () => fake.chatRequests.map((r) => [r.body?.max_tokens, r.body?.max_completion_tokens, r.body?.temperature]);

const reasoningModelRefusals = () => [
  fakeError(400, "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", { param: 'max_tokens', code: 'unsupported_parameter' }),
  fakeError(400, "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", { param: 'temperature', code: 'unsupported_value' }),
];

describe('server quirks across runs', () => {
  it('the second run against the same server sends the right request at once, however its URL is spelt', async () => {
    const { db } = tempDb();
    const conn = connection(db);
    fake.enqueue(...reasoningModelRefusals(), { text: 'first run' }, { text: 'second run' });
    expect((await connectionModel(conn, conn).complete(ask)).text).toBe('first run');
    const spelt = { baseUrl: `${fake.url.replace('http://', 'HTTP://')}/`, model: 'reasoner' };
    expect((await connectionModel(conn, spelt).complete(ask)).text).toBe('second run');
    expect(sent()).toEqual([
      [100, undefined, 0.2],
      [undefined, 100, 0.2],
      [undefined, 100, undefined],
      [undefined, 100, undefined],
    ]);
    expect(readQuirks(db, { baseUrl: fake.url, model: 'reasoner' })).toEqual({
      maxTokensParam: 'max_completion_tokens',
      temperature: false,
      streamOptions: true,
      streamWithTools: true,
    });
  });

  it('per model: another model on the same server starts from the defaults', async () => {
    const { db } = tempDb();
    const conn = connection(db);
    fake.enqueue(...reasoningModelRefusals(), { text: 'a' }, { text: 'b' });
    await connectionModel(conn, conn).complete(ask);
    await connectionModel(conn, { baseUrl: conn.baseUrl, model: 'gpt-4o-mini' }).complete(ask);
    expect(sent().at(-1)).toEqual([100, undefined, 0.2]);
  });

  it('llama.cpp refusing tools with streaming (case 18): the next run asks without streaming at once', async () => {
    const { db } = tempDb();
    const conn = connection(db);
    const tools = [{ name: 'weather', description: 'The weather.', parameters: { type: 'object', properties: {} } }];
    fake.enqueue({ replay: 18 }, { toolCalls: [{ name: 'weather', arguments: {} }] }, { text: 'sunny' });
    const streamed: string[] = [];
    const first = await connectionModel(conn, conn).complete({ messages: [{ role: 'user', content: 'weather?' }], tools, stream: true });
    expect(first.toolCalls.map((c) => c.name)).toEqual(['weather']);
    const second = await connectionModel(conn, conn).complete({ messages: [{ role: 'user', content: 'and now?' }], tools, stream: true }, (d) => streamed.push(d.text));
    expect(second.text).toBe('sunny');
    expect(streamed.join('')).toBe('sunny');
    expect(fake.chatRequests.map((r) => r.body?.stream)).toEqual([true, false, false]);
  });

  it('a caller that passes no database learns per model only, as before', async () => {
    const { db } = tempDb();
    const { db: _unused, ...withoutDb } = connection(db);
    fake.enqueue(...reasoningModelRefusals(), { text: 'a' }, ...reasoningModelRefusals(), { text: 'b' });
    await connectionModel(withoutDb, withoutDb).complete(ask);
    await connectionModel(withoutDb, withoutDb).complete(ask);
    expect(fake.chatRequests).toHaveLength(6);
    expect(readQuirks(db, { baseUrl: fake.url, model: 'reasoner' })).toBeUndefined();
    // Passing one explicitly is the same as the connection's own.
    fake.reset();
    fake.enqueue(...reasoningModelRefusals(), { text: 'a' }, { text: 'b' });
    await connectionModel(withoutDb, withoutDb, { db }).complete(ask);
    await connectionModel(withoutDb, withoutDb, { db }).complete(ask);
    expect(fake.chatRequests).toHaveLength(4);
  });

  it('a database that cannot record it does not fail the request', async () => {
    const { db } = tempDb();
    const conn = connection(db);
    db.exec('DROP TABLE model_quirks');
    fake.enqueue(...reasoningModelRefusals(), { text: 'still answered' });
    expect((await connectionModel(conn, conn).complete(ask)).text).toBe('still answered');
  });
});
