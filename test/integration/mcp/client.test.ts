// MCP servers as tools for Tidy's agent: a tiny server from test/fakes, started by a run through the real
// run API (startRun) with a scripted model.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-shared/events';
import { listActions, undoAction, undoRequest, writeSetting } from '../../../src-main/core';
import { answerApproval, createLiveRuns, startRun, TOOLS, type AgentDeps } from '../../../src-main/core/agent';
import { adaptTools, connectMcpServers, MAX_RESULT_CHARS, MAX_TOOLS_PER_SERVER, resultValue } from '../../../src-main/core/mcp/client';
import type { Model } from '../../../src-main/core/llm/port';
import { tempDb, userCtx } from '../../support/db';
import { ofType } from '../../support/agent';
import { startFakeMcpHttp, type FakeMcpHttp } from '../../fakes/mcp-http-server';
import { call, calls, say, ScriptedModel } from '../../fakes/scripted-model';

const FAKE = join(import.meta.dirname, '..', '..', 'fakes', 'mcp-server.mjs');

function host(model: Model, mode: string, extra: { envOut?: string; timeouts?: number; connectMs?: number; url?: string } = {}) {
  const { db, dir } = tempDb();
  const env: Record<string, string> = { FAKE_MCP_MODE: mode, ...(extra.envOut ? { FAKE_MCP_ENV_OUT: extra.envOut } : {}) };
  const set = writeSetting(db, 'mcpServers', { fake: extra.url ? { url: extra.url } : { command: process.execPath, args: [FAKE], env } });
  if (!set.ok) throw new Error(set.error);
  const t = extra.timeouts ?? 5_000;
  const deps: AgentDeps = {
    db,
    tools: TOOLS,
    live: createLiveRuns(),
    createModel: () => model,
    mcp: (servers, o) => connectMcpServers(servers, { ...o, connectTimeoutMs: extra.connectMs ?? t, callTimeoutMs: t }),
  };
  const events: AgentEvent[] = [];
  const start = (approve: 'approve' | 'decline' | 'always' = 'approve') => {
    const r = startRun(deps, { message: 'go', baseUrl: 'http://fake/v1', model: 'm1', stream: false }, (e) => {
      events.push(e);
      if (e.type === 'approval_requested') answerApproval(deps, e.runId, e.approvalId, approve);
    });
    if (!r.ok) throw new Error(r.error);
    return r.value.finished;
  };
  return { db, dir, deps, events, start };
}

const toolMessage = (model: ScriptedModel, n: number): string => {
  const m = model.requests[n]!.messages.filter((x) => x.role === 'tool').at(-1);
  return m && m.role === 'tool' ? m.content : '';
};

