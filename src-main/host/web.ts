/**
 * The web host (`tidy serve`): the built renderer over HTTP and the IPC contract over a WebSocket, on
 * 127.0.0.1 only. The Electron-free twin of the desktop app, for browsers and for end-to-end tests.
 *
 * Security (docs/ARCHITECTURE.md, "Security rules"):
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
 *
 * Robustness: no client can take the host down or starve the others. Frames are at most 256 KiB and
 * the dispatcher bounds every input's nesting and size before a schema walks it; every request gets a
 * reply, whatever fails; requests start one per event-loop turn, the clients taken in turn; and a client
 * that does not read its replies gets no more work done, then is closed (FlowLimits).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { failed } from '../../src-shared/bridge';
import { WsRequest } from '../../src-shared/ipc';
import { TOKEN_PROTOCOL_PREFIX, WS_PATH, WS_PROTOCOL, type WsFrame } from '../../src-shared/ws-client';
import { errorText, type Dispatch } from './dispatch';
import type { EventHub } from './hub';
import { contentSecurityPolicy, resolveStaticFile, securityHeaders } from './static';

const LOOPBACK = '127.0.0.1';
/**
 * Largest request frame accepted. The largest input the contract allows (20,000 characters of text,
 * each at most 6 bytes escaped in JSON) fits with room to spare; a bigger frame closes the connection
 * (1009) before any of it is parsed, and parsing one takes a few milliseconds at most.
 */
const MAX_FRAME = 256 * 1024;

/**
 * How much one client may make the host hold for it. A client that stops reading (a stuck tab, a
 * hostile script) would otherwise make every reply pile up in memory and slow every other client.
 */
export interface FlowLimits {
  /** Above this many bytes waiting to go to a client, its next requests wait until the client has read some. */
  highWaterBytes: number;
  /** Nothing more is queued for a client past this many waiting bytes: it is closed (1008) instead. One larger frame to an empty buffer still goes. */
  maxBufferedBytes: number;
  /** A client whose waiting bytes stay above the high-water mark this long, none of them delivered, is closed (1008). */
  stallMs: number;
  /** Requests of one client in progress at once; the next wait for one to finish. */
  maxInFlight: number;
  /** Requests received and not yet started; beyond this the client's socket is not read (TCP pushes back). */
  maxQueued: number;
  /** How long a closed client may take to read its close frame before its connection is cut. */
  closeGraceMs: number;
}

export const FLOW_LIMITS: FlowLimits = {
  highWaterBytes: 1024 * 1024,
  maxBufferedBytes: 64 * 1024 * 1024,
  stallMs: 15_000,
  maxInFlight: 8,
  maxQueued: 32,
  closeGraceMs: 2_000,
};

/** The close code and reason a client that stopped reading gets (RFC 6455 §7.4.1: 1008, policy violation). */
export const SLOW_CLIENT_CLOSE = { code: 1008, reason: 'closed by Tidy: this client stopped reading its replies; reload the page' } as const;

interface WebHostOptions {
  dispatch: Dispatch;
  hub: EventHub;
  /** The built renderer: out/renderer. */
  rendererDir: string;
  /** 0 (the default) picks a free port. */
  port?: number;
  /** Tests pass a fixed token; otherwise a random one per launch. */
  token?: string;
  /** Bounds on what one client may make the host hold; the defaults are FLOW_LIMITS. */
  flow?: Partial<FlowLimits>;
  /** Where the host reports what it did about a misbehaving client or a failure (one line each). Default: stderr. */
  log?: (line: string) => void;
}

export interface WebHost {
  /** The URL to open, with the token. */
  readonly url: string;
  readonly port: number;
  readonly token: string;
  close(): Promise<void>;
}

