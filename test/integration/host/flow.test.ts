// The web host against hostile clients over a real WebSocket: frames nested to the frame limit, a
// client that never reads its replies (back-pressure, then closed), one that floods costly requests
// (the others are still served between them), and frames at and over the size limit.
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createBridge } from '../../../src-shared/bridge';
import { connectWebSocket, TOKEN_PROTOCOL_PREFIX, WS_PATH, WS_PROTOCOL, type WsFrame } from '../../../src-shared/ws-client';
import { addTask, newUserRequest, type Db } from '../../../src-main/core';
import { createHost } from '../../../src-main/host';
import type { Dispatch } from '../../../src-main/host/dispatch';
import { SLOW_CLIENT_CLOSE, startWebHost, type FlowLimits, type WebHost } from '../../../src-main/host/web';
import { tempDb, tempDir } from '../../support/db';
import { testDeps } from '../../support/host';

const TOKEN = 'test-token-0123456789';
let stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

/** `n` tasks of about 2,000 characters each (the most a task holds): a page of 1,000 is a 2 MB reply. */
function seed(db: Db, n: number): void {
  db.transaction(() => {
    for (let i = 0; i < n; i++) addTask(db, newUserRequest(db), { content: `Task ${i} ${'x'.repeat(1_990)}` });
  })();
}

/** A web host on a fresh database with `tasks` tasks; counts the requests the dispatcher was given, by channel and limit. */
async function serve(o: { tasks?: number; flow?: Partial<FlowLimits> } = {}) {
  const { db } = tempDb();
  seed(db, o.tasks ?? 0);
  const host = createHost(testDeps(db), { watchMs: 0 });
  const started: string[] = [];
  const dispatch: Dispatch = (channel, input) => {
    started.push(`${String(channel)}:${(input as { limit?: number } | null)?.limit ?? ''}`);
    return host.dispatch(channel, input);
  };
  const logs: string[] = [];
  const web = await startWebHost({ dispatch, hub: host.hub, rendererDir: tempDir(), token: TOKEN, flow: o.flow, log: (l) => logs.push(l) });
  stops.push(() => host.close(), () => web.close());
  return { db, host, web, started, logs };
}