describe('MCP servers as the agent’s tools', () => {
  it('offers the server’s tools as <server>__<tool>, asks before running one, and feeds the result back', async () => {
    const model = new ScriptedModel([calls(call('fake__echo', { text: 'hello' })), say('It said HELLO.')]);
    const h = host(model, 'ok');
    const result = await h.start('approve');
    expect(result.status).toBe('done');
    const offered = model.requests[0]!.tools!.map((t) => t.name);
    expect(offered).toContain('fake__echo');
    expect(offered).toContain('fake__save_note');
    expect(offered).not.toContain('wikipedia'); // off by default
    expect(model.requests[0]!.tools!.find((t) => t.name === 'fake__echo')!.parameters).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    const asked = ofType(h.events, 'approval_requested');
    expect(asked).toHaveLength(1);
    expect(asked[0]!.message).toMatch(/MCP server "fake" run echo/);
    expect(ofType(h.events, 'tool_result')[0]).toMatchObject({ ok: true, external: 'fake', result: { result: 'HELLO' } });
    expect(JSON.parse(toolMessage(model, 1))).toEqual({ result: 'HELLO' });
  });

  it('a declined call does not reach the server; "always" is remembered per tool', async () => {
    const declined = new ScriptedModel([calls(call('fake__save_note', { note: 'x' })), say('ok')]);
    const h = host(declined, 'ok');
    await h.start('decline');
    expect(ofType(h.events, 'tool_result')[0]).toMatchObject({ ok: false, result: { error: expect.stringMatching(/declined/) } });
    expect(listActions(h.db)).toHaveLength(0);
  });

  it('logs what a writing tool did as an action that cannot be undone', async () => {
    const model = new ScriptedModel([calls(call('fake__save_note', { note: 'milk' })), say('saved')]);
    const h = host(model, 'ok');
    await h.start('always');
    const r = ofType(h.events, 'tool_result')[0]!;
    expect(r).toMatchObject({ ok: true, external: 'fake', result: { result: 'saved: milk' } });
    const [entry] = listActions(h.db);
    expect(entry).toMatchObject({ id: r.actionId, tool: 'fake__saveNote', external: true, summary: expect.stringContaining('cannot be undone') });
    const undo = undoAction(h.db, entry!.id, { ctx: userCtx(h.db) });
    expect(undo).toMatchObject({ ok: false, code: 'refused', error: expect.stringContaining('outside Tidy') });
    expect(undoRequest(h.db, entry!.requestId, { ctx: userCtx(h.db) })).toMatchObject({ ok: false, code: 'refused' });
    expect(h.db.prepare(`SELECT value FROM settings WHERE key = 'approvals'`).get()).toEqual({ value: JSON.stringify({ fake__save_note: 'auto' }) });
  });

  it('a server that crashes mid-run costs an error observation; the run goes on', async () => {
    const model = new ScriptedModel([calls(call('fake__echo', { text: 'a' })), calls(call('fake__echo', { text: 'b' })), say('done without it')]);
    const h = host(model, 'crash');
    const result = await h.start('always');
    expect(result.status).toBe('done');
    const results = ofType(h.events, 'tool_result');
    expect(results.map((e) => e.ok)).toEqual([false, false]);
    expect(JSON.stringify(results[1]!.result)).toMatch(/stopped|failed|closed/i);
  });

  it('a server that never answers a call is bounded by the call time limit', async () => {
    const model = new ScriptedModel([calls(call('fake__echo', { text: 'a' })), say('gave up')]);
    // Starting the server may take longer than 1.5 s on a loaded machine; the call's limit is what is tested.
    const h = host(model, 'hang', { timeouts: 1_500, connectMs: 20_000 });
    const t0 = Date.now();
    const result = await h.start('always');
    expect(result.status).toBe('done');
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(ofType(h.events, 'tool_result')[0]).toMatchObject({ ok: false, result: { error: expect.stringMatching(/took longer than|timed out/i) } });
  });

  it('a server that never starts gets one line in the trace and the run goes on without it', async () => {
    const model = new ScriptedModel([say('fine')]);
    const h = host(model, 'hang-start', { timeouts: 1_000 });
    const result = await h.start();
    expect(result.status).toBe('done');
    const notes = ofType(h.events, 'error').filter((e) => e.kind === 'mcp');
    expect(notes).toHaveLength(1);
    expect(notes[0]!.message).toMatch(/fake is left out of this run/);
    expect(model.requests[0]!.tools!.some((t) => t.name.startsWith('fake__'))).toBe(false);
  });

  it('a command that does not exist is one line too', async () => {
    const model = new ScriptedModel([say('fine')]);
    const h = host(model, 'ok');
    writeSetting(h.db, 'mcpServers', { ghost: { command: join(h.dir, 'no-such-server') } });
    await h.start();
    expect(ofType(h.events, 'error').filter((e) => e.kind === 'mcp').map((e) => e.message)).toEqual([expect.stringMatching(/^the MCP server ghost is left out of this run/)]);
  });

  it('starts the server with only the configured environment, and ends it with the run', async () => {
    const envOut = join(tempDb().dir, 'env.json');
    process.env['OPENAI_API_KEY'] = 'sk-must-not-leak';
    process.env['TIDY_SECRET_THING'] = 'nope';
    try {
      const model = new ScriptedModel([calls(call('fake__echo', { text: 'a' })), say('ok')]);
      const h = host(model, 'ok', { envOut });
      await h.start('always');
      const seen = JSON.parse(readFileSync(envOut, 'utf8')) as { pid: number; env: Record<string, string> };
      expect(seen.env['FAKE_MCP_MODE']).toBe('ok');
      expect(seen.env['OPENAI_API_KEY']).toBeUndefined();
      expect(seen.env['TIDY_SECRET_THING']).toBeUndefined();
      expect(Object.keys(seen.env).every((k) => ['FAKE_MCP_MODE', 'FAKE_MCP_ENV_OUT', 'HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'].includes(k))).toBe(true);
      await expect.poll(() => alive(seen.pid), { timeout: 5_000 }).toBe(false);
    } finally {
      delete process.env['OPENAI_API_KEY'];
      delete process.env['TIDY_SECRET_THING'];
    }
  });

  it('bounds a server with thousands of tools, bad names and giant results', async () => {
    const model = new ScriptedModel([calls(call('fake__echo', { text: 'a' })), say('ok')]);
    const h = host(model, 'many');
    await h.start('always');
    const offered = model.requests[0]!.tools!.filter((t) => t.name.startsWith('fake__'));
    expect(offered.length).toBe(MAX_TOOLS_PER_SERVER);
    for (const t of offered) {
      expect(t.name).toMatch(/^[a-z][a-z0-9_]*$/);
      expect(t.name.length).toBeLessThanOrEqual(64);
      expect(t.description.length).toBeLessThan(1_100);
    }
    expect(ofType(h.events, 'error').some((e) => e.kind === 'mcp' && /2004 tools; only the first 40/.test(e.message))).toBe(true);

    const giant = new ScriptedModel([calls(call('fake__echo', { text: 'a' })), say('ok')]);
    const g = host(giant, 'giant');
    await g.start('always');
    const sent = toolMessage(giant, 1);
    expect(sent.length).toBeLessThan(MAX_RESULT_CHARS + 500);
    expect(JSON.parse(sent)).toMatchObject({ truncated: true });
  });
});

