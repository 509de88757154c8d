// The MCP part of `npm run bench hostile` (issue 28 items 3, 10, 11): `tidy mcp` fed hostile lines on
// stdin (with the peak memory of a 256 MiB line), a client that pipelines 6,000 calls and leaves, a client
// undoing the user's requests, MCP servers that answer too much, and `tidy mcp add` with bad input.
// A family's input counts as survived when it got the answer it should (the JSON-RPC error, the refusal,
// the one line) and the process served on (or exited cleanly).
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { addTask, newUserRequest, openDatabase } from '../src-main/core';
import { connectMcpServers } from '../src-main/core/mcp/client';
import type { ToolContext } from '../src-main/core/tools/tool';

type Attack = () => Promise<[number, number, string?, number?]>;
export type FamilyRunner = (name: string, attack: Attack) => Promise<void>;

const REPO = join(import.meta.dirname, '..');
const TIDY = join(REPO, 'bin', 'tidy.mjs');
const RAW = join(REPO, 'test', 'fakes', 'mcp-raw-server.mjs');
const MB = 1024 * 1024;

interface Served {
  child: ChildProcessWithoutNullStreams;
  replies: Map<unknown, Record<string, unknown>>;
  stderrLines: () => number;
  write: (text: string) => Promise<void>;
  wait: (id: unknown, ms?: number) => Promise<Record<string, unknown> | null>;
  peakKiB: () => number;
}

function mcp(db: string): Served {
  const child = spawn(process.execPath, [TIDY, '--db', db, 'mcp'], { stdio: 'pipe' });
  const replies = new Map<unknown, Record<string, unknown>>();
  let out = '';
  let errLines = 0;
  const waiters = new Map<unknown, () => void>();
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const l of lines) {
      const r = JSON.parse(l) as Record<string, unknown>;
      replies.set(r['id'], r);
      waiters.get(r['id'])?.();
    }
  });
  child.stderr.on('data', (d: Buffer) => (errLines += d.toString().split('\n').length - 1));
  child.stdin.on('error', () => {});
  let peak = 0;
  const sample = setInterval(() => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      if (hwm) peak = Math.max(peak, Number(hwm));
    } catch {
      // gone, or not Linux
    }
  }, 50);
  child.once('exit', () => clearInterval(sample));
  return {
    child,
    replies,
    stderrLines: () => errLines,
    write: (text) => new Promise((resolve) => (child.stdin.write(text) ? resolve() : child.stdin.once('drain', () => resolve()))),
    wait: (id, ms = 30_000) =>
      new Promise((resolve) => {
        if (replies.has(id)) return resolve(replies.get(id)!);
        const timer = setTimeout(() => resolve(null), ms);
        waiters.set(id, () => {
          clearTimeout(timer);
          resolve(replies.get(id)!);
        });
      }),
    peakKiB: () => peak,
  };
}

