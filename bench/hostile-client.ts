// The hostile suite's clients of the web host: the host in a process of its own (bench/hostile-host.ts),
// WebSocket clients that keep every reply, and waits for conditions.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import WebSocket from 'ws';
import { TOKEN_PROTOCOL_PREFIX, WS_PATH, WS_PROTOCOL, type WsFrame } from '../src-shared/ws-client';
import type { FlowLimits } from '../src-main/host/web';
import type { HostStats } from './hostile-host';

const REPO = join(import.meta.dirname, '..');
const TOKEN = 'bench-token';

export interface HostProcess {
  port: number;
  reset(): Promise<void>;
  stats(): Promise<HostStats>;
  close(): Promise<void>;
}

/** Starts the web host on `dbPath` in its own process (bench/hostile-host.ts). */
export async function serve(dbPath: string, flow?: Partial<FlowLimits>): Promise<HostProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'hostile-host.ts'), dbPath, ...(flow ? [JSON.stringify(flow)] : [])], {
    cwd: REPO,
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async <T>(): Promise<T> => {
    for (;;) {
      const { value, done } = await lines.next();
      if (done) throw new Error('the hostile-suite host process ended');
      if (value.startsWith('{')) return JSON.parse(value) as T;
    }
  };
  const { port } = await next<{ port: number }>();
  const ask = async <T>(command: string): Promise<T> => {
    child.stdin.write(`${command}\n`);
    return next<T>();
  };
  return {
    port,
    reset: async () => {
      child.stdin.write('reset\n');
      await ask<HostStats>('stats');
    },
    stats: () => ask<HostStats>('stats'),
    close: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.stdin.end();
      }),
  };
}

export interface Client {
  ws: WebSocket;
  replies: Map<number | null, WsFrame[]>;
  count: () => number;
  closed: Promise<number>;
  /** Resolves true once `done()` holds, checked at each reply (no polling), or false after `timeoutMs`. */
  when(done: () => boolean, timeoutMs: number): Promise<boolean>;
}

export async function connect(port: number): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, [WS_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${TOKEN}`], { origin: `http://127.0.0.1:${port}`, maxPayload: 0 });
  const replies = new Map<number | null, WsFrame[]>();
  let n = 0;
  const waiters = new Set<() => void>();
  ws.on('message', (d) => {
    const frame = JSON.parse(String(d)) as WsFrame;
    if (!('reply' in frame)) return;
    n++;
    replies.set(frame.id, [...(replies.get(frame.id) ?? []), frame]);
    for (const check of waiters) check();
  });
  ws.on('error', () => {});
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const when = (done: () => boolean, timeoutMs: number): Promise<boolean> =>
    new Promise((resolve) => {
      const finish = (ok: boolean) => {
        waiters.delete(check);
        clearTimeout(timer);
        resolve(ok);
      };
      const check = () => done() && finish(true);
      const timer = setTimeout(() => finish(done()), timeoutMs);
      waiters.add(check);
      void closed.then(() => finish(done()));
      check();
    });
  return { ws, replies, count: () => n, closed, when };
}

export const until = async (done: () => boolean, timeoutMs = 20_000): Promise<boolean> => {
  for (const deadline = Date.now() + timeoutMs; !done(); ) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 2));
  }
  return true;
};

/** One round trip on a fresh connection: is the host still answering? */
export async function probe(port: number): Promise<number | null> {
  const c = await connect(port);
  const t0 = performance.now();
  c.ws.send(JSON.stringify({ id: 1, channel: 'tasks.list', input: { limit: 1 } }));
  const ok = await until(() => c.replies.get(1)?.[0] !== undefined && 'reply' in c.replies.get(1)![0]! && (c.replies.get(1)![0] as { reply: { ok: boolean } }).reply.ok);
  const t = performance.now() - t0;
  c.ws.terminate();
  return ok ? t : null;
}

export const reply = (c: Client, id: number) => {
  const f = c.replies.get(id)?.[0];
  return f && 'reply' in f ? f.reply : undefined;
};

export const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