describe('MCP servers over streamable HTTP', () => {
  let server: FakeMcpHttp | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('offers a URL server’s tools, runs one after approval, and feeds the result back', async () => {
    server = await startFakeMcpHttp('ok');
    const model = new ScriptedModel([calls(call('fake__echo', { text: 'over http' }), call('fake__save_note', { note: 'buy tulips' })), say('Done.')]);
    const h = host(model, 'ok', { url: server.url });
    const result = await h.start('approve');
    expect(result.status).toBe('done');
    expect(model.requests[0]!.tools!.map((t) => t.name)).toEqual(expect.arrayContaining(['fake__echo', 'fake__save_note']));
    expect(ofType(h.events, 'tool_result').map((r) => [r.ok, r.external, r.result])).toEqual([
      [true, 'fake', { result: 'OVER HTTP' }],
      [true, 'fake', { result: 'saved: buy tulips' }],
    ]);
    expect(server.notes).toEqual(['buy tulips']);
    // Only the MCP endpoint was spoken to, with MCP's own headers.
    expect(new Set(server.requests.map((r) => r.path))).toEqual(new Set(['/mcp']));
    expect(server.requests.every((r) => r.method !== 'POST' || String(r.headers['accept']).includes('application/json'))).toBe(true);
  });

  it('a server that redirects elsewhere is not followed: one line, and the run goes on without it', async () => {
    const elsewhere = await startFakeMcpHttp('ok');
    try {
      server = await startFakeMcpHttp('redirect', { redirectTo: elsewhere.url });
      const model = new ScriptedModel([say('fine')]);
      const h = host(model, 'ok', { url: server.url, timeouts: 3_000 });
      expect((await h.start()).status).toBe('done');
      expect(ofType(h.events, 'error').filter((e) => e.kind === 'mcp').map((e) => e.message)).toEqual([expect.stringMatching(/^the MCP server fake is left out of this run/)]);
      expect(model.requests[0]!.tools!.some((t) => t.name.startsWith('fake__'))).toBe(false);
      expect(elsewhere.requests).toHaveLength(0);
    } finally {
      await elsewhere.close();
    }
  });

  it('a server that fails (HTTP 500) or never answers costs one line each, within the time limit', async () => {
    for (const mode of ['error', 'hang'] as const) {
      server = await startFakeMcpHttp(mode);
      const model = new ScriptedModel([say('fine')]);
      const h = host(model, 'ok', { url: server.url, timeouts: 1_500 });
      const t0 = Date.now();
      expect((await h.start()).status).toBe('done');
      expect(Date.now() - t0).toBeLessThan(10_000);
      expect(ofType(h.events, 'error').filter((e) => e.kind === 'mcp')).toHaveLength(1);
      expect(server.requests.length).toBeGreaterThan(0);
      await server.close();
      server = undefined;
    }
  });
});

describe('adaptTools', () => {
  const noop = () => Promise.resolve({ ok: true as const, value: null });
  it('names tools lower_snake_case under the server, drops unusable and duplicate names and oversized schemas', () => {
    const { tools, skipped } = adaptTools(
      'notes',
      [
        { name: 'searchNotes', inputSchema: { type: 'object', properties: { q: { type: 'string' } } } },
        { name: 'search-notes', inputSchema: { type: 'object' } },
        { name: '!!!', inputSchema: { type: 'object' } },
        { name: 'deep', inputSchema: nested(50) },
        { name: 'array', inputSchema: { type: 'array' } },
        { name: 'x'.repeat(500), inputSchema: { type: 'object' } },
        { name: '__proto__', inputSchema: { type: 'object' } },
      ],
      noop,
    );
    expect(tools.map((t) => t.name)).toEqual(['notes__search_notes', `notes__${'x'.repeat(64 - 7)}`, 'notes__proto']);
    expect(skipped).toHaveLength(4);
    expect(tools.every((t) => t.approval === 'ask' && t.external?.server === 'notes')).toBe(true);
  });

  it('cuts results and leaves out non-text content', () => {
    expect(resultValue({ content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'xx' }] }).value).toEqual({ result: 'a\n[image content left out]' });
    expect(resultValue({ content: [], structuredContent: { n: 1 } }).value).toEqual({ result: '{"n":1}' });
    expect(resultValue({ content: 'not an array' }).value).toEqual({ result: '' });
  });
});

function nested(depth: number): Record<string, unknown> {
  let s: Record<string, unknown> = { type: 'string' };
  for (let i = 0; i < depth; i++) s = { type: 'object', properties: { a: s } };
  return s;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