/** A fresh token: 32 random bytes, base64url (valid in a subprotocol name and a URL). */
const newToken = (): string => randomBytes(32).toString('base64url');

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

  const flow: FlowLimits = { ...FLOW_LIMITS, ...options.flow };
  const log = options.log ?? ((line: string) => process.stderr.write(`tidy serve: ${line}\n`));
  const clients = new Set<Client>();

  /** One connection: its requests not yet started, how many are in progress, and when it last took some of its waiting bytes. */
  interface Client {
    ws: WebSocket;
    queue: { data: RawData; isBinary: boolean }[];
    inFlight: number;
    /** It is in the line of clients with a request ready to start. */
    inLine: boolean;
    /** Its socket is not being read (too many requests waiting). */
    paused: boolean;
    /** When its waiting bytes were last at or below the high-water mark, or some were delivered. */
    movedAt: number;
    /** Closed, by either side: nothing more is read or sent. */
    gone: boolean;
  }

  /** Stops serving a client that does not read: its queue is dropped now, its connection cut after a short grace. */
  const drop = (client: Client, why: string): void => {
    if (client.gone) return;
    client.gone = true;
    client.queue = [];
    clients.delete(client);
    log(`${why}; closed that client (${SLOW_CLIENT_CLOSE.code})`);
    client.ws.close(SLOW_CLIENT_CLOSE.code, SLOW_CLIENT_CLOSE.reason);
    // Read again, so its answering close frame ends the connection (what else it sent is ignored).
    if (client.paused) client.ws.resume();
    setTimeout(() => client.ws.terminate(), flow.closeGraceMs).unref();
  };

  /** Queues text for a client, unless that would pile more than the cap up for it. */
  const sendText = (client: Client, text: string): void => {
    const { ws } = client;
    if (client.gone || ws.readyState !== ws.OPEN) return;
    const waiting = ws.bufferedAmount;
    if (waiting > 0 && waiting + Buffer.byteLength(text) > flow.maxBufferedBytes) {
      return drop(client, `a client left ${(waiting / 1024 / 1024).toFixed(1)} MB of replies and events unread`);
    }
    ws.send(text, (error) => {
      if (error) return;
      // Some of its bytes went out: it is reading. Requests that waited for room may go on.
      client.movedAt = Date.now();
      schedule(client);
    });
  };

  const sendFrame = (client: Client, frame: WsFrame): void => {
    let text: string;
    try {
      text = JSON.stringify(frame);
    } catch (e) {
      // A value JSON cannot carry (a bug in a handler): the caller still gets an answer.
      if (!('reply' in frame)) return log(`an event could not be sent: ${errorText(e)}`);
      log(`a reply could not be sent: ${errorText(e)}`);
      text = JSON.stringify({ id: frame.id, reply: failed('internal', 'the reply could not be sent', 'this is a bug in Tidy; the details are in its log') });
    }
    sendText(client, text);
  };

  /**
   * Requests start one at a time, one per turn of the event loop, taking the clients in turn: between
   * two requests the loop reads every socket, and a client that just had a request waits behind every
   * client that has one ready, so a client that sends many costly requests delays another by the
   * request running when the other's arrives, not by its whole queue. Synchronous work (SQLite) cannot
   * be cut short: that one request is the unavoidable part.
   */
  const ready: Client[] = [];
  let ticking = false;
  /** The client whose request ran in the last turn: it goes back in line at the next turn, after any newcomer. */
  let ranLast: Client | null = null;

  const canStart = (c: Client): boolean =>
    // Back-pressure: no new work while its earlier replies wait to be read; a send callback wakes it.
    !c.gone && c.queue.length > 0 && c.inFlight < flow.maxInFlight && c.ws.bufferedAmount <= flow.highWaterBytes;

  const schedule = (client: Client): void => {
    if (!client.inLine && client !== ranLast && canStart(client)) {
      client.inLine = true;
      ready.push(client);
    }
    if (!ticking && (ready.length > 0 || ranLast)) {
      ticking = true;
      setImmediate(tick);
    }
  };

  const tick = (): void => {
    ticking = false;
    const back = ranLast;
    ranLast = null;
    if (back) schedule(back);
    while (ready.length > 0) {
      const client = ready.shift()!;
      client.inLine = false;
      if (!canStart(client)) continue;
      ranLast = client;
      start(client);
      break;
    }
    if (!ticking && (ready.length > 0 || ranLast)) {
      ticking = true;
      setImmediate(tick);
    }
  };

  /** Starts the next request of a client. */
  const start = (client: Client): void => {
    const { ws } = client;
    client.movedAt = Date.now();
    const { data, isBinary } = client.queue.shift()!;
    if (client.paused && client.queue.length <= flow.maxQueued / 2) {
      client.paused = false;
      ws.resume();
    }

    let frame: WsRequest;
    try {
      if (isBinary) throw new Error('binary frame');
      const parsed = WsRequest.safeParse(JSON.parse(String(data)));
      if (!parsed.success) throw new Error('not a request frame');
      frame = parsed.data;
    } catch {
      return sendFrame(client, { id: null, reply: failed('invalid_input', 'unreadable request frame', 'send JSON text: {"id": <number>, "channel": "<name>", "input": {...}}') });
    }
    client.inFlight++;
    options
      .dispatch(frame.channel, frame.input)
      .catch((e: unknown) => {
        // The dispatcher answers every request itself; this is the net under it.
        log(`${String(frame.channel).slice(0, 100)} failed unexpectedly: ${errorText(e)}`);
        return failed('internal', 'the request failed unexpectedly', 'this is a bug in Tidy; the details are in its log');
      })
      .then((reply) => sendFrame(client, { id: frame.id, reply }))
      .catch((e: unknown) => log(`a reply could not be sent: ${errorText(e)}`))
      .finally(() => {
        client.inFlight--;
        schedule(client);
      });
  };

  function connected(ws: WebSocket): void {
    const client: Client = { ws, queue: [], inFlight: 0, inLine: false, paused: false, movedAt: Date.now(), gone: false };
    clients.add(client);
    ws.on('error', () => ws.terminate());
    ws.on('close', () => {
      clients.delete(client);
      client.gone = true;
      client.queue = [];
    });
    ws.on('message', (data, isBinary) => {
      if (client.gone) return;
      client.queue.push({ data, isBinary });
      if (!client.paused && client.queue.length >= flow.maxQueued) {
        client.paused = true;
        ws.pause();
      }
      schedule(client);
    });
  }

  // A client whose waiting bytes stay above the high-water mark, none of them delivered, has stopped reading.
  const watchdog = setInterval(
    () => {
      const now = Date.now();
      for (const client of clients) {
        if (client.ws.bufferedAmount <= flow.highWaterBytes) client.movedAt = now;
        else if (now - client.movedAt > flow.stallMs) drop(client, `a client read nothing of its ${(client.ws.bufferedAmount / 1024 / 1024).toFixed(1)} MB of replies for ${Math.round((now - client.movedAt) / 1000)} s`);
      }
    },
    Math.max(10, Math.min(1_000, flow.stallMs / 4)),
  );
  watchdog.unref();

  const unsubscribe = options.hub.subscribe((message) => {
    // Serialised once for all clients (an agent run streams many events).
    const text = JSON.stringify(message);
    for (const client of clients) sendText(client, text);
  });

  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => {
      unsubscribe();
      clearInterval(watchdog);
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
            clearInterval(watchdog);
            for (const ws of wss.clients) ws.terminate();
            wss.close();
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}
