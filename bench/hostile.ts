// The hostile suite: every attack family that can be driven from here, with inputs tried, inputs
// survived and the largest delay of the host's main event loop while it lasted. The web host runs in a
// process of its own (bench/hostile-host.ts), so the delay is its own and not the attacking clients';
// so does the calculator (bench/hostile-calc.ts), so an expression that takes a process down is
// counted and the rest still tried.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import WebSocket from 'ws';
import { z } from 'zod';
import { channels, type ChannelName } from '../src-shared/ipc';
import { TOKEN_PROTOCOL_PREFIX, WS_PATH, WS_PROTOCOL, type WsFrame } from '../src-shared/ws-client';
import { addTask, newUserRequest, openDatabase, type Db } from '../src-main/core';
import type { FlowLimits } from '../src-main/host/web';
import { CALC_ATTACKS, CALC_TIMEOUT_MS, type CalcLine } from './hostile-calc';
import { restoredFiles, restoreWhileOpen } from './hostile-store';
import { hostileCalendar } from './hostile-calendar';
import { dataFamilies } from './hostile-data';
import type { HostStats } from './hostile-host';
import { mcpFamilies } from './hostile-mcp';
import { ms } from './util';

const REPO = join(import.meta.dirname, '..');
const TOKEN = 'bench-token';
const MB = 1024 * 1024;

interface Family {
  name: string;
  tried: number;
  survived: number;
  maxDelayMs: number;
  seconds: number;
  note?: string;
}

const families: Family[] = [];

/** Runs one family against `host` (its delay is read from it), or one that measures its own delay. */
async function family(name: string, host: HostProcess | null, attack: () => Promise<[number, number, string?, number?]>): Promise<void> {
  await host?.reset();
  const t0 = performance.now();
  const [tried, survived, note, ownDelay] = await attack();
  const maxDelayMs = host ? (await host.stats()).maxDelayMs : (ownDelay ?? NaN);
  const f = { name, tried, survived, maxDelayMs, seconds: (performance.now() - t0) / 1000, note };
  families.push(f);
  print(f);
}

function print(f: Family): void {
  const verdict = f.survived === f.tried ? 'all survived' : `${f.tried - f.survived} NOT survived`;
  console.log(`  ${f.name.padEnd(34)} tried ${String(f.tried).padStart(5)}  survived ${String(f.survived).padStart(5)}  (${verdict})  max loop delay ${ms(f.maxDelayMs).padStart(9)}  (${f.seconds.toFixed(1)} s)`);
  if (f.note) console.log(`    ${f.note}`);
}

/** `n` tasks of about 2,000 characters (the most a task holds): a page of 1,000 is a 2 MB reply. */
function seed(db: Db, n: number): void {
  db.transaction(() => {
    for (let i = 0; i < n; i++) addTask(db, newUserRequest(db), { content: `Task ${i} ${'x'.repeat(1_990)}` });
  })();
}

interface HostProcess {
  port: number;
  reset(): Promise<void>;
  stats(): Promise<HostStats>;
  close(): Promise<void>;
}

/** Starts the web host on `dbPath` in its own process (bench/hostile-host.ts). */
async function serve(dbPath: string, flow?: Partial<FlowLimits>): Promise<HostProcess> {
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

interface Client {
  ws: WebSocket;
  replies: Map<number | null, WsFrame[]>;
  count: () => number;
  closed: Promise<number>;
}

async function connect(port: number): Promise<Client> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, [WS_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${TOKEN}`], { origin: `http://127.0.0.1:${port}`, maxPayload: 0 });
  const replies = new Map<number | null, WsFrame[]>();
  let n = 0;
  ws.on('message', (d) => {
    const frame = JSON.parse(String(d)) as WsFrame;
    if (!('reply' in frame)) return;
    n++;
    replies.set(frame.id, [...(replies.get(frame.id) ?? []), frame]);
  });
  ws.on('error', () => {});
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  return { ws, replies, count: () => n, closed };
}

const until = async (done: () => boolean, timeoutMs = 20_000): Promise<boolean> => {
  for (const deadline = Date.now() + timeoutMs; !done(); ) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 2));
  }
  return true;
};

/** One round trip on a fresh connection: is the host still answering? */
async function probe(port: number): Promise<number | null> {
  const c = await connect(port);
  const t0 = performance.now();
  c.ws.send(JSON.stringify({ id: 1, channel: 'tasks.list', input: { limit: 1 } }));
  const ok = await until(() => c.replies.get(1)?.[0] !== undefined && 'reply' in c.replies.get(1)![0]! && (c.replies.get(1)![0] as { reply: { ok: boolean } }).reply.ok);
  const t = performance.now() - t0;
  c.ws.terminate();
  return ok ? t : null;
}

