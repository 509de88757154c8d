// A joining database's own ids take its device part everywhere they are kept (sync/rekey.ts): columns,
// the action log's JSON, a conversation's tool calls and results; never a text that reads like an id.
import { describe, expect, it } from 'vitest';
import { addTask, createProject } from '../../../src-main/core';
import { rekeyOwnIds, remapJsonText } from '../../../src-main/core/sync/rekey';
import { okValue, tempDb, userCtx } from '../../support/db';

const rk = (id: string): string => `${id}.abc123`;

describe('re-keying a joining database', () => {
  it('moves ids only under id keys, keeps malformed, deep and foreign values as they are', () => {
    expect(remapJsonText('{"id":"t1","content":"t1","projectId":"p2","labels":["g1"],"task":"t3","toolCallId":"c1"}', rk)).toBe(
      '{"id":"t1.abc123","content":"t1","projectId":"p2.abc123","labels":["g1"],"task":"t3.abc123","toolCallId":"c1"}',
    );
    expect(remapJsonText('[{"table":"tasks","id":"t1","before":null,"after":{"id":"t1","parent_id":"t9","name":"a1","project_id":"inbox"}}]', rk)).toBe(
      '[{"table":"tasks","id":"t1.abc123","before":null,"after":{"id":"t1.abc123","parent_id":"t9.abc123","name":"a1","project_id":"inbox"}}]',
    );
    // an id already with a part, a letter that is no kind, a huge number: untouched
    expect(remapJsonText('{"id":"t1.aaaaaa","ids":["z1","t12345678901234567890"]}', rk)).toBe('{"id":"t1.aaaaaa","ids":["z1","t12345678901234567890"]}');
    for (const text of ['{not json', '', 'null', '"t1"', '{"id":"t1"'.repeat(3)]) expect(remapJsonText(text, rk)).toBe(text);
    const deep = `${'{"x":'.repeat(5000)}{"id":"t1"}${'}'.repeat(5000)}`;
    expect(remapJsonText(deep, rk)).toBe(deep);
  });

  it('an id the assistant took from a tool moves in its answer too; the user\'s words, priorities, other words and ids no tool named stay', () => {
    const { db } = tempDb();
    const milk = okValue(addTask(db, userCtx(db), { content: 'milk' }));
    okValue(addTask(db, userCtx(db), { content: 'bread' }));
    const errands = okValue(createProject(db, userCtx(db), { name: 'Errands' }));
    expect([milk.id, errands.id]).toEqual(['t1', 'p1']);
    db.exec(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Chat', '2035-01-01', '2035-01-01'), ('c2', 'Other', '2035-01-01', '2035-01-01')`);
    const add = db.prepare(`INSERT INTO messages (id, conversation_id, role, content, tool_calls, tool_call_id, created_at) VALUES (?, ?, ?, ?, ?, ?, '2035-01-01')`);
    add.run('x1', 'c1', 'user', 'add milk, t1 on my list, p1', null, null);
    add.run('x2', 'c1', 'assistant', null, JSON.stringify([{ id: 'call_1', name: 'add_task', arguments: JSON.stringify({ content: 'milk', project: 'p1' }) }]), null);
    add.run('x3', 'c1', 'tool', JSON.stringify({ id: 't1', content: 'milk', action: 'a1', also: 't9' }), null, 'call_1');
    const answer = 'Added t1 “milk” (p1, undo: a1). t1.\nNot: t2, at1, t1b, t1.5, v1.t1, t9 (no such task), T1, t1_x, #t1x.';
    add.run('x4', 'c1', 'assistant', answer, null, null);
    add.run('x5', 'c2', 'assistant', 'Added t1', null, null);
    add.run('x6', 'c1', 'assistant', `${'t1 '.repeat(50_000)}end`, null, null);
    db.transaction(() => rekeyOwnIds(db, 'abc123')).immediate();
    const content = (id: string): unknown => (db.prepare(`SELECT content FROM messages WHERE id = ?`).get(`${id}.abc123`) as { content: unknown }).content;
    expect(content('x4')).toBe('Added t1.abc123 “milk” (p1, undo: a1.abc123). t1.abc123.\nNot: t2, at1, t1b, t1.5, v1.t1, t9 (no such task), T1, t1_x, #t1x.');
    expect(content('x1')).toBe('add milk, t1 on my list, p1'); // the user's words
    expect(content('x5')).toBe('Added t1'); // no tool of that conversation named t1
    expect(content('x6')).toBe(`${'t1.abc123 '.repeat(50_000)}end`);
  });

  it('moves every reference in one transaction: rows, the log, conversations, runs; foreign keys hold', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 't1', labels: ['home'] }));
    db.exec(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Chat', '2035-01-01', '2035-01-01')`);
    db.exec(
      `INSERT INTO runs (id, conversation_id, status, request, model, base_url, protocol, started_at) VALUES ('r1', 'c1', 'done', 'do it', 'm', 'http://x', 'native', '2035-01-01')`,
    );
    const calls = JSON.stringify([{ id: 'call_1', name: 'complete_task', arguments: JSON.stringify({ task: 't1' }) }]);
    db.prepare(`INSERT INTO messages (id, conversation_id, run_id, role, content, tool_calls, tool_call_id, created_at) VALUES ('x1', 'c1', 'r1', 'assistant', NULL, ?, NULL, '2035-01-01')`).run(calls);
    db.prepare(`INSERT INTO messages (id, conversation_id, run_id, role, content, tool_calls, tool_call_id, created_at) VALUES ('x2', 'c1', 'r1', 'tool', ?, NULL, 'call_1', '2035-01-01')`).run(
      JSON.stringify({ id: 't1', content: 'Added t1' }),
    );
    // a large action's images past its first 1,000 changes (migration 21's action_rows)
    const first = db.prepare(`SELECT id FROM actions`).get() as { id: string };
    db.prepare(`INSERT INTO action_rows (action_id, n, tbl, row_id, before, after) VALUES (?, 0, 'tasks', ?, NULL, ?)`).run(first.id, t.id, JSON.stringify({ id: t.id, project_id: 'inbox' }));
    db.transaction(() => rekeyOwnIds(db, 'abc123')).immediate();
    expect(db.prepare(`SELECT id, content FROM tasks`).all()).toEqual([{ id: `${t.id}.abc123`, content: 't1' }]);
    expect(db.prepare(`SELECT action_id, row_id, after FROM action_rows`).all()).toEqual([
      { action_id: `${first.id}.abc123`, row_id: `${t.id}.abc123`, after: JSON.stringify({ id: `${t.id}.abc123`, project_id: 'inbox' }) },
    ]);
    expect(db.prepare(`SELECT task_id, label_id FROM task_labels`).all()).toEqual([{ task_id: 't1.abc123', label_id: 'g1.abc123' }]);
    const action = db.prepare(`SELECT id, request_id, changes, what FROM actions`).get() as { id: string; request_id: string; changes: string; what: string };
    expect([action.id, action.request_id]).toEqual(['a1.abc123', 'u1.abc123']);
    expect(JSON.parse(action.what)).toMatchObject({ id: 't1.abc123' });
    const images = JSON.parse(action.changes) as { table: string; id: string; after: Record<string, unknown> }[];
    expect(images.find((c) => c.table === 'tasks')).toMatchObject({ id: 't1.abc123', after: { id: 't1.abc123', content: 't1' } });
    expect(images.find((c) => c.table === 'task_labels')).toMatchObject({ after: { task_id: 't1.abc123', label_id: 'g1.abc123' } });
    expect(db.prepare(`SELECT entity FROM action_entities ORDER BY entity`).all()).toContainEqual({ entity: 'tasks:t1.abc123' });
    expect(db.prepare(`SELECT id, conversation_id, run_id, content, tool_calls, tool_call_id FROM messages ORDER BY seq`).all()).toEqual([
      { id: 'x1.abc123', conversation_id: 'c1.abc123', run_id: 'r1.abc123', content: null, tool_calls: JSON.stringify([{ id: 'call_1', name: 'complete_task', arguments: '{"task":"t1.abc123"}' }]), tool_call_id: null },
      { id: 'x2.abc123', conversation_id: 'c1.abc123', run_id: 'r1.abc123', content: '{"id":"t1.abc123","content":"Added t1"}', tool_calls: null, tool_call_id: 'call_1' },
    ]);
    expect(db.prepare(`SELECT ref FROM search_docs WHERE kind = 'tasks'`).all()).toEqual([{ ref: 't1.abc123' }]);
    expect(db.pragma('foreign_key_check')).toEqual([]);
    // outside a transaction, or with a bad part: refused before anything moves
    expect(() => rekeyOwnIds(db, 'abc123')).toThrow(/transaction/);
    expect(() => db.transaction(() => rekeyOwnIds(db, "x'; DROP")).immediate()).toThrow(/bad id part/);
  });
});
