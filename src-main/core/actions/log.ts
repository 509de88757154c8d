import { ActionWhat, UNKNOWN_WHAT } from '../../../src-shared/actions';
import type { ActionEntry, ActionSource } from '../../../src-shared/domain';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { entityKey, type Change } from './changes';

/** The request an action belongs to: an agent run (r…), one user command (u…), an MCP client's session. */
export interface ActionContext {
  requestId: string;
  source: ActionSource;
}

export interface ActionRow {
  seq: number;
  id: string;
  request_id: string;
  source: ActionSource;
  tool: string;
  args: string;
  result: string | null;
  /** The before/after image of every row the action wrote (JSON Change[]). */
  changes: string;
  summary: string;
  /** What it did, as data (JSON ActionWhat; migration 11 wrote it for the rows logged before). */
  what: string | null;
  created_at: string;
  undone_at: string | null;
  undoes: string | null;
}

/** A fresh request id for changes made by hand (one CLI command, one click in the UI). */
export function newUserRequest(db: Db): ActionContext {
  return { requestId: nextId(db, 'u'), source: 'user' };
}

export interface NewAction {
  tool: string;
  args: unknown;
  /** For display; `what` is what it did. */
  summary: string;
  what: ActionWhat;
  result?: unknown;
  undoes?: string;
}

/** Text arguments longer than this are logged cut (an imported file's text is in its rows, not its arguments). */
const MAX_LOGGED_ARG_CHARS = 10_000;
const cutLongText = (_key: string, value: unknown): unknown =>
  typeof value === 'string' && value.length > MAX_LOGGED_ARG_CHARS ? `${value.slice(0, 200)}… (${value.length.toLocaleString('en')} characters)` : value;

/** Writes one action row and its entity index. Call inside the transaction that made the changes. */
export function recordAction(db: Db, ctx: ActionContext, action: NewAction, changes: Change[]): string {
  const id = nextId(db, 'a');
  const info = cached(
    db,
    `INSERT INTO actions (id, request_id, source, tool, args, result, changes, summary, what, created_at, undoes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    id,
    ctx.requestId,
    ctx.source,
    action.tool,
    JSON.stringify(action.args ?? {}, cutLongText),
    action.result === undefined ? null : JSON.stringify(action.result),
    JSON.stringify(changes),
    action.summary,
    JSON.stringify(action.what),
    new Date().toISOString(),
    action.undoes ?? null,
  );
  const link = cached(db, `INSERT OR IGNORE INTO action_entities (entity, action_seq) VALUES (?, ?)`);
  for (const c of changes) link.run(entityKey(c.table, c.id), info.lastInsertRowid);
  return id;
}

export function getActionRow(db: Db, id: string): ActionRow | null {
  return (cached(db, `SELECT * FROM actions WHERE id = ?`).get(id) as ActionRow | undefined) ?? null;
}

export function changesOf(row: ActionRow): Change[] {
  return JSON.parse(row.changes) as Change[];
}

/** What an action did; an unreadable value (a hand-edited database) reads as a change of no kind. */
export function whatOf(row: ActionRow): ActionWhat {
  try {
    const parsed = ActionWhat.safeParse(JSON.parse(row.what ?? 'null'));
    return parsed.success ? parsed.data : UNKNOWN_WHAT;
  } catch {
    return UNKNOWN_WHAT;
  }
}

export function toEntry(row: ActionRow): ActionEntry {
  return {
    id: row.id,
    requestId: row.request_id,
    source: row.source,
    tool: row.tool,
    args: JSON.parse(row.args) as unknown,
    summary: row.summary,
    what: whatOf(row),
    createdAt: row.created_at,
    undoneAt: row.undone_at,
    undoes: row.undoes,
    // A call of an MCP server's tool: logged, but nothing in Tidy to reverse.
    ...(row.changes === '[]' ? { external: true } : {}),
  };
}

export interface LogQuery {
  requestId?: string;
  /** Page size, newest first. */
  limit?: number;
  /** Return entries older than this action id (for paging). */
  before?: string;
}

/** The action log, newest first. */
export function listActions(db: Db, query: LogQuery = {}): ActionEntry[] {
  const limit = Math.max(1, Math.min(query.limit ?? 100, 10_000));
  const beforeSeq = query.before ? (getActionRow(db, query.before)?.seq ?? 0) : Number.MAX_SAFE_INTEGER;
  const rows = query.requestId
    ? cached(db, `SELECT * FROM actions WHERE request_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?`).all(query.requestId, beforeSeq, limit)
    : cached(db, `SELECT * FROM actions WHERE seq < ? ORDER BY seq DESC LIMIT ?`).all(beforeSeq, limit);
  return (rows as ActionRow[]).map(toEntry);
}