const line = (m: unknown) => `${JSON.stringify(m)}\n`;
const INIT = line({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Bench', version: '1' } } });
const exited = (c: ChildProcessWithoutNullStreams): Promise<number | null> => (c.exitCode !== null ? Promise.resolve(c.exitCode) : new Promise((r) => c.once('exit', (code) => r(code))));

/** Hostile lines on stdin; each is expected to get this error code back, then the server must still answer. */
const STDIN_ATTACKS: [string, number, string | number | null][] = [ // line, expected code, expected id
  ['{"jsonrpc":"2.0","id":1,"method":', -32700, null],
  ['{"jsonrpc":"2.0",\u0000}', -32700, null],
  ['not json at all', -32700, null],
  ['{"a":1}}', -32700, null],
  ['[]', -32600, null],
  ['[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]', -32600, null],
  [`[${Array(1000).fill('{"jsonrpc":"2.0","id":3,"method":"tools/list"}').join(',')}]`, -32600, null],
  ['42', -32600, null],
  ['"hello"', -32600, null],
  ['null', -32600, null],
  ['true', -32600, null],
  ['{"jsonrpc":"1.0","id":10,"method":"tools/list"}', -32600, 10],
  ['{"id":11,"method":"tools/list"}', -32600, 11],
  ['{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}', -32600, null],
  ['{"jsonrpc":"2.0","id":12,"method":42}', -32600, 12],
  [`{"jsonrpc":"2.0","id":13,"method":"tools/list","params":${'['.repeat(65)}${']'.repeat(65)}}`, -32600, 13],
  [`{"jsonrpc":"2.0","id":14,"method":"tools/list","params":${'['.repeat(100_000)}${']'.repeat(100_000)}}`, -32600, 14],
  [`{"jsonrpc":"2.0","id":15,"method":"tools/list","params":{"a":[${Array(300_000).fill(0).join(',')}]}}`, -32600, 15],
];

const stdinMessages: Attack = async () => {
  const db = join(process.env['TIDY_BENCH_DIR']!, 'mcp-stdin.db');
  const s = mcp(db);
  let tried = 0;
  let survived = 0;
  // Before initialize.
  tried++;
  await s.write(line({ jsonrpc: '2.0', id: 'early', method: 'tools/list' }));
  if ((await s.wait('early'))?.['error']) survived++;
  await s.write(INIT);
  await s.wait('init');
  await s.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  let probe = 0;
  const alive = async (): Promise<boolean> => {
    const id = `probe${probe++}`;
    await s.write(line({ jsonrpc: '2.0', id, method: 'tools/list' }));
    return Boolean((await s.wait(id))?.['result']);
  };
  for (const [text, code] of STDIN_ATTACKS) {
    tried++;
    s.replies.clear();
    await s.write(`${text}\n`);
    const ok = await alive();
    const answered = [...s.replies.values()].some((r) => (r['error'] as { code?: number } | undefined)?.code === code);
    if (ok && answered) survived++;
  }
  // Oversized lines, streamed in 1 MiB parts: 9 MiB and 256 MiB.
  let peakNote = '';
  for (const mib of [9, 256]) {
    tried++;
    const peakBefore = s.peakKiB();
    await s.write(`{"jsonrpc":"2.0","id":"big${mib}","method":"tools/call","params":{"name":"add_task","arguments":{"content":"`);
    const part = 'x'.repeat(MB);
    for (let i = 0; i < mib; i++) await s.write(part);
    await s.write('"}}}\n');
    const r = await s.wait(`big${mib}`, 120_000);
    if ((r?.['error'] as { code?: number } | undefined)?.code === -32600 && (await alive())) survived++;
    if (mib === 256) peakNote = `peak memory of tidy mcp (VmHWM) ${(peakBefore / 1024).toFixed(0)} MiB before a 256 MiB line, ${(s.peakKiB() / 1024).toFixed(0)} MiB after`;
  }
  const lines = s.stderrLines();
  s.child.stdin.end();
  await exited(s.child);
  return [tried, survived, `${peakNote}; ${lines} stderr lines in all`];
};

const pipelinedThenGone: Attack = async () => {
  const db = join(process.env['TIDY_BENCH_DIR']!, 'mcp-pipe.db');
  openDatabase(db).close();
  const s = mcp(db);
  await s.write(INIT);
  await s.wait('init');
  await s.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  s.child.stdin.end(Array.from({ length: 6000 }, (_, i) => line({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'add_task', arguments: { content: `Pipelined ${i}` } } })).join(''));
  const code = await exited(s.child);
  const d = openDatabase(db);
  const ran = (d.prepare(`SELECT COUNT(*) AS n FROM tasks`).get() as { n: number }).n;
  d.close();
  return [1, code === 0 && ran < 6000 ? 1 : 0, `6,000 pipelined add_task calls, then the client left: ${ran} ran`];
};

const undoOthers: Attack = async () => {
  const db = join(process.env['TIDY_BENCH_DIR']!, 'mcp-undo.db');
  const d = openDatabase(db);
  const ids: string[] = [];
  for (let i = 0; i < 20; i++) {
    const ctx = newUserRequest(d);
    addTask(d, ctx, { content: `Mine ${i}` });
    ids.push(ctx.requestId);
  }
  d.close();
  const s = mcp(db);
  await s.write(INIT);
  await s.wait('init');
  await s.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  let survived = 0;
  const attempts = [...ids.map((id) => ({ name: 'undo_request', arguments: { id } })), ...Array.from({ length: 20 }, () => ({ name: 'undo_last_request', arguments: {} }))];
  for (const [i, params] of attempts.entries()) {
    await s.write(line({ jsonrpc: '2.0', id: `u${i}`, method: 'tools/call', params }));
    const r = await s.wait(`u${i}`);
    if ((r?.['result'] as { isError?: boolean } | undefined)?.isError === true) survived++;
  }
  s.child.stdin.end();
  await exited(s.child);
  const after = openDatabase(db);
  const open = (after.prepare(`SELECT COUNT(*) AS n FROM tasks`).get() as { n: number }).n;
  after.close();
  return [attempts.length, open === 20 ? survived : 0, `${open} of the user's 20 tasks still there`];
};

const serversAnsweringTooMuch: Attack = async () => {
  let tried = 0;
  let survived = 0;
  const server = (mode: string) => ({ command: process.execPath, args: [RAW], env: { RAW_MCP_MODE: mode }, enabled: true });
  const o = { connectTimeoutMs: 60_000, callTimeoutMs: 60_000 };
  tried++;
  const huge = await connectMcpServers({ huge: server('huge') }, o);
  try {
    const echo = huge.tools.find((t) => t.name === 'huge__echo');
    const ctx = { signal: new AbortController().signal } as unknown as ToolContext;
    const big = echo ? await echo.run({ text: 'big' }, ctx) : null;
    const small = echo ? await echo.run({ text: 'small' }, ctx) : null;
    if (big && !big.ok && /MiB is over/.test(big.error) && small?.ok) survived++;
  } finally {
    await huge.close();
  }
  for (const [mode, expected] of [
    ['tools', /more than 200,000 values/],
    ['deep', /nested more than 64 levels/],
  ] as const) {
    tried++;
    const c = await connectMcpServers({ [mode]: server(mode), fine: server('ok') }, o);
    if (c.problems.length === 1 && expected.test(c.problems[0]!) && c.tools.some((t) => t.name === 'fine__echo')) survived++;
    await c.close();
  }
  return [tried, survived, 'a 20 MB result, 100,000 tools, a 5,000-deep schema'];
};

const addBadServers: Attack = async () => {
  const db = join(process.env['TIDY_BENCH_DIR']!, 'mcp-add.db');
  const cases: string[][] = [
    ['notes', '--env', 'A B=1', '--', 'srv'],
    ['notes', '--env', '1A=1', '--', 'srv'],
    ['notes', '--env', '=1', '--', 'srv'],
    ['web', '--url', 'http://localhost:70000/mcp'],
    ['web', '--url', 'http://localhost:99999999999999999999/mcp'],
    ['web', '--url', 'http://localhost:8080/mcp\r\nX-Evil: 1'],
    ['web', '--url', 'http://localhost:8080/\nmcp'],
    ['web', '--url', 'ftp://x/'],
    ['web', '--url', 'http://user:pw@x/'],
    ['🙂', '--', 'srv'],
  ];
  let survived = 0;
  for (const args of cases) {
    const r = spawnSync(process.execPath, [TIDY, '--db', db, 'mcp', 'add', ...args], { encoding: 'utf8' });
    if (r.status === 2 && r.stderr.trim().split('\n').length <= 2 && r.stderr.length < 400) survived++;
  }
  return [cases.length, survived, 'each refused in one line, exit 2'];
};

export async function mcpFamilies(run: FamilyRunner, dir: string): Promise<void> {
  process.env['TIDY_BENCH_DIR'] = dir;
  await run('tidy mcp: hostile stdin', stdinMessages);
  await run('tidy mcp: 6,000 pipelined, client gone', pipelinedThenGone);
  await run("tidy mcp: undo the user's requests", undoOthers);
  await run('MCP servers: answers too big', serversAnsweringTooMuch);
  await run('tidy mcp add: bad servers', addBadServers);
}