const reply = (c: Client, id: number) => {
  const f = c.replies.get(id)?.[0];
  return f && 'reply' in f ? f.reply : undefined;
};

const percentile = (xs: number[], p: number): number => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? NaN;

// --- WebSocket frames ---------------------------------------------------------------------------

/** Frames nested deeper than any input may be, up to the frame limit, on several channels. */
function deepFrames(): string[] {
  const frames: string[] = [];
  const at: [string, string][] = [
    ['settings.set', '{"key":"protocol","value":@}'],
    ['tasks.add', '{"content":@}'],
    ['agent.send', '{"message":@}'],
    ['tasks.list', '{"project":@}'],
  ];
  for (const depth of [33, 64, 100, 1_000, 1_500, 10_000, 50_000, 100_000, 130_000]) {
    for (const [open, close] of [['[', ']'], ['{"a":', '}']] as const) {
      const value = open.repeat(depth) + (open === '[' ? '' : '1') + close.repeat(depth);
      for (const [channel, input] of at) {
        const text = `{"id":${frames.length + 1},"channel":"${channel}","input":${input.replace('@', () => value)}}`;
        if (text.length < 256 * 1024) frames.push(text);
      }
    }
  }
  return frames;
}

async function deepNesting(port: number): Promise<[number, number, string]> {
  const frames = deepFrames();
  const c = await connect(port);
  for (const f of frames) c.ws.send(f);
  await until(() => c.count() >= frames.length);
  const survived = frames.filter((_, i) => reply(c, i + 1)?.ok === false && (reply(c, i + 1) as { code: string }).code === 'invalid_input').length;
  c.ws.terminate();
  const alive = (await probe(port)) !== null;
  return [frames.length, alive ? survived : 0, `depths 33 to 130,000, arrays and objects, 4 channels; every one answered invalid_input: ${survived === frames.length}`];
}

async function hugeFrames(port: number): Promise<[number, number, string]> {
  let survived = 0;
  const codes: number[] = [];
  const sizes = [256 * 1024 + 1, MB, 8 * MB, 32 * MB];
  for (const size of sizes) {
    const c = await connect(port);
    const body = `{"id":1,"channel":"tasks.add","input":{"content":"${'x'.repeat(size)}"}}`;
    c.ws.send(body);
    const code = await Promise.race([c.closed, new Promise<number>((r) => setTimeout(() => r(0), 10_000))]);
    codes.push(code);
    // 1009 (too big) when the host's close frame is read; 1006 when the client is still writing as the host cuts it off.
    if ((code === 1009 || code === 1006) && (await probe(port)) !== null) survived++;
    c.ws.terminate();
  }
  // Within the limit but too many values: a 250 KB array of zeros.
  const c = await connect(port);
  c.ws.send(`{"id":1,"channel":"settings.set","input":{"key":"protocol","value":[${Array(120_000).fill(0).join(',')}]}}`);
  await until(() => c.count() >= 1);
  if (reply(c, 1)?.ok === false) survived++;
  c.ws.terminate();
  return [sizes.length + 1, survived, `257 KB to 32 MB frames: connection closed (${codes.join(', ')}); a 120,000-value array refused`];
}

async function malformedFrames(port: number): Promise<[number, number, string]> {
  const texts = fc.sample(
    fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.json({ maxDepth: 3 }).map((j) => j.slice(0, Math.max(0, j.length - 1))),
      fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
      fc.record({ id: fc.oneof(fc.string(), fc.double(), fc.constant(null), fc.constant(-1)), channel: fc.jsonValue({ maxDepth: 3 }), input: fc.jsonValue({ maxDepth: 3 }) }).map((r) => JSON.stringify(r)),
      fc.constantFrom('', '{', '}', 'null', '[]', '{"id":1}', '{"id":1e308,"channel":"tasks.list","input":{}}', '{"id":1,"channel":"tasks.list","input":{}', '\u0000', '\uFEFF{}'),
    ),
    { numRuns: 400, seed: 42 },
  );
  const binaries = fc.sample(fc.uint8Array({ maxLength: 200 }), { numRuns: 50, seed: 42 });
  const c = await connect(port);
  for (const t of texts) c.ws.send(t);
  for (const b of binaries) c.ws.send(b);
  const all = texts.length + binaries.length;
  await until(() => c.count() >= all);
  const answered = c.count();
  const internal = [...c.replies.values()].flat().filter((f) => 'reply' in f && !f.reply.ok && f.reply.code === 'internal').length;
  const open = c.ws.readyState === WebSocket.OPEN;
  c.ws.terminate();
  const alive = (await probe(port)) !== null;
  return [all, alive && open ? Math.min(answered, all) - internal : 0, `text, binary, truncated JSON and frames of the wrong shape; ${internal} internal errors; connection kept: ${open}`];
}

