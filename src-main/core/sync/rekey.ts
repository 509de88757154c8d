// A database with data of its own joins a target: before its rows are sent, every id it handed out itself
// (`t12`, `p3`, `a41`, `u7`: a letter and a number) takes this device's part (`t12.3f9a0c`), as ids made while
// sync is on do. The first device's rows on the target have the same plain ids (`t12`), so without this the
// two `t12` would be one row and one side's task would overwrite the other's. The part is unique on the
// target (service.ts draws the device id so), so a re-keyed id meets no other device's, and the id counters
// only grow, so no id made later here meets one re-keyed.
//
// Every place an id is kept moves with it, in one transaction (foreign keys checked at its end):
// - columns: every `id`, every `…_id` and `actions.undoes` of every table of this database (user data, the
//   action log, conversations and messages, runs and their steps, routines' state and runs, approvals,
//   reminders sent, memory uses), the action log's entity index (`tasks:t12`) and the search index's refs;
// - JSON: the action log's images (`changes` and a large action's `action_rows`: what undo and redo write back), `what`, `args` and `result`;
//   a waiting approval's arguments; a conversation's tool calls and tool results, so the model reads the new
//   ids. In JSON only values under id keys move (`id`, `…Id`, `…_id`, a kind's name such as `task` or
//   `project` (not a plural: `labels` holds names), `undoes`, `reverses`), never a text that happens to read `t1`.
// - free text: an assistant's answer that said "added t12", where t12 is an id that conversation's tools
//   named (rekeyTextIds; a word of its own, not p1–p4, which read as priorities).
// What is not rewritten: the user's own words (a message, a task's text: "t12" there may mean anything), an
// id in an answer that no tool of its conversation named, and a run's trace (steps), which is this device's
// own record and never syncs.
//
// Plain ids are this database's own only if it never synced: one that synced before (any dotted id, or a
// trace left by `tidy sync off`) may hold the first device's plain ids as the same rows, and re-keying them
// would duplicate them; service.ts refuses it in one line.
import { ENTITY_KINDS, KINDS, OTHER_ID_LETTERS } from '../../../src-shared/entities';
import type { Db } from '../store/db';
import { ID_PART } from '../store/ids';

const LETTERS = new Set<string>([...ENTITY_KINDS.map((k) => KINDS[k].letter), ...OTHER_ID_LETTERS]);
const PLAIN = /^([a-z])([0-9]{1,15})$/;

/** Whether a value is an id this database handed out without sync (a letter of an id kind and a number). */
const plainId = (v: unknown): v is string => {
  if (typeof v !== 'string') return false;
  const m = PLAIN.exec(v);
  return m !== null && LETTERS.has(m[1]!);
};

/** Tables that hold no id of this database's rows (caches, settings, sync's own state, the search index's internals). */
const SKIP = /^(sqlite_|sync_|search_text|id_counters$|settings$|synced_settings$|model_protocols$|model_quirks$|wikipedia_cache$)/;
/** Columns named like ids that hold a provider's ids, not Tidy's. */
const FOREIGN = new Set(['tool_call_id', 'call_id']);
const isIdColumn = (c: string): boolean => !FOREIGN.has(c) && (c === 'id' || c.endsWith('_id') || c === 'undoes');

/** A kind's name as a key (`task`, `project`: an id, or a name that never reads like one); plurals (`labels`) hold names. */
const KIND_KEYS = new Set<string>([...ENTITY_KINDS.flatMap((k): string[] => [k, KINDS[k].noun]), 'parent', 'request', 'run', 'action', 'undoes', 'reverses', 'ids']);
/** Keys of JSON whose string values are ids. */
const isIdKey = (k: string): boolean => !FOREIGN.has(k) && k !== 'toolCallId' && (k === 'id' || k.endsWith('_id') || k.endsWith('Id') || k.endsWith('Ids') || KIND_KEYS.has(k));

/** Columns of a table that hold this database's ids. */
function idColumns(db: Db): { table: string; columns: string[] }[] {
  const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name).filter((t) => !SKIP.test(t));
  return tables
    .map((table) => ({ table, columns: (db.pragma(`table_info("${table.replace(/"/g, '""')}")`) as { name: string; type: string }[]).filter((c) => isIdColumn(c.name)).map((c) => c.name) }))
    .filter((t) => t.columns.length > 0);
}

/**
 * Whether this database synced before (or holds rows of a database that did): an id with a device part in
 * any table. Such a database's plain ids may be rows the target already has.
 */
export function hasDottedIds(db: Db): boolean {
  for (const { table, columns } of idColumns(db)) {
    if (!columns.includes('id')) continue;
    if (db.prepare(`SELECT 1 FROM "${table}" WHERE id LIKE '%.%' LIMIT 1`).get()) return true;
  }
  return false;
}

