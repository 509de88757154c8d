// The web host for real: HTTP and WebSocket on 127.0.0.1, the contract over the socket, and the
// security rules (loopback only, token, Host and Origin, no CORS, security headers).
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createBridge, BridgeError } from '../../../src-shared/bridge';
import type { DataChanged } from '../../../src-shared/ipc';
import { connectWebSocket, TOKEN_PROTOCOL_PREFIX, WS_PATH, WS_PROTOCOL, type WsFrame } from '../../../src-shared/ws-client';
import { createHost } from '../../../src-main/host';
import { startWebHost, type WebHost } from '../../../src-main/host/web';
import { tempDb, tempDir } from '../../support/db';
import { testDeps } from '../../support/host';

const TOKEN = 'test-token-0123456789';
let stops: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const stop of stops.reverse()) await stop();
  stops = [];
});

async function serve() {
  const dir = tempDir();
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Tidy</title><div id="root"></div>');
  writeFileSync(join(dir, 'assets', 'app.js'), 'console.log("tidy")');
  const { db } = tempDb();
  const host = createHost(testDeps(db), { watchMs: 0 });
  const web = await startWebHost({ dispatch: host.dispatch, hub: host.hub, rendererDir: dir, token: TOKEN });
  stops.push(() => host.close(), () => web.close());
  return { db, host, web, origin: `http://127.0.0.1:${web.port}` };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function get(web: WebHost, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: web.port, path, method, headers: { host: `127.0.0.1:${web.port}`, ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Opens a raw WebSocket; resolves with the socket once open, or with the HTTP status it was refused with. */
function open(web: WebHost, o: { token?: string | null; origin?: string | null; host?: string; path?: string } = {}): Promise<WebSocket | number> {
  const protocols = [WS_PROTOCOL, ...(o.token === null ? [] : [`${TOKEN_PROTOCOL_PREFIX}${o.token ?? TOKEN}`])];
  const ws = new WebSocket(`ws://127.0.0.1:${web.port}${o.path ?? WS_PATH}`, protocols, {
    ...(o.origin === null ? {} : { origin: o.origin ?? `http://127.0.0.1:${web.port}` }),
    headers: o.host ? { host: o.host } : {},
  });
  return new Promise((resolve) => {
    ws.on('open', () => {
      stops.push(() => ws.terminate());
      resolve(ws);
    });
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(0));
  });
}

const client = (web: WebHost, token = TOKEN) =>
  connectWebSocket(`ws://127.0.0.1:${web.port}${WS_PATH}`, token, (url, protocols) => new WebSocket(url, protocols, { origin: `http://127.0.0.1:${web.port}` }));

describe('the contract over the WebSocket', () => {
  it('answers requests and pushes events to every client', async () => {
    const { web } = await serve();
    const a = createBridge(client(web));
    const b = createBridge(client(web));
    const seen: DataChanged[] = [];
    b.on('data.changed', (e) => seen.push(e));
    await b.invoke('tasks.list', {}); // b is connected before a changes anything

    const added = await a.invoke('tasks.add', { content: 'Over the socket' });
    expect(added.value.content).toBe('Over the socket');
    expect((await b.invoke('tasks.list', { project: 'inbox' })).tasks.map((t) => t.content)).toEqual(['Over the socket']);
    expect(seen).toEqual([{ topics: ['tasks', 'actions'] }]);

    const err = await a.invoke('tasks.complete', { task: 't404' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BridgeError);
    expect(err).toMatchObject({ code: 'failed', message: "no task with id 't404'" });
    const bad = await a.invoke('tasks.add', { content: null } as never).catch((e: unknown) => e);
    expect(bad).toMatchObject({ code: 'invalid_input' });
  });

  it('answers unreadable frames with an error and keeps the connection', async () => {
    const { web } = await serve();
    const ws = (await open(web)) as WebSocket;
    const frames: WsFrame[] = [];
    ws.on('message', (d) => frames.push(JSON.parse(String(d)) as WsFrame));
    ws.send('not json');
    ws.send(Buffer.from([1, 2, 3]));
    ws.send(JSON.stringify({ id: 'x', channel: 'tasks.list' }));
    ws.send(JSON.stringify({ id: 7, channel: 'nope', input: {} }));
    ws.send(JSON.stringify({ id: 8, channel: 'tasks.list', input: {} }));
    await expect.poll(() => frames.length).toBe(5);
    expect(frames.slice(0, 3).map((f) => 'reply' in f && f.id === null && f.reply.ok === false && f.reply.code)).toEqual(['invalid_input', 'invalid_input', 'invalid_input']);
    expect(frames[3]).toMatchObject({ id: 7, reply: { ok: false, code: 'unknown_channel' } });
    expect(frames[4]).toMatchObject({ id: 8, reply: { ok: true, value: { tasks: [], total: 0 } } });
  });

  it('closes a connection that sends an oversized frame, and goes on serving', async () => {
    const { web } = await serve();
    const ws = (await open(web)) as WebSocket;
    const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
    ws.send('x'.repeat(2 * 1024 * 1024));
    expect(await closed).toBe(1009);
    expect(await createBridge(client(web)).invoke('tasks.list', {})).toEqual({ tasks: [], total: 0 });
  });

  it('tells a client without the token what to do, without connecting', async () => {
    const { web } = await serve();
    const e = await createBridge(client(web, '')).invoke('tasks.list', {}).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'forbidden', hint: 'open the URL that `tidy serve` printed' });
    const wrong = await createBridge(client(web, 'wrong')).invoke('tasks.list', {}).catch((x: unknown) => x);
    expect(wrong).toMatchObject({ code: 'disconnected' });
  });
});

describe('web host security', () => {
  it('listens on 127.0.0.1 only and prints a URL there with the token', async () => {
    const { web } = await serve();
    expect(web.url).toBe(`http://127.0.0.1:${web.port}/?token=${TOKEN}`);
    const others = Object.values(networkInterfaces())
      .flat()
      .filter((i) => i && !i.internal)
      .map((i) => i!.address);
    for (const address of ['::1', ...others]) {
      const refused = await new Promise<boolean>((resolve) => {
        const s = connect({ host: address, port: web.port }, () => {
          s.destroy();
          resolve(false);
        });
        s.on('error', () => resolve(true));
      });
      expect(refused, address).toBe(true);
    }
  });

  it('makes a fresh random token per launch', async () => {
    const { db } = tempDb();
    const host = createHost(testDeps(db), { watchMs: 0 });
    const [a, b] = await Promise.all([1, 2].map(() => startWebHost({ dispatch: host.dispatch, hub: host.hub, rendererDir: tempDir() })));
    stops.push(() => host.close(), () => a!.close(), () => b!.close());
    expect(a!.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(a!.token).not.toBe(b!.token);
  });

  it('refuses the socket without the token, with a wrong one, from a foreign or missing Origin, a foreign Host, or another path', async () => {
    const { web, origin } = await serve();
    expect(await open(web, { token: null })).toBe(401);
    expect(await open(web, { token: 'wrong' })).toBe(401);
    expect(await open(web, { token: `${TOKEN}x` })).toBe(401);
    expect(await open(web, { origin: 'http://evil.example' })).toBe(403);
    expect(await open(web, { origin: `https://127.0.0.1:${web.port}` })).toBe(403);
    expect(await open(web, { origin: 'null' })).toBe(403);
    expect(await open(web, { origin: null })).toBe(403);
    expect(await open(web, { host: `evil.example:${web.port}`, origin: `http://evil.example:${web.port}` })).toBe(403);
    expect(await open(web, { path: '/other' })).toBe(404);
    const ok = await open(web, { origin });
    expect(ok).toBeInstanceOf(WebSocket);
    expect((ok as WebSocket).protocol).toBe(WS_PROTOCOL);
  });

  it('accepts localhost as a name for itself, and nothing else', async () => {
    const { web } = await serve();
    const local = `localhost:${web.port}`;
    expect(await open(web, { host: local, origin: `http://${local}` })).toBeInstanceOf(WebSocket);
    expect((await get(web, '/', { host: local })).status).toBe(200);
    for (const host of [`evil.example:${web.port}`, `127.0.0.1.evil.example:${web.port}`, '127.0.0.1', `127.0.0.1:${web.port + 1}`, `[::1]:${web.port}`]) {
      expect((await get(web, '/', { host })).status, host).toBe(403);
    }
  });

  it('serves the renderer with security headers and no CORS; refuses foreign origins, other methods and paths outside it', async () => {
    const { web, origin } = await serve();
    const page = await get(web, `/?token=${TOKEN}`);
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(page.headers['content-security-policy']).toContain(`connect-src 'self' ws://127.0.0.1:${web.port} ws://localhost:${web.port}`);
    expect(page.headers).toMatchObject({ 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
    expect(Object.keys(page.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect((await get(web, '/assets/app.js', { origin })).status).toBe(200);
    expect((await get(web, '/assets/app.js', { origin: 'http://evil.example' })).status).toBe(403);
    expect((await get(web, '/', {}, 'POST')).status).toBe(405);
    expect((await get(web, '/', { 'access-control-request-method': 'GET', origin: 'http://evil.example' }, 'OPTIONS')).status).toBe(403);
    expect((await get(web, '/../../package.json')).status).toBe(404);
    expect((await get(web, '/%2e%2e/%2e%2e/package.json')).status).toBe(404);
    expect((await get(web, '/missing.js')).status).toBe(404);
    const head = await get(web, '/', {}, 'HEAD');
    expect([head.status, head.body]).toEqual([200, '']);
  });
});
