/**
 * The web transport's client: the IPC contract over one WebSocket to `tidy serve`. Used by the renderer
 * in a browser (with the browser's WebSocket) and by tests in Node (with the `ws` package).
 *
 * The per-launch token travels as a WebSocket subprotocol (`tidy.token.<token>`), i.e. in the
 * Sec-WebSocket-Protocol header of the upgrade request: never in a URL, never in a cookie, so no other
 * origin (not even another port on 127.0.0.1) is ever sent it.
 */
import { createListeners, failed, type Failed, type Reply, type Transport } from './bridge';
import type { EventName, WsRequest } from './ipc';
import { TOPICS } from './topics';

export const WS_PATH = '/ws';
export const WS_PROTOCOL = 'tidy.v1';
export const TOKEN_PROTOCOL_PREFIX = 'tidy.token.';

/** A frame the host sends: a reply to request `id` (null when the request frame itself was unreadable), or an event. */
export type WsFrame = { id: number | null; reply: Reply } | { event: EventName; payload: unknown };

/** The part of the WebSocket API this client needs; the browser's WebSocket and `ws` both have it. */
interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: 'open' | 'close' | 'error', listener: () => void): void;
  addEventListener(type: 'message', listener: (event: { data: unknown }) => void): void;
}

type OpenSocket = (url: string, protocols: string[]) => SocketLike;

const OPEN = 1;
// This module stays zod-free (the contract is imported as types): the topics come from the plain list.
const ALL_TOPICS = TOPICS;

const unreachable = (): Failed =>
  failed('disconnected', 'the connection to the Tidy web host is closed', 'is `tidy serve` still running? Open the URL it printed (it carries the access token)');

interface WsClientOptions {
  /** Reconnect delay after the connection drops while someone listens for events; doubles up to 30 s. */
  reconnectMs?: number;
}

/**
 * A Transport over a WebSocket. It connects on first use, reconnects when a request is made or (with
 * backoff) when events are being listened to, and after a reconnect tells listeners that every view may
 * be stale (a `data.changed` for all topics), since events may have been missed.
 */
export function connectWebSocket(url: string, token: string, open: OpenSocket, options: WsClientOptions = {}): Transport {
  const base = options.reconnectMs ?? 1000;
  const pending = new Map<number, (reply: Reply) => void>();
  const listeners = createListeners();
  let socket: SocketLike | null = null;
  let queue: string[] = [];
  let nextId = 1;
  let everOpened = false;
  let delay = base;
  let timer: ReturnType<typeof setTimeout> | null = null;

  const connect = (): SocketLike => {
    if (socket) return socket;
    const s = open(url, [WS_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${token}`]);
    socket = s;
    s.addEventListener('open', () => {
      delay = base;
      for (const frame of queue) s.send(frame);
      queue = [];
      if (everOpened) listeners.emit('data.changed', { topics: [...ALL_TOPICS] });
      everOpened = true;
    });
    // A refused or dropped connection ends in 'close'; listening to 'error' keeps Node's `ws` from throwing.
    s.addEventListener('error', () => {});
    s.addEventListener('message', ({ data }) => {
      let frame: WsFrame;
      try {
        frame = JSON.parse(String(data)) as WsFrame;
      } catch {
        return;
      }
      if ('event' in frame) listeners.emit(frame.event, frame.payload);
      else if (frame.id !== null) {
        pending.get(frame.id)?.(frame.reply);
        pending.delete(frame.id);
      }
    });
    s.addEventListener('close', () => {
      if (socket !== s) return;
      socket = null;
      queue = [];
      for (const resolve of pending.values()) resolve(unreachable());
      pending.clear();
      if (listeners.any() && !timer) {
        timer = setTimeout(() => {
          timer = null;
          connect();
        }, delay);
        delay = Math.min(delay * 2, 30_000);
      }
    });
    return s;
  };

  return {
    invoke(channel, input) {
      if (!token) return Promise.resolve(failed('forbidden', 'this page was opened without its access token', 'open the URL that `tidy serve` printed'));
      return new Promise((resolve) => {
        const id = nextId++;
        const frame: WsRequest = { id, channel, input };
        pending.set(id, resolve as (reply: Reply) => void);
        const s = connect();
        const text = JSON.stringify(frame);
        if (s.readyState === OPEN) s.send(text);
        else queue.push(text);
      });
    },
    on(event, listener) {
      const off = listeners.on(event, listener);
      if (token) connect();
      return off;
    },
  };
}
