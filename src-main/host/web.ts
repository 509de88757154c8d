/**
 * The web host (`tidy serve`): the built renderer over HTTP and the IPC contract over a WebSocket, on
 * 127.0.0.1 only. The Electron-free twin of the desktop app, for browsers and for end-to-end tests.
 *
 * Security (DESIGN.md, "Web host"):
 * - It listens on 127.0.0.1 only, never on another interface.
 * - Every request must name us in its Host header (127.0.0.1:PORT or localhost:PORT): a DNS-rebinding
 *   page, whose requests carry its own host name, is refused.
 * - The WebSocket, the only way to data, needs the per-launch token and our own Origin (no cross-site
 *   use). The token travels as a subprotocol (Sec-WebSocket-Protocol: tidy.v1, tidy.token.<token>), so it
 *   is in no URL the socket opens and in no cookie: browsers send cookies to every port of a host, which
 *   would hand it to any other local server. The page takes it from `?token=` once, keeps it in
 *   sessionStorage (per origin, port included) and removes it from the address bar.
 * - The static files hold no data and need no token; every response carries a strict CSP and friends,
 *   and no CORS headers, so other origins can neither read nor frame them.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { failed } from '../../src-shared/bridge';
import { WsRequest } from '../../src-shared/ipc';
import { TOKEN_PROTOCOL_PREFIX, WS_PATH, WS_PROTOCOL, type WsFrame } from '../../src-shared/ws-client';
import type { Dispatch } from './dispatch';
import type { EventHub } from './hub';
import { contentSecurityPolicy, resolveStaticFile, securityHeaders } from './static';

export const LOOPBACK = '127.0.0.1';
/** Largest request frame accepted (a task is at most 2,000 characters; this leaves room for any input). */
const MAX_FRAME = 1024 * 1024;

export interface WebHostOptions {
  dispatch: Dispatch;
  hub: EventHub;
  /** The built renderer: out/renderer. */
  rendererDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Tests pass a fixed token; otherwise a random one per launch. */
  token?: string;
}

export interface WebHost {
  /** The URL to open, with the token. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** A fresh token: 32 random bytes, base64url (valid in a subprotocol name and a URL). */
export const newToken = (): string => randomBytes(32).toString('base64url');

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
/** Compares in constant time whatever the lengths. */
const sameSecret = (a: string, b: string): boolean => timingSafeEqual(digest(a), digest(b));

export function startWebHost(options: WebHostOptions): Promise<WebHost> {
  const token = options.token ?? newToken();
  let port = 0;
  const hosts = (): string[] => [`${LOOPBACK}:${port}`, `localhost:${port}`];
  const hostOk = (req: IncomingMessage): boolean => hosts().includes(String(req.headers.host ?? '').toLowerCase());
  const originOk = (origin: string | undefined): boolean => origin !== undefined && hosts().some((h) => origin.toLowerCase() === `http://${h}`);

  const headers = (): Record<string, string> =>
    securityHeaders(contentSecurityPolicy(hosts().map((h) => `ws://${h}`)));

  const send = (res: ServerResponse, status: number, body: string | Buffer, type = 'text/plain; charset=utf-8'): void => {
    res.writeHead(status, { ...headers(), 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
    res.end(res.req.method === 'HEAD' ? undefined : body);
  };

  const server = createServer((req, res) => {
    void (async () => {
      if (!hostOk(req)) return send(res, 403, `Tidy answers only as http://${LOOPBACK}:${port}\n`);
      if (req.headers.origin !== undefined && !originOk(req.headers.origin)) return send(res, 403, 'Cross-origin requests are not allowed\n');
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        return send(res, 405, 'Method not allowed\n');
      }
      const path = new URL(req.url ?? '/', `http://${LOOPBACK}`).pathname;
      // Browsers ask for it on their own; "no content" keeps a 404 out of the console.
      if (path === '/favicon.ico') return send(res, 204, '');
      const target = resolveStaticFile(options.rendererDir, path);
      if (!target) return send(res, 404, 'Not found\n');
      let body: Buffer;
      try {
        body = await readFile(target.file);
      } catch {
        return send(res, 404, 'Not found\n');
      }
      send(res, 200, body, target.type);
    })().catch((e: unknown) => {
      console.error('tidy serve: a request failed:', e);
      if (!res.headersSent) send(res, 500, 'Internal error\n');
      else res.destroy();
    });
  });

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME,
    // Answer with the plain protocol only: the token is never echoed back.
    handleProtocols: () => WS_PROTOCOL,
  });

  const refuse = (socket: Duplex, status: string, why: string): void => {
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(why)}\r\n\r\n${why}`);
  };

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    if (!hostOk(req)) return refuse(socket, '403 Forbidden', 'wrong Host');
    if (new URL(req.url ?? '/', `http://${LOOPBACK}`).pathname !== WS_PATH) return refuse(socket, '404 Not Found', 'no such endpoint');
    if (!originOk(req.headers.origin)) return refuse(socket, '403 Forbidden', 'wrong Origin');
    const offered = String(req.headers['sec-websocket-protocol'] ?? '')
      .split(',')
      .map((p) => p.trim());
    const given = offered.find((p) => p.startsWith(TOKEN_PROTOCOL_PREFIX))?.slice(TOKEN_PROTOCOL_PREFIX.length);
    if (!offered.includes(WS_PROTOCOL) || given === undefined || !sameSecret(given, token)) return refuse(socket, '401 Unauthorized', 'missing or wrong token');
    wss.handleUpgrade(req, socket, head, (ws) => connected(ws));
  });

  const sendFrame = (ws: WebSocket, frame: WsFrame): void => {
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
  };

  function connected(ws: WebSocket): void {
    ws.on('error', () => ws.terminate());
    ws.on('message', (data, isBinary) => {
      let frame: WsRequest;
      try {
        if (isBinary) throw new Error('binary frame');
        const parsed = WsRequest.safeParse(JSON.parse(String(data)));
        if (!parsed.success) throw new Error('not a request frame');
        frame = parsed.data;
      } catch {
        return sendFrame(ws, { id: null, reply: failed('invalid_input', 'unreadable request frame', 'send JSON text: {"id": <number>, "channel": "<name>", "input": {...}}') });
      }
      void options.dispatch(frame.channel, frame.input).then((reply) => sendFrame(ws, { id: frame.id, reply }));
    });
  }

  const unsubscribe = options.hub.subscribe((message) => {
    for (const ws of wss.clients) sendFrame(ws, message);
  });

  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      unsubscribe();
      reject(e.code === 'EADDRINUSE' ? new Error(`port ${options.port} on ${LOOPBACK} is in use; pick another with --port, or leave it out for a free one`) : e);
    });
    server.listen({ host: LOOPBACK, port: options.port ?? 0 }, () => {
      const address = server.address();
      port = typeof address === 'object' && address ? address.port : 0;
      resolve({
        url: `http://${LOOPBACK}:${port}/?token=${token}`,
        port,
        token,
        close: () =>
          new Promise<void>((done) => {
            unsubscribe();
            for (const ws of wss.clients) ws.terminate();
            wss.close();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
