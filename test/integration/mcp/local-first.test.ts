// The local-first promise, checked: with Wikipedia off and every MCP server off, a run opens no connection
// except to the model endpoint — even when the model asks for wikipedia by name. Every client socket the
// process opens is seen through Node's `net.client.socket` diagnostics channel.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { writeSetting, type Db } from '../../../src-main/core';
import { createLiveRuns, startRun, TOOLS } from '../../../src-main/core/agent';
import { createOpenAIModel } from '../../../src-main/core/llm/openai';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server';
import { tempDb } from '../../support/db';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A loopback server that only counts who connects: where Wikipedia and an MCP server would be. */
async function trap(): Promise<{ url: string; port: number; connections: () => number }> {
  let n = 0;
  const server: Server = createServer((_req, res) => res.writeHead(500).end());
  server.on('connection', () => n++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}`, port, connections: () => n };
}

/** Every client socket opened from now on, and the port each one connected to (undefined: it did not connect). */
function sockets(): { port: number | undefined }[] {
  const seen: { port: number | undefined }[] = [];
  const onSocket = (message: unknown): void => {
    const socket = (message as { socket: Socket }).socket;
    const entry: { port: number | undefined } = { port: undefined };
    seen.push(entry);
    socket.once('connect', () => (entry.port = socket.remotePort));
  };
  subscribe('net.client.socket', onSocket);
  cleanups.push(() => void unsubscribe('net.client.socket', onSocket));
  return seen;
}

async function runOnce(db: Db, fake: FakeOpenAI) {
  const model = createOpenAIModel({ baseUrl: fake.url, model: 'fake-model', apiKey: 'sk-test', maxRetries: 0 });
  const r = startRun({ db, tools: TOOLS, live: createLiveRuns(), createModel: () => model }, { message: 'What borders England?', baseUrl: fake.url, model: 'fake-model', stream: false }, () => {});
  if (!r.ok) throw new Error(r.error);
  return r.value.finished;
}

describe('destinations', () => {
  it('with everything off, a run connects to the model endpoint only', async () => {
    const fake = await startFakeOpenAI();
    cleanups.push(() => fake.close());
    const wiki = await trap();
    const mcp = await trap();
    const { db } = tempDb();
    writeSetting(db, 'wikipediaUrl', wiki.url);
    writeSetting(db, 'mcpServers', { remote: { url: `${mcp.url}/mcp`, enabled: false }, local: { command: process.execPath, args: ['-e', 'require("http").get(process.argv[1])', `${mcp.url}/x`], enabled: false } });
    fake.enqueue({ toolCalls: [{ name: 'wikipedia', arguments: { query: 'England' } }, { name: 'get_inbox_tasks', arguments: {} }] }, { text: 'England borders Scotland and Wales.' });
    const seen = sockets();
    const result = await runOnce(db, fake);
    expect(result.status).toBe('done');
    expect(fake.chatRequests[0]!.body!.tools!.map((t) => (t as { function: { name: string } }).function.name)).not.toContain('wikipedia');
    expect(seen.length).toBeGreaterThan(0);
    expect(new Set(seen.map((s) => s.port))).toEqual(new Set([fake.port]));
    expect(wiki.connections()).toBe(0);
    expect(mcp.connections()).toBe(0);
  });

  it('with Wikipedia on, the lookup reaches the configured site (so the check above can fail)', async () => {
    const fake = await startFakeOpenAI();
    cleanups.push(() => fake.close());
    const wiki = await trap();
    const { db } = tempDb();
    writeSetting(db, 'wikipediaUrl', wiki.url);
    writeSetting(db, 'wikipedia', true);
    fake.enqueue({ toolCalls: [{ name: 'wikipedia', arguments: { query: 'England' } }] }, { text: 'It failed.' });
    const seen = sockets();
    await runOnce(db, fake);
    expect(wiki.connections()).toBeGreaterThan(0);
    expect(seen.some((s) => s.port === wiki.port)).toBe(true);
  });
});