/** Objects with a channel's own field names and random values: the likeliest near-misses. */
const nearMiss = (name: ChannelName) => {
  const schema = channels[name].input;
  const keys = schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
  const value = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.string()), fc.object());
  return keys.length ? fc.dictionary(fc.constantFrom(...keys), value) : fc.object();
};

async function wrongTypes(port: number): Promise<[number, number, string]> {
  // providers.test would reach the network.
  const names = (Object.keys(channels) as ChannelName[]).filter((n) => n !== 'providers.test');
  const payloads = fc.sample(
    fc.oneof(
      fc.constantFrom(...names).chain((name) => fc.tuple(fc.constant<string>(name), fc.oneof(nearMiss(name), fc.jsonValue({ maxDepth: 3 })))),
      fc.tuple(fc.oneof(fc.string(), fc.constantFrom('__proto__', 'constructor', 'toString')), fc.jsonValue({ maxDepth: 3 })),
    ),
    { numRuns: 1_000, seed: 7 },
  );
  const c = await connect(port);
  payloads.forEach(([channel, input], i) => c.ws.send(JSON.stringify({ id: i + 1, channel, input })));
  await until(() => c.count() >= payloads.length, 30_000);
  let survived = 0;
  let internal = 0;
  for (let i = 1; i <= payloads.length; i++) {
    const r = reply(c, i);
    if (r && (r.ok || r.code !== 'internal')) survived++;
    if (r && !r.ok && r.code === 'internal') internal++;
  }
  c.ws.terminate();
  return [payloads.length, (await probe(port)) !== null ? survived : 0, `every channel (but providers.test) and names outside the contract; ${internal} internal errors`];
}

// --- slow readers and floods --------------------------------------------------------------------

async function slowReaders(host: HostProcess, stallMs: number): Promise<[number, number, string]> {
  const before = await host.stats();
  const slow = await Promise.all([1, 2, 3].map(() => connect(host.port)));
  for (const c of slow) {
    c.ws.pause(); // never reads: every reply can only pile up
    for (let i = 1; i <= 300; i++) c.ws.send(JSON.stringify({ id: i, channel: 'tasks.list', input: { limit: 1_000 } }));
  }
  const latencies: number[] = [];
  const fast = await connect(host.port);
  for (let i = 1; i <= 40; i++) {
    const t0 = performance.now();
    fast.ws.send(JSON.stringify({ id: i, channel: 'tasks.list', input: { limit: 20 } }));
    await until(() => fast.replies.has(i));
    latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 25));
  }
  let stats = await host.stats();
  for (const deadline = Date.now() + stallMs * 4; stats.logs.filter((l) => l.includes('closed that client')).length < slow.length && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 100));
    stats = await host.stats();
  }
  const dropped = stats.logs.filter((l) => l.includes('closed that client')).length;
  const heavy = stats.requests - 40;
  for (const c of slow) c.ws.terminate();
  fast.ws.terminate();
  const alive = (await probe(host.port)) !== null;
  const tried = slow.length * 300;
  return [
    tried,
    alive && dropped === slow.length ? tried : 0,
    `3 clients × 300 unread 2 MB replies: ${heavy} of ${tried} run; host rss ${before.rssMb.toFixed(0)} → peak ${stats.peakRssMb.toFixed(0)} MB (heap peak ${stats.peakHeapMb.toFixed(0)} MB); ` +
      `another client's request: median ${ms(percentile(latencies, 0.5))}, max ${ms(Math.max(...latencies))}; ${dropped} of 3 closed (1008) after ${stallMs / 1000} s stuck`,
  ];
}