/** A JSON value with every id under an id key re-keyed; `changed` says whether anything moved. */
function remapJson(value: unknown, rekey: (id: string) => string, underIdKey: boolean, depth = 0): { value: unknown; changed: boolean } {
  if (depth > 64) return { value, changed: false };
  if (typeof value === 'string') return underIdKey && plainId(value) ? { value: rekey(value), changed: true } : { value, changed: false };
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((v) => {
      const r = remapJson(v, rekey, underIdKey, depth + 1);
      changed ||= r.changed;
      return r.value;
    });
    return { value: changed ? out : value, changed };
  }
  if (value !== null && typeof value === 'object') {
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const r = remapJson(v, rekey, isIdKey(k), depth + 1);
      changed ||= r.changed;
      out[k] = r.value;
    }
    return { value: changed ? out : value, changed };
  }
  return { value, changed: false };
}

/** JSON text with its ids re-keyed; the same text when nothing moved or it is not JSON. */
export function remapJsonText(text: string | null, rekey: (id: string) => string, topIsId = false): string | null {
  if (text === null || text === '') return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text;
  }
  const r = remapJson(parsed, rekey, topIsId);
  return r.changed ? JSON.stringify(r.value) : text;
}

/** A conversation's tool calls with the ids in each call's arguments re-keyed (the provider's call ids stay). */
function remapToolCalls(text: string | null, rekey: (id: string) => string): string | null {
  if (text === null) return text;
  let calls: unknown;
  try {
    calls = JSON.parse(text);
  } catch {
    return text;
  }
  if (!Array.isArray(calls)) return text;
  let changed = false;
  const out = calls.map((c: unknown) => {
    if (c === null || typeof c !== 'object' || typeof (c as { arguments?: unknown }).arguments !== 'string') return c;
    const args = (c as { arguments: string }).arguments;
    const next = remapJsonText(args, rekey);
    if (next === args) return c;
    changed = true;
    return { ...(c as object), arguments: next };
  });
  return changed ? JSON.stringify(out) : text;
}

/**
 * Gives every plain id of this database the device part `part`, everywhere it is kept (see the top of this
 * file). Call inside the transaction that turns sync on, before anything is stamped. Returns the rows re-keyed.
 */
