// `tidy mcp` under attack (issue 28 items 3 and 10): a client undoes only its own sessions' requests,
// a session's calls end with it, and whatever arrives on stdin is answered with the JSON-RPC error the
// spec names while the server keeps serving.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDatabase } from '../../../src-main/core';
import { TIDY_BIN, tidy } from '../../support/cli';
import { tempDir } from '../../support/db';
import { connectTidyMcp } from '../../support/mcp-client';

/** A client of `tidy mcp` (test/support/mcp-client.ts); `elicit` answers its questions. */
const connect = (db: string, name: string, elicit?: (message: string) => boolean) => connectTidyMcp(db, name, { version: '1.0', ...(elicit ? { elicit } : {}) });

const json = (r: { content?: unknown }): Record<string, unknown> => JSON.parse((r.content as { text: string }[])[0]!.text) as Record<string, unknown>;
const openTasks = (db: string): string[] => (JSON.parse(tidy(db, ['tasks', '--json']).stdout) as { content: string }[]).map((t) => t.content);
const requestOf = (db: string, content: string): string => {
  const raw = openDatabase(db);
  try {
    return (raw.prepare(`SELECT request_id FROM actions WHERE summary LIKE ? ORDER BY seq LIMIT 1`).get(`%${content}%`) as { request_id: string }).request_id;
  } finally {
    raw.close();
  }
};

describe('tidy mcp: a client undoes only its own work', () => {
  it('undo_last_request leaves the user’s own requests alone, and undo_request of one is refused with the command that does it', { timeout: 90_000 }, async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['add', 'Buy milk']).code).toBe(0);
    const userRequest = requestOf(db, 'Buy milk');
    const { client, stderr } = await connect(db, 'Sneaky');
    const last = await client.callTool({ name: 'undo_last_request', arguments: {} });
    expect(last.isError).toBe(true);
    expect(json(last)).toMatchObject({ code: 'nothing_to_undo', error: expect.stringContaining('Sneaky has nothing left to undo') });
    const other = await client.callTool({ name: 'undo_request', arguments: { id: userRequest } });
    expect(other.isError).toBe(true);
    expect(json(other)).toMatchObject({ code: 'declined', error: expect.stringContaining('made by the user in Tidy'), hint: `ask the user to undo it in Tidy: tidy undo --run ${userRequest}` });
    expect(openTasks(db)).toEqual(['Buy milk']);
    await expect.poll(() => stderr().split('\n').filter((l) => l.includes('refused undo_request')).length, { timeout: 30_000 }).toBe(1);

    // Its own request it undoes at once, and then again has nothing of its own left.
    await client.callTool({ name: 'add_task', arguments: { content: 'From the client' } });
    expect(openTasks(db).sort()).toEqual(['Buy milk', 'From the client']);
    expect((json(await client.callTool({ name: 'undo_last_request', arguments: {} }))['reversed'] as unknown[]).length).toBe(1);
    expect(openTasks(db)).toEqual(['Buy milk']);
    expect((await client.callTool({ name: 'undo_last_request', arguments: {} })).isError).toBe(true);
    expect(openTasks(db)).toEqual(['Buy milk']);
  });

  it('another client’s session counts as someone else’s; the user may approve an undo through elicitation', { timeout: 90_000 }, async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['add', 'Buy milk']).code).toBe(0);
    const userRequest = requestOf(db, 'Buy milk');
    const { client: first } = await connect(db, 'Claude Desktop');
    await first.callTool({ name: 'add_task', arguments: { content: 'By Claude' } });
    const claudeRequest = requestOf(db, 'By Claude');

    const asked: string[] = [];
    let yes = false;
    const { client: second } = await connect(db, 'Cursor', (m) => (asked.push(m), yes));
    const declined = await second.callTool({ name: 'undo_request', arguments: { id: claudeRequest } });
    expect(declined.isError).toBe(true);
    expect(json(declined)['error']).toMatch(/declined/);
    expect(asked[0]).toContain(`let Cursor undo request ${claudeRequest}, made by another MCP client (Claude Desktop)`);
    expect(openTasks(db).sort()).toEqual(['Buy milk', 'By Claude']);
    yes = true;
    const approved = await second.callTool({ name: 'undo_request', arguments: { id: userRequest } });
    expect(approved.isError).toBeFalsy();
    expect(asked[1]).toContain('made by the user in Tidy');
    expect(openTasks(db)).toEqual(['By Claude']);
  });
});

/** `tidy mcp` spoken to line by line, without an SDK client in between. */
function raw(db: string): { child: ChildProcessWithoutNullStreams; replies: Record<string, unknown>[]; stderr: () => string; send: (line: string) => void } {
  const child = spawn(process.execPath, [TIDY_BIN, '--db', db, 'mcp'], { stdio: 'pipe' });
  onTestFinished(() => {
    if (child.exitCode === null) child.kill();
  });
  const replies: Record<string, unknown>[] = [];
  let out = '';
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    const lines = out.split('\n');
    out = lines.pop()!;
    for (const l of lines) replies.push(JSON.parse(l) as Record<string, unknown>);
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  child.stdin.on('error', () => {});
  return { child, replies, stderr: () => err, send: (line) => void child.stdin.write(`${line}\n`) };
}

