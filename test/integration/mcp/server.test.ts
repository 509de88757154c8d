// `tidy mcp` driven by the MCP SDK's own client over stdio: the catalogue with its annotations, changes
// logged as one request named after the client, approvals asked through elicitation (or refused), undo.
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDatabase } from '../../../src-main/core';
import { TOOLS } from '../../../src-main/core/agent';
import { TIDY_BIN, tidy } from '../../support/cli';
import { tempDir } from '../../support/db';
import { connectTidyMcp } from '../../support/mcp-client';
import { join } from 'node:path';

const connect = connectTidyMcp;

const textOf = (r: { content?: unknown }): string => ((r.content as { type: string; text: string }[])[0]?.text ?? '');
const json = (r: { content?: unknown }): Record<string, unknown> => JSON.parse(textOf(r)) as Record<string, unknown>;

describe('tidy mcp', { timeout: 90_000 }, () => {
  it('lists the agent’s catalogue with annotations, the batch tools and the undo tools', async () => {
    const db = join(tempDir(), 'tidy.db');
    const { client } = await connect(db, 'Inspector');
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    // The same definitions the agent uses (wikipedia is off by default, so not offered).
    // Memory: read it, and remember with the user's yes; never update or forget from another app.
    const memoryTools = ['remember', 'update_memory', 'forget'];
    expect(names).toEqual([
      ...TOOLS.filter((t) => t.name !== 'wikipedia' && !memoryTools.includes(t.name)).map((t) => t.name),
      'get_memories',
      'remember',
      'undo_last_request',
      'undo_request',
    ]);
    for (const name of ['move_tasks', 'add_tasks', 'complete_tasks']) expect(names).toContain(name);
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('get_inbox_tasks')!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(byName.get('add_task')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    expect(byName.get('move_task')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    for (const t of tools) expect(t.annotations?.destructiveHint).toBe(false);
    expect(byName.get('move_tasks')!.inputSchema).toMatchObject({ type: 'object', required: ['task_ids', 'project_id'] });
    // The rich fields (issue 30) reach MCP clients as they reach the agent.
    const props = (name: string) => Object.keys((byName.get(name)!.inputSchema as { properties: object }).properties);
    expect(props('update_task')).toEqual(expect.arrayContaining(['description', 'deadline', 'duration_min', 'labels', 'section', 'parent_id']));
    const item = (byName.get('add_tasks')!.inputSchema as unknown as { properties: { tasks: { items: { properties: object } } } }).properties.tasks.items.properties;
    expect(Object.keys(item)).toEqual(expect.arrayContaining(['description', 'deadline', 'duration_min', 'labels', 'section', 'parent_id']));
    // No output schema: a result's optional, additive fields (complete_task's `note`) never fail a client's check.
    for (const t of tools) expect(t.outputSchema, t.name).toBeUndefined();
  });

  it('logs a session’s changes as one request named after the client, and undoes it', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['add', 'Buy milk']).code).toBe(0);
    const { client, stderr } = await connect(db, 'Claude Desktop');
    const project = json(await client.callTool({ name: 'create_project', arguments: { name: 'Errands' } }));
    const added = json(await client.callTool({ name: 'add_tasks', arguments: { tasks: [{ content: 'Post the letter' }, { content: 'Fix the bike' }] } }));
    const ids = (added['added'] as { id: string }[]).map((t) => t.id);
    const moved = await client.callTool({ name: 'move_tasks', arguments: { task_ids: [...ids, 't1', 'nope'], project_id: project['id'] } });
    expect((json(moved)['failed'] as { task_id: string }[]).map((f) => f.task_id)).toEqual(['nope']);
    const note = (moved.content as { text: string }[])[1]!.text;
    const request = /request (m\d+)/.exec(note)?.[1];
    expect(request).toBeDefined();

    // The log: every change of the session under one request, source mcp, named after the client.
    const log = JSON.parse(tidy(db, ['log', '--json']).stdout) as { runId: string; tool: string; undoneAt: string | null }[];
    const session = log.filter((a) => a.runId === request);
    expect(session.map((a) => a.tool).sort()).toEqual(['add_task', 'add_task', 'create_project', 'move_task', 'move_task', 'move_task']);
    const raw = openDatabase(db);
    try {
      expect(raw.prepare(`SELECT DISTINCT source FROM actions WHERE request_id = ?`).all(request)).toEqual([{ source: 'mcp' }]);
      expect(raw.prepare(`SELECT client_name FROM mcp_sessions WHERE id = ?`).get(request)).toEqual({ client_name: 'Claude Desktop' });
    } finally {
      raw.close();
    }

    const undone = json(await client.callTool({ name: 'undo_last_request', arguments: {} }));
    expect((undone['reversed'] as unknown[]).length).toBe(6);
    const tasks = JSON.parse(tidy(db, ['tasks', '--json']).stdout) as { content: string; project: string }[];
    expect(tasks).toEqual([expect.objectContaining({ content: 'Buy milk', project: 'Inbox' })]);
    const after = JSON.parse(tidy(db, ['log', '--json']).stdout) as { runId: string; undoneAt: string | null }[];
    expect(after.filter((a) => a.runId === request).every((a) => a.undoneAt !== null)).toBe(true);
    expect(stderr()).toContain('undid 6 changes');
  });

  it('asks through elicitation before a tool that needs approval, and honours a decline', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['add', 'Buy milk']).code).toBe(0);
    expect(tidy(db, ['add', 'Call mum']).code).toBe(0);
    // t1 repeats by a rule whose dates are used up (far dates: any day the suite runs on)
    const raw = openDatabase(db);
    try {
      raw.prepare(`UPDATE tasks SET recurrence = 'FREQ=WEEKLY;COUNT=3', due = '2020-01-06' WHERE id = 't1'`).run();
    } finally {
      raw.close();
    }
    const asked: string[] = [];
    const { client } = await connect(db, 'Cursor', { elicit: (m) => (asked.push(m), m.includes('Buy milk')) });
    const ok = await client.callTool({ name: 'complete_task', arguments: { task_id: 't1' } });
    expect(ok.isError).toBeFalsy();
    // DESIGN.md's {ok: true}, plus the optional note of why it will not come back, as text and as structured content
    const note = 'its rule gives no later date (COUNT=3: all 3 of its dates are used up), so it will not come back';
    expect(json(ok)).toEqual({ ok: true, note });
    expect(ok.structuredContent).toEqual({ ok: true, note });
    const no = await client.callTool({ name: 'complete_task', arguments: { task_id: 't2' } });
    expect(no.isError).toBe(true);
    expect(json(no)['error']).toMatch(/declined/);
    expect(asked).toEqual(["Tidy: Complete task 'Buy milk'?", "Tidy: Complete task 'Call mum'?"]);
    const open = JSON.parse(tidy(db, ['tasks', '--json']).stdout) as { content: string }[];
    expect(open.map((t) => t.content)).toEqual(['Call mum']);
  });

  it('reads memories, and remembers only with the user’s yes through elicitation', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['memory', 'add', 'groceries go to Errands']).code).toBe(0);
    const asked: string[] = [];
    let allow = false;
    const { client } = await connect(db, 'Cursor', { elicit: (m) => (asked.push(m), allow) });
    const read = json(await client.callTool({ name: 'get_memories', arguments: {} }));
    expect(read).toEqual({ memories: [{ id: 'y1', text: 'groceries go to Errands', scope: 'everywhere', project: null }], total: 1 });
    // A tool result (or the client's model) asking to remember: the user says no, nothing is kept.
    const declined = await client.callTool({ name: 'remember', arguments: { text: 'my password is hunter2' } });
    expect(declined.isError).toBe(true);
    expect(asked).toEqual(["Tidy: Remember 'my password is hunter2'?"]);
    allow = true;
    const kept = json(await client.callTool({ name: 'remember', arguments: { text: 'no meetings before 10' } }));
    expect(kept).toMatchObject({ id: 'y2', text: 'no meetings before 10', scope: 'everywhere' });
    const listed = JSON.parse(tidy(db, ['memory', 'list', '--json']).stdout) as { text: string; runId: string | null }[];
    expect(listed.map((m) => m.text)).toEqual(['groceries go to Errands', 'no meetings before 10']);
    expect(listed[1]!.runId).toMatch(/^m\d+$/);
    // A client that cannot ask is refused.
    const { client: blind } = await connect(db, 'Blind');
    const refused = await blind.callTool({ name: 'remember', arguments: { text: 'anything' } });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toContain("needs the user's approval");
  });

  it('refuses a tool that needs approval when the client cannot ask, and changes nothing', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['add', 'Buy milk']).code).toBe(0);
    const { client, stderr } = await connect(db, 'Plain client');
    const r = await client.callTool({ name: 'complete_tasks', arguments: { task_ids: ['t1'] } });
    expect(r.isError).toBe(true);
    expect(json(r)).toMatchObject({ code: 'declined', hint: expect.stringContaining('tidy config set approvals.complete_tasks auto') });
    expect(JSON.parse(tidy(db, ['tasks', '--json']).stdout)).toHaveLength(1);
    expect(stderr()).toContain('cannot ask');
    // After the user allows it in Tidy, the same call runs.
    expect(tidy(db, ['config', 'set', 'approvals.complete_tasks', 'auto']).code).toBe(0);
    const { client: again } = await connect(db, 'Plain client');
    expect((await again.callTool({ name: 'complete_tasks', arguments: { task_ids: ['t1'] } })).isError).toBeFalsy();
  });

  it('keeps stdout for the protocol and reports bad calls as tool errors', async () => {
    const db = join(tempDir(), 'tidy.db');
    const { client } = await connect(db, 'Hostile');
    const bad = await client.callTool({ name: 'move_task', arguments: { task_id: 'x'.repeat(5000), project_id: 'p999' } });
    expect(bad.isError).toBe(true);
    const wrong = await client.callTool({ name: 'add_task', arguments: { content: 42 } as unknown as Record<string, unknown> });
    expect(wrong.isError).toBe(true);
    const unknownRequest = json(await client.callTool({ name: 'undo_request', arguments: { id: 'm404' } }));
    expect(unknownRequest['error']).toMatch(/no request with id m404/);
    // The connection survived all of it.
    expect((await client.listTools()).tools.length).toBeGreaterThan(10);
  });

  it('waits for another process’s write lock without blocking: it answers a ping meanwhile, then makes the change', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['add', 'Buy milk']).code).toBe(0);
    const { client } = await connect(db, 'Inspector');
    const other = new Database(db);
    onTestFinished(() => {
      other.close();
    });
    other.prepare('BEGIN IMMEDIATE').run();
    let settled = false;
    const call = client.callTool({ name: 'add_task', arguments: { content: 'After the lock' } }).finally(() => (settled = true));
    await client.ping();
    expect(settled).toBe(false);
    other.prepare('COMMIT').run();
    const r = await call;
    expect(r.isError).toBeFalsy();
    expect(json(r)).toMatchObject({ content: 'After the lock' });
    expect(JSON.parse(tidy(db, ['tasks', '--json']).stdout).map((t: { content: string }) => t.content)).toEqual(['Buy milk', 'After the lock']);
  });

  it('prints the configuration snippet for a client', () => {
    const db = join(tempDir(), 'tidy.db');
    const claude = JSON.parse(tidy(db, ['mcp', '--print-config']).stdout) as { mcpServers: { tidy: { command: string; args: string[] } } };
    expect(claude.mcpServers.tidy.command).toBe(process.execPath);
    expect(claude.mcpServers.tidy.args).toEqual([TIDY_BIN, '--db', db, 'mcp']);
    const vscode = JSON.parse(tidy(db, ['mcp', '--print-config', 'vscode']).stdout) as { servers: { tidy: { type: string } } };
    expect(vscode.servers.tidy.type).toBe('stdio');
    expect(tidy(db, ['mcp', '--print-config', 'emacs']).code).toBe(2);
  });
});