export function rekeyOwnIds(db: Db, part: string): number {
  if (!ID_PART.test(part)) throw new Error(`sync: bad id part ${part}`);
  if (!db.inTransaction) throw new Error('sync: re-keying runs inside the transaction that turns sync on');
  const rekey = (id: string): string => `${id}.${part}`;
  db.function('tidy_rekey', { deterministic: true }, (v: unknown) => (plainId(v) ? rekey(v) : v) as string | null);
  // a parent's id and its children's references move in separate statements: checked once, at the commit
  db.pragma('defer_foreign_keys = ON');
  let rows = 0;
  for (const { table, columns } of idColumns(db)) {
    const t = `"${table}"`;
    const set = columns.map((c) => `"${c}" = tidy_rekey("${c}")`).join(', ');
    const where = columns.map((c) => `"${c}" GLOB '[a-z][0-9]*'`).join(' OR ');
    const n = db.prepare(`UPDATE ${t} SET ${set} WHERE ${where}`).run().changes;
    if (columns.includes('id')) rows += n;
  }
  // the action log's entity index ("tasks:t12") and the search index's refs (messages are indexed by seq)
  db.prepare(`UPDATE action_entities SET entity = substr(entity, 1, instr(entity, ':')) || tidy_rekey(substr(entity, instr(entity, ':') + 1)) WHERE entity GLOB '*:[a-z][0-9]*'`).run();
  db.prepare(`UPDATE search_docs SET ref = tidy_rekey(ref) WHERE kind != 'messages' AND ref GLOB '[a-z][0-9]*'`).run();
  // JSON: the action log (undo and redo write its images back), waiting approvals, a conversation's tool calls and results
  const action = db.prepare(`UPDATE actions SET changes = ?, what = ?, args = ?, result = ? WHERE seq = ?`);
  for (const a of db.prepare(`SELECT seq, changes, what, args, result FROM actions`).all() as { seq: number; changes: string; what: string | null; args: string; result: string | null }[]) {
    const next = [remapJsonText(a.changes, rekey), remapJsonText(a.what, rekey), remapJsonText(a.args, rekey), remapJsonText(a.result, rekey)] as const;
    if (next[0] !== a.changes || next[1] !== a.what || next[2] !== a.args || next[3] !== a.result) action.run(next[0], next[1], next[2], next[3], a.seq);
  }
  // a large action's images past its first 1,000 changes (actions/changes.ts, migration 21), read a page at a time
  const spilled = db.prepare(`UPDATE action_rows SET before = ?, after = ? WHERE action_id = ? AND n = ?`);
  const page = db.prepare(`SELECT action_id, n, before, after FROM action_rows WHERE action_id > ? OR (action_id = ? AND n > ?) ORDER BY action_id, n LIMIT 1000`);
  for (let at = { action_id: '', n: -Infinity }; ; ) {
    const rows = page.all(at.action_id, at.action_id, at.n) as { action_id: string; n: number; before: string | null; after: string | null }[];
    for (const r of rows) {
      const before = remapJsonText(r.before, rekey);
      const after = remapJsonText(r.after, rekey);
      if (before !== r.before || after !== r.after) spilled.run(before, after, r.action_id, r.n);
    }
    if (rows.length < 1000) break;
    at = rows[rows.length - 1]!;
  }
  const approval = db.prepare(`UPDATE approvals SET args = ?, decided_args = ? WHERE id = ?`);
  for (const a of db.prepare(`SELECT id, args, decided_args FROM approvals`).all() as { id: string; args: string; decided_args: string | null }[]) {
    const args = remapJsonText(a.args, rekey);
    const decided = remapJsonText(a.decided_args, rekey);
    if (args !== a.args || decided !== a.decided_args) approval.run(args, decided, a.id);
  }
  const message = db.prepare(`UPDATE messages SET content = ?, tool_calls = ? WHERE seq = ?`);
  // the ids each conversation's tools named (before the conversation's own id moved: it moved with the columns)
  const named = new Map<string, Set<string>>();
  for (const m of db.prepare(`SELECT seq, conversation_id, role, content, tool_calls FROM messages WHERE role = 'tool' OR tool_calls IS NOT NULL`).all() as {
    seq: number;
    conversation_id: string;
    role: string;
    content: string | null;
    tool_calls: string | null;
  }[]) {
    let ids = named.get(m.conversation_id);
    if (!ids) named.set(m.conversation_id, (ids = new Set()));
    const noting = (id: string): string => (ids.add(id), rekey(id));
    const content = m.role === 'tool' ? remapJsonText(m.content, noting) : m.content;
    const calls = remapToolCalls(m.tool_calls, noting);
    if (content !== m.content || calls !== m.tool_calls) message.run(content, calls, m.seq);
  }
  // the assistant's answers: an id it took from a tool ("Added t12 “milk”") moves with its row (rekeyTextIds says which)
  const tableOf = new Map<string, string>([...ENTITY_KINDS.map((k): [string, string] => [KINDS[k].letter, KINDS[k].table]), ['a', 'actions']]);
  const rowExists = (id: string): boolean => {
    const table = tableOf.get(id[0]!);
    return table !== undefined && db.prepare(`SELECT 1 FROM "${table}" WHERE id = ?`).get(rekey(id)) !== undefined;
  };
  const answer = db.prepare(`UPDATE messages SET content = ? WHERE seq = ?`);
  for (const m of db.prepare(`SELECT seq, conversation_id, content FROM messages WHERE role = 'assistant' AND content GLOB '*[a-z][0-9]*'`).all() as { seq: number; conversation_id: string; content: string }[]) {
    const ids = named.get(m.conversation_id);
    if (!ids || ids.size === 0) continue;
    const next = rekeyTextIds(m.content, ids, rekey, (id) => rowExists(id));
    if (next !== m.content) answer.run(next, m.seq);
  }
  return rows;
}

/** Priorities as people write them (p1 … p4): in text these are never taken for a project's id. */
const PRIORITY_WORD = /^p[1-4]$/;

/**
 * Free text with the ids of `ids` re-keyed where they stand as a word of their own: "Added t12 “milk”." →
 * "Added t12.3f9a0c “milk”.". Only an id the conversation's tools named (so the text most likely means that
 * row) and that names a row re-keyed (`isRow`: a task, project, action … of its letter); never one already
 * with a device part, inside a longer word or number ("at12", "t12b", "t12.5", "v1.2"), nor p1–p4
 * (priorities read the same as a project's id).
 */
export function rekeyTextIds(text: string, ids: ReadonlySet<string>, rekey: (id: string) => string, isRow: (id: string) => boolean): string {
  return text.replace(/(?<![\p{L}\p{N}_.-])([a-z][0-9]{1,15})(?![\p{L}\p{N}_-]|\.[\p{L}\p{N}])/gu, (token: string) =>
    ids.has(token) && plainId(token) && !PRIORITY_WORD.test(token) && isRow(token) ? rekey(token) : token,
  );
}