const INITIALIZE = JSON.stringify({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'Raw', version: '1' } } });
const INITIALIZED = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const exited = (child: ChildProcessWithoutNullStreams): Promise<number | null> =>
  child.exitCode !== null ? Promise.resolve(child.exitCode) : new Promise((r) => child.once('exit', (code) => r(code)));

describe('tidy mcp: a session’s calls run in order and end with it', () => {
  it('a client that pipelines 6,000 add_task calls and leaves stops them', { timeout: 120_000 }, async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['tasks']).code).toBe(0);
    const { child, replies, stderr, send } = raw(db);
    send(INITIALIZE);
    await expect.poll(() => replies.some((r) => r['id'] === 'init'), { timeout: 30_000 }).toBe(true);
    send(INITIALIZED);
    const calls = Array.from({ length: 6000 }, (_, i) => JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'add_task', arguments: { content: `Pipelined ${i}` } } }));
    child.stdin.end(`${calls.join('\n')}\n`);
    expect(await exited(child)).toBe(0);
    const db2 = openDatabase(db);
    let ran: number;
    let order: string[];
    try {
      ran = (db2.prepare(`SELECT COUNT(*) AS n FROM tasks`).get() as { n: number }).n;
      order = (db2.prepare(`SELECT content FROM tasks ORDER BY rowid`).all() as { content: string }[]).map((t) => t.content);
    } finally {
      db2.close();
    }
    // Serially, in the order sent: task n is "Pipelined n".
    expect(order).toEqual(Array.from({ length: ran }, (_, i) => `Pipelined ${i}`));
    expect(ran).toBeLessThan(6000);
    const dropped = Number(/(\d+) calls? the client sent were not run/.exec(stderr())?.[1]);
    expect(dropped).toBeGreaterThan(0);
    expect(dropped).toBeLessThanOrEqual(6000 - ran);
    console.log(`6,000 pipelined add_task calls, client gone: ${ran} ran`);
  });
});

describe('tidy mcp: hostile input on stdin', () => {
  it('answers each bad message with the JSON-RPC error the spec names, one stderr line each, and keeps serving', { timeout: 120_000 }, async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['tasks']).code).toBe(0);
    const { child, replies, stderr, send } = raw(db);
    const errorOf = (id: unknown) => replies.find((r) => r['id'] === id && r['error'])?.['error'] as { code: number; message: string } | undefined;

    // Before initialize: only initialize opens the connection.
    send(JSON.stringify({ jsonrpc: '2.0', id: 'early', method: 'tools/list' }));
    await expect.poll(() => errorOf('early'), { timeout: 30_000 }).toMatchObject({ code: -32600, message: expect.stringContaining('before initialize') });
    send(JSON.stringify({ jsonrpc: '2.0', id: 'ping', method: 'ping' }));
    await expect.poll(() => replies.find((r) => r['id'] === 'ping'), { timeout: 30_000 }).toMatchObject({ result: {} });
    send(INITIALIZE);
    await expect.poll(() => replies.some((r) => r['id'] === 'init' && r['result']), { timeout: 30_000 }).toBe(true);
    send(INITIALIZED);

    const before = replies.length;
    send('{"jsonrpc":"2.0","id":1,"method":'); // malformed
    send('[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]'); // batch
    send('42'); // bare value
    send('"hello"');
    send(JSON.stringify({ jsonrpc: '1.0', id: 3, method: 'tools/list' }));
    send(JSON.stringify({ jsonrpc: '2.0', id: { x: 1 }, method: 'tools/list' }));
    send(JSON.stringify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'add_task', arguments: { content: JSON.parse(`${'['.repeat(65)}1${']'.repeat(65)}`) as unknown } } }));
    send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"add_task","arguments":{"content":"${'x'.repeat(9 * 1024 * 1024)}"}}}`);
    send(JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list' }));
    await expect.poll(() => replies.some((r) => r['id'] === 6 && r['result']), { timeout: 60_000 }).toBe(true);
    const errors = replies.slice(before).filter((r) => r['error']);
    expect(errors.map((r) => [r['id'], (r['error'] as { code: number }).code])).toEqual([
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [3, -32600],
      [null, -32600],
      [4, -32600],
      [5, -32600],
    ]);
    expect(errorOf(4)!.message).toContain('more than 64 levels');
    expect(errorOf(5)!.message).toMatch(/9\.0 MiB is over the 8\.0 MiB limit/);
    // One line on stderr per bad message (9 with the early tools/list), none holding the message itself.
    await expect.poll(() => stderr().split('\n').filter((l) => /JSON-RPC error/.test(l)).length, { timeout: 30_000 }).toBe(9);
    expect(stderr()).not.toContain('xxxxxxxx');
    expect(stderr().split('\n').length).toBeLessThan(20);
    // Nothing was added, and the session still works.
    send(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add_task', arguments: { content: 'Still here' } } }));
    await expect.poll(() => replies.some((r) => r['id'] === 7 && r['result']), { timeout: 30_000 }).toBe(true);
    child.stdin.end();
    expect(await exited(child)).toBe(0);
    expect(openTasks(db)).toEqual(['Still here']);
  });
});
