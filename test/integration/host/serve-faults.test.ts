// A real `tidy serve` process under attack: a frame nested 1,500 levels deep (it used to overflow the
// stack outside every catch and end the process), and a stray unhandled rejection and uncaught
// exception (as a bug anywhere would cause): each is answered or logged, and serving goes on.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { WsFrame } from '../../../src-shared/ws-client';
import { TOKEN_PROTOCOL_PREFIX, WS_PATH, WS_PROTOCOL } from '../../../src-shared/ws-client';
import { TIDY_BIN } from '../../support/cli';
import { buildRendererOnce } from '../../support/renderer';

const FAULTS = pathToFileURL(join(import.meta.dirname, 'fixtures', 'stray-faults.mjs')).href;

let child: ChildProcess;
let port = 0;
let token = '';
let stderr = '';
let dir = '';

beforeAll(async () => {
  await buildRendererOnce();
  dir = mkdtempSync(join(tmpdir(), 'tidy-serve-faults-'));
  const db = join(dir, 'tidy.db');
  child = spawn(process.execPath, ['--import', FAULTS, TIDY_BIN, '--db', db, 'serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.once('exit', (code) => reject(new Error(`tidy serve exited (${code}): ${out}${stderr}`)));
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /http:\/\/127\.0\.0\.1:(\d+)\/\?token=([\w-]+)/.exec(out);
      if (m) {
        [port, token] = [Number(m[1]), m[2]!];
        resolve();
      }
    });
  });
}, 120_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A raw client: sends frames as text, collects the replies by id. */
async function connect() {
  const ws = new WebSocket(`ws://127.0.0.1:${port}${WS_PATH}`, [WS_PROTOCOL, `${TOKEN_PROTOCOL_PREFIX}${token}`], { origin: `http://127.0.0.1:${port}` });
  const replies = new Map<number | null, WsFrame>();
  ws.on('message', (d) => {
    const frame = JSON.parse(String(d)) as WsFrame;
    if ('reply' in frame) replies.set(frame.id, frame);
  });
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const ask = async (id: number, text: string) => {
    ws.send(text);
    await expect.poll(() => replies.has(id), { timeout: 10_000 }).toBe(true);
    return replies.get(id);
  };
  return { ws, ask };
}

describe('tidy serve under attack', () => {
  it('answers a 3 KB frame nested 1,500 levels deep with invalid_input, and the next request works', async () => {
    const { ws, ask } = await connect();
    const deep = '['.repeat(1_500) + ']'.repeat(1_500);
    const text = `{"id":1,"channel":"settings.set","input":{"key":"protocol","value":${deep}}}`;
    expect(text.length).toBeLessThan(3_100);
    expect(await ask(1, text)).toMatchObject({ id: 1, reply: { ok: false, code: 'invalid_input', error: 'invalid input for settings.set: it is nested more than 32 levels deep' } });
    expect(await ask(2, '{"id":2,"channel":"tasks.add","input":{"content":"still here"}}')).toMatchObject({ id: 2, reply: { ok: true } });
    ws.close();
    expect(child.exitCode).toBeNull();
  });

  it('logs an unhandled rejection and an uncaught exception as one line each, and keeps serving', async () => {
    child.kill('SIGUSR2');
    await expect.poll(() => stderr, { timeout: 10_000 }).toContain('stray exception for the test');
    const lines = stderr.split('\n').filter((l) => l.includes('stray'));
    expect(lines).toEqual([
      expect.stringMatching(/^tidy serve: a promise failed and nothing handled it \(still serving\): Error: stray rejection for the test \(at .+stray-faults\.mjs:\d+:\d+\)?\)$/),
      expect.stringMatching(/^tidy serve: an error was not caught \(still serving\): Error: stray exception for the test \(at .+stray-faults\.mjs:\d+:\d+\)?\)$/),
    ]);
    const { ws, ask } = await connect();
    expect(await ask(3, '{"id":3,"channel":"tasks.list","input":{}}')).toMatchObject({ reply: { ok: true, value: { total: 1 } } });
    ws.close();
    expect(child.exitCode).toBeNull();
  });
});