/** A raw client that collects the frames it reads. */
async function rawClient(web: WebHost) {
  const ws = new WebSocket(`ws://127.0.0.1:${web.port}${WS_PATH}`, [WS_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${TOKEN}`], { origin: `http://127.0.0.1:${web.port}` });
  const frames: WsFrame[] = [];
  ws.on('message', (d) => frames.push(JSON.parse(String(d)) as WsFrame));
  ws.on('error', () => {});
  await new Promise((resolve) => ws.once('open', resolve));
  stops.push(() => ws.terminate());
  const replies = () => frames.filter((f): f is Extract<WsFrame, { reply: unknown }> => 'reply' in f);
  return { ws, frames, replies };
}

const bridge = (web: WebHost) =>
  createBridge(connectWebSocket(`ws://127.0.0.1:${web.port}${WS_PATH}`, TOKEN, (url, protocols) => new WebSocket(url, protocols, { origin: `http://127.0.0.1:${web.port}` })));

const request = (id: number, channel: string, input: unknown) => JSON.stringify({ id, channel, input });

describe('hostile frames', () => {
  it('answers frames nested from 1,500 levels to the frame limit with invalid_input, and the next request works', async () => {
    const { web } = await serve();
    const { ws, replies } = await rawClient(web);
    const depths = [1_500, 10_000, 100_000, 130_000];
    depths.forEach((d, i) => ws.send(request(i + 1, 'settings.set', { key: 'protocol', value: 0 }).replace('"value":0', `"value":${'['.repeat(d)}${']'.repeat(d)}`)));
    ws.send(request(9, 'tasks.add', { content: 'after the attack' }));
    await expect.poll(() => replies().length).toBe(depths.length + 1);
    for (const [i] of depths.entries()) expect(replies()[i]).toMatchObject({ id: i + 1, reply: { ok: false, code: 'invalid_input', error: expect.stringContaining('levels deep') } });
    expect(replies()[depths.length]).toMatchObject({ id: 9, reply: { ok: true } });
  });

  it('reads the largest input the contract allows, and closes (1009) a connection whose frame is larger than 256 KiB', async () => {
    const { web } = await serve();
    // 20,000 characters, the most text an input holds, all but one control characters: each is six bytes (\u0001)
    // in JSON, 120 KB in all. The frame is read and parsed: the core itself answers, refusing a task that long
    // (the one visible letter keeps it from being refused earlier as invisible text).
    const api = bridge(web);
    const long = await api.invoke('tasks.add', { content: `a${'\u0001'.repeat(19_999)}` }).catch((e: unknown) => e);
    expect(long).toMatchObject({ code: 'failed', message: 'task is 20000 characters long' });
    const { ws } = await rawClient(web);
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.send(request(1, 'tasks.add', { content: 'x'.repeat(256 * 1024) }));
    expect(await closed).toBe(1009);
    expect((await api.invoke('tasks.list', {})).total).toBe(0);
  });
});

describe('replies that cannot be sent', () => {
  it('answers internal when a value cannot travel as JSON, and goes on serving', async () => {
    const { db } = tempDb();
    const host = createHost(testDeps(db), { watchMs: 0 });
    const logs: string[] = [];
    // A handler bug: a value JSON cannot carry (BigInt throws in JSON.stringify).
    const dispatch: Dispatch = async (channel, input) => (channel === 'tasks.list' ? { ok: true, value: 1n } : host.dispatch(channel, input));
    const web = await startWebHost({ dispatch, hub: host.hub, rendererDir: tempDir(), token: TOKEN, log: (l) => logs.push(l) });
    stops.push(() => host.close(), () => web.close());
    const { ws, replies } = await rawClient(web);
    ws.send(request(1, 'tasks.list', {}));
    ws.send(request(2, 'tasks.add', { content: 'still served' }));
    await expect.poll(() => replies().length).toBe(2);
    expect(replies()).toEqual([
      { id: 1, reply: { ok: false, code: 'internal', error: 'the reply could not be sent', hint: 'this is a bug in Tidy; the details are in its log' } },
      expect.objectContaining({ id: 2, reply: expect.objectContaining({ ok: true }) }),
    ]);
    expect(logs).toEqual(['a reply could not be sent: Do not know how to serialize a BigInt']);
  });
});

describe('a client that does not read its replies', () => {
  it('gets no more work done once its replies pile up, is closed (1008) when it stays stuck, and the others are served all along', async () => {
    const { web, started, logs } = await serve({ tasks: 1_000, flow: { stallMs: 1_000, closeGraceMs: 30_000 } });
    const slow = await rawClient(web);
    slow.ws.pause(); // its socket is not read from now on: the host's replies can only pile up
    for (let i = 1; i <= 300; i++) slow.ws.send(request(i, 'tasks.list', { limit: 1_000 }));

    // Another client is served while the slow one's requests wait.
    const api = bridge(web);
    for (let i = 0; i < 5; i++) expect((await api.invoke('tasks.list', { limit: 5 })).tasks).toHaveLength(5);

    await expect.poll(() => logs.join('\n'), { timeout: 15_000 }).toMatch(/^a client read nothing of its \d+\.\d MB of replies for \d+ s; closed that client \(1008\)$/m);
    // Each reply is 2 MB: the host stopped after a handful, not after 300 (600 MB).
    const heavy = started.filter((s) => s === 'tasks.list:1000').length;
    expect(heavy).toBeGreaterThan(0);
    expect(heavy).toBeLessThanOrEqual(12);

    // When it reads again it finds what was sent before the close, then the close frame and its reason.
    const closed = new Promise<[number, string]>((resolve) => slow.ws.on('close', (code, reason) => resolve([code, String(reason)])));
    slow.ws.resume();
    expect(await closed).toEqual([SLOW_CLIENT_CLOSE.code, SLOW_CLIENT_CLOSE.reason]);
    expect(slow.replies().length).toBe(heavy);
    expect(started.filter((s) => s === 'tasks.list:1000').length).toBe(heavy);
    expect((await api.invoke('tasks.list', { limit: 1 })).total).toBe(1_000);
  });

  it('is closed at once when more than the cap would wait for it', async () => {
    // With back-pressure out of the way (a high-water mark above the cap), only the cap stops it.
    const { web, started, logs } = await serve({ tasks: 1_000, flow: { highWaterBytes: 1e9, maxBufferedBytes: 8 * 1024 * 1024, stallMs: 60_000 } });
    const slow = await rawClient(web);
    slow.ws.pause();
    for (let i = 1; i <= 100; i++) slow.ws.send(request(i, 'tasks.list', { limit: 1_000 }));
    await expect.poll(() => logs.join('\n'), { timeout: 15_000 }).toMatch(/^a client left \d+\.\d MB of replies and events unread; closed that client \(1008\)$/m);
    expect(started.filter((s) => s === 'tasks.list:1000').length).toBeLessThan(20);
    expect((await bridge(web).invoke('tasks.list', { limit: 1 })).total).toBe(1_000);
  });
});

describe('a client that floods costly requests', () => {
  it('delays another client by a request or two, not by its whole queue', async () => {
    const { web } = await serve({ tasks: 200 });
    const flood = await rawClient(web);
    const other = await rawClient(web);
    for (let i = 1; i <= 50; i++) flood.ws.send(request(i, 'tasks.list', { limit: 200 }));
    await expect.poll(() => flood.replies().length, { interval: 1 }).toBeGreaterThan(0);
    other.ws.send(request(1, 'tasks.list', { limit: 1 }));
    await expect.poll(() => other.replies().length, { interval: 1 }).toBe(1);
    const floodDoneBefore = flood.replies().length;
    await expect.poll(() => flood.replies().length, { timeout: 20_000 }).toBe(50);
    // One request of each client per turn of the event loop: the other's reply comes among the flood's first few.
    expect(floodDoneBefore).toBeLessThanOrEqual(5);
  });
});
