// A database with some of everything the export covers: projects (one archived), tasks in every status,
// lists with checked items, an undone action, a conversation with messages, a run and its trace steps.
import { addListItem, addTask, archiveTask, checkListItem, completeTask, createProject, makeList, newUserRequest, undoLast, type Db } from '../../../src-main/core';
import { exportJson, type Sink } from '../../../src-main/core/data';
import { nextId } from '../../../src-main/core/store/ids';
import { okValue } from '../../support/db';

export function populate(db: Db, tasks = 12): void {
  const ctx = () => newUserRequest(db);
  const home = okValue(createProject(db, ctx(), { name: 'Home' }));
  okValue(createProject(db, ctx(), { name: "Robert'); DROP TABLE tasks;--" }));
  for (let i = 0; i < tasks; i++) {
    const t = okValue(addTask(db, ctx(), { content: `task ${i} «ünïcödé» "quoted"\nsecond line`, project: i % 2 ? home.id : undefined, priority: (i % 4) + 1 }));
    if (i % 3 === 0) okValue(completeTask(db, ctx(), { task: t.id }));
    if (i % 5 === 4) okValue(archiveTask(db, ctx(), { task: t.id }));
  }
  okValue(addTask(db, ctx(), { content: 'evil \u202e\u001b[2J\u0085\u007f text' }));
  okValue(addTask(db, ctx(), { content: 'to be undone' }));
  okValue(undoLast(db, { ctx: ctx() }));
  const list = okValue(makeList(db, ctx(), { name: 'Groceries' }));
  const milk = okValue(addListItem(db, ctx(), { list: list.id, text: 'milk' }));
  okValue(addListItem(db, ctx(), { list: list.id, text: '[x] not *markdown*' }));
  okValue(checkListItem(db, ctx(), { list: list.id, item: milk.id, checked: true }));
  const now = '2026-11-20T10:00:00.000Z';
  db.prepare(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 'Plan the week', ?, ?)`).run(now, now);
  db.prepare(
    `INSERT INTO runs (id, conversation_id, status, request, answer, model, base_url, protocol, actions, prompt_tokens, completion_tokens, total_tokens, started_at, finished_at, pid, stop_reason)
     VALUES ('r1', 'c1', 'done', 'plan my week', 'Done: **3** tasks', 'm', 'http://127.0.0.1:1/v1', 'native', 1, 10, 5, 15, ?, ?, 42, NULL)`,
  ).run(now, now);
  db.prepare(`INSERT INTO messages (id, conversation_id, run_id, role, content, created_at) VALUES (?, 'c1', 'r1', 'user', 'plan my week', ?)`).run(nextId(db, 'x'), now);
  db.prepare(`INSERT INTO messages (id, conversation_id, run_id, role, content, tool_calls, created_at) VALUES (?, 'c1', 'r1', 'assistant', NULL, '[{"id":"x","name":"list_tasks","arguments":"{}"}]', ?)`).run(nextId(db, 'x'), now);
  db.prepare(`INSERT INTO messages (id, conversation_id, run_id, role, content, tool_call_id, created_at) VALUES (?, 'c1', 'r1', 'tool', '{"tasks":[]}', 'x', ?)`).run(nextId(db, 'x'), now);
  db.prepare(`INSERT INTO messages (id, conversation_id, run_id, role, content, created_at) VALUES (?, 'c1', 'r1', 'assistant', 'Done: **3** tasks\n# not a heading', ?)`).run(nextId(db, 'x'), now);
  db.prepare(`INSERT INTO steps (run_id, seq, kind, payload) VALUES ('r1', 1, 'run_started', '{"a":1.50,"b":"\\u00e9"}'), ('r1', 2, 'run_finished', '{}')`).run();
  db.prepare(`INSERT INTO id_counters (kind, next) VALUES ('c', 2), ('r', 2) ON CONFLICT(kind) DO UPDATE SET next = excluded.next`).run();
}

/** The JSON export as a string (for tests; the real export streams). */
export function exportString(db: Db, now = new Date('2026-11-23T12:00:00.000Z')): string {
  const parts: string[] = [];
  const sink: Sink = { write: (c) => void parts.push(c) };
  exportJson(db, sink, now);
  return parts.join('');
}