async function flood(host: HostProcess): Promise<[number, number, string]> {
  const flooder = await connect(host.port);
  const other = await connect(host.port);
  const n = 50;
  for (let i = 1; i <= n; i++) flooder.ws.send(JSON.stringify({ id: i, channel: 'tasks.list', input: { limit: 1_000 } }));
  const latencies: number[] = [];
  for (let i = 1; i <= 30 && flooder.count() < n; i++) {
    const t0 = performance.now();
    other.ws.send(JSON.stringify({ id: i, channel: 'tasks.list', input: { limit: 20 } }));
    await until(() => other.replies.has(i));
    latencies.push(performance.now() - t0);
  }
  const all = await until(() => flooder.count() >= n, 60_000);
  const { longestMs } = await host.stats();
  flooder.ws.terminate();
  other.ws.terminate();
  return [
    n,
    all ? n : flooder.count(),
    `one client pipelines ${n} 2 MB tasks.list pages, reading them: another client's request median ${ms(percentile(latencies, 0.5))}, max ${ms(Math.max(...latencies))} ` +
      `(${latencies.length} tried); the longest single request ${ms(longestMs)} (synchronous SQLite and mapping: the unavoidable part)`,
  ];
}

// --- the calculator -------------------------------------------------------------------------------

/** Runs the calculator attacks in child processes, starting a new one after any that dies. */
async function calculator(): Promise<[number, number, string, number]> {
  const ok = new Set<number>();
  const deaths: string[] = [];
  let maxDelay = 0;
  let works = false;
  for (let first = 0; first < CALC_ATTACKS.length; ) {
    const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, 'bench', 'hostile-calc.ts'), String(first)], { cwd: REPO, stdio: ['ignore', 'pipe', 'ignore'] });
    let last = first - 1;
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const lines = out.split('\n');
      out = lines.pop()!;
      for (const line of lines) {
        if (!line.startsWith('{')) continue;
        const msg = JSON.parse(line) as CalcLine | { done: true; works: boolean; maxDelayMs: number };
        if ('done' in msg) {
          works = msg.works;
          maxDelay = Math.max(maxDelay, msg.maxDelayMs);
        } else {
          last = msg.index;
          if (msg.ok) ok.add(msg.index);
        }
      }
    });
    const end = await new Promise<string>((resolve) => child.on('exit', (c, signal) => resolve(signal ?? String(c))));
    if (end === '0') break;
    const killer = CALC_ATTACKS[last + 1] ?? '?';
    deaths.push(`${/^\d+$/.test(end) ? `exit ${end}` : end} on ${killer.length > 70 ? `${killer.slice(0, 70)}… (${killer.length} chars)` : killer}`);
    first = last + 2;
  }
  // The child's own loop delay: expressions run in the calculator's worker, never on its main thread.
  const note = `time limit ${CALC_TIMEOUT_MS / 1000} s; a normal call works afterwards: ${works}; the delay is the calculator process's main loop` + (deaths.length ? `; the PROCESS DIED: ${deaths.join('; ')}` : '');
  return [CALC_ATTACKS.length, ok.size, note, maxDelay];
}

export async function benchHostile(): Promise<void> {
  console.log("Hostile suite (inputs tried; survived: answered without a crash or an internal error, host still serving; the host's max event-loop delay)");
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-hostile-'));
  try {
    openDatabase(join(dir, 'hostile.db')).close();
    const host = await serve(join(dir, 'hostile.db'));
    await family('frames: deep nesting', host, () => deepNesting(host.port));
    await family('frames: oversized', host, () => hugeFrames(host.port));
    await family('frames: malformed', host, () => malformedFrames(host.port));
    await family('frames: wrong types, every channel', host, () => wrongTypes(host.port));
    await host.close();

    const big = openDatabase(join(dir, 'big.db'));
    seed(big, 1_000);
    big.close();
    const stallMs = 3_000;
    const bigHost = await serve(join(dir, 'big.db'), { stallMs });
    await family('slow readers', bigHost, () => slowReaders(bigHost, stallMs));
    await family('flood of costly requests', bigHost, () => flood(bigHost));
    await bigHost.close();

    await family('store: files not Tidy\'s schema', null, restoredFiles);
    await family('store: restore while open', null, () => restoreWhileOpen());
    await family('calculator expressions', null, calculator);

    await mcpFamilies((name, attack) => family(name, null, attack), dir);
    // The calendar part (bench/hostile-calendar.ts): run in this process; the times are in each note.
    for (const [name, outcome] of hostileCalendar()) await family(name, null, () => Promise.resolve([outcome.tried, outcome.survived, outcome.note]));
    // Item 4's first-open races, item 6's Todoist values, item 8's ZIPs and the Smaller list (bench/hostile-data.ts).
    await dataFamilies((name, attack) => family(name, null, attack));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const tried = families.reduce((n, f) => n + f.tried, 0);
  const survived = families.reduce((n, f) => n + f.survived, 0);
  console.log(`  ${'all families'.padEnd(34)} tried ${String(tried).padStart(5)}  survived ${String(survived).padStart(5)}  in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}
