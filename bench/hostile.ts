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
import fc from 'fast-check';
import WebSocket from 'ws';
import { z } from 'zod';
import { channels, type ChannelName } from '../src-shared/ipc';
import { addTask, newUserRequest, openDatabase, type Db } from '../src-main/core';
import { CALC_ATTACKS, CALC_TIMEOUT_MS, type CalcLine } from './hostile-calc';
import { restoredFiles, restoreWhileOpen } from './hostile-store';
import { busyLock, persistedApprovals, restoreKills } from './hostile-lifecycle';
import { hostileCalendar } from './hostile-calendar';
import { dataFamilies } from './hostile-data';
import { connect, percentile, probe, reply, serve, until, type HostProcess } from './hostile-client';
import { FLOW_LIMITS } from '../src-main/host/web';
import { mcpFamilies } from './hostile-mcp';
import { ms } from './util';

const REPO = join(import.meta.dirname, '..');
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
export function seed(db: Db, n: number): void {
  db.transaction(() => {
    for (let i = 0; i < n; i++) addTask(db, newUserRequest(db), { content: `Task ${i} ${'x'.repeat(1_990)}` });
  })();
}

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

/**
 * One client pipelines costly requests (50 pages of 1,000 tasks, 2 MB each) and reads them; another
 * sends small ones meanwhile. What is judged does not depend on the machine's speed or load:
 * - each costly request is answered, and the client that reads them is never closed as a slow reader;
 *   the time allowed grows with one costly request's time measured alone in the same run;
 * - each small request is answered and passed by at most `maxInFlight` (FLOW_LIMITS: 8) costly replies
 *   while it waits: the host starts requests in turn, so it waits for the request running and what is
 *   already on the wire, never for the other client's queue (up to 32 requests, maxQueued).
 * Times are printed relative to the same run's baselines.
 */
export async function flood(host: HostProcess, maxInFlight: number): Promise<[number, number, string]> {
  const n = 50;
  const costly = { channel: 'tasks.list', input: { limit: 1_000 } };
  const small = { channel: 'tasks.list', input: { limit: 20 } };
  // Baselines, alone on the host, in this run.
  const solo = await connect(host.port);
  const alone = async (req: object, id: number): Promise<number> => {
    const t0 = performance.now();
    solo.ws.send(JSON.stringify({ id, ...req }));
    await solo.when(() => solo.replies.has(id), 120_000);
    return performance.now() - t0;
  };
  const costlyBase: number[] = [];
  const smallBase: number[] = [];
  for (let i = 0; i < 3; i++) costlyBase.push(await alone(costly, 100 + i));
  for (let i = 0; i < 5; i++) smallBase.push(await alone(small, 200 + i));
  solo.ws.terminate();
  const costlyMs = percentile(costlyBase, 0.5);
  const smallMs = percentile(smallBase, 0.5);

  const flooder = await connect(host.port);
  const other = await connect(host.port);
  await host.reset();
  for (let i = 1; i <= n; i++) flooder.ws.send(JSON.stringify({ id: i, ...costly }));
  const latencies: number[] = [];
  const overtaken: number[] = [];
  for (let i = 1; i <= 30 && flooder.count() < n; i++) {
    const before = flooder.count();
    const t0 = performance.now();
    other.ws.send(JSON.stringify({ id: i, ...small }));
    await other.when(() => other.replies.has(i), 120_000);
    latencies.push(performance.now() - t0);
    overtaken.push(flooder.count() - before);
  }
  const allowedMs = Math.max(60_000, 10 * n * costlyMs);
  const all = await flooder.when(() => flooder.count() >= n, allowedMs);
  const stats = await host.stats();
  const dropped = stats.logs.filter((l) => l.includes('closed that client')).length;
  flooder.ws.terminate();
  other.ws.terminate();

  const answered = Array.from({ length: n }, (_, i) => reply(flooder, i + 1)?.ok === true).filter(Boolean).length;
  const fair = overtaken.filter((k, i) => k <= maxInFlight && reply(other, i + 1)?.ok === true).length;
  const x = (v: number, base: number) => `${(v / base).toFixed(1)}×`;
  return [
    n + overtaken.length,
    (dropped === 0 ? answered : 0) + fair,
    `one client pipelines ${n} 2 MB tasks.list pages and reads them: ${answered} answered${all ? '' : ` (not all within ${ms(allowedMs)})`}, ${dropped ? `the reader CLOSED ${dropped} time(s)` : 'never closed'}; ` +
      `another client's ${overtaken.length} small requests meanwhile: passed by at most ${Math.max(0, ...overtaken)} costly replies each (bound ${maxInFlight}), ` +
      `median ${ms(percentile(latencies, 0.5))} (${x(percentile(latencies, 0.5), costlyMs)} one costly request alone), max ${ms(Math.max(...latencies))} (${x(Math.max(...latencies), costlyMs)}); ` +
      `alone in this run: costly ${ms(costlyMs)}, small ${ms(smallMs)}; the longest single request ${ms(stats.longestMs)} (synchronous SQLite and mapping: the unavoidable part)`,
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
    await bigHost.close();
    // The flood on a host with the limits Tidy ships (a reading client is closed only after 15 s without progress).
    const floodHost = await serve(join(dir, 'big.db'));
    await family('flood of costly requests', floodHost, () => flood(floodHost, FLOW_LIMITS.maxInFlight));
    await floodHost.close();

    // Writes while another process holds the write lock: the host's loop goes on (bench/hostile-lifecycle.ts).
    openDatabase(join(dir, 'busy.db')).close();
    const busyHost = await serve(join(dir, 'busy.db'));
    await family('host: writes on a busy lock', busyHost, () => busyLock(busyHost, join(dir, 'busy.db')));
    await busyHost.close();

    await family('store: files not Tidy\'s schema', null, restoredFiles);
    await family('store: restore while open', null, () => restoreWhileOpen());
    await family('store: kill -9 during tidy restore', null, () => restoreKills(dir));
    await family('agent: approvals across kill -9', null, () => persistedApprovals(dir));
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
