import { ActionWhat, UNKNOWN_WHAT } from '../../../src-shared/actions';
import type { ActionEntry, ActionSource } from '../../../src-shared/domain';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { queueActionPages } from '../store/action-pages';
import { entityKey, readRow, type Change, type Row, type Spill, type Table } from './changes';

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
  /** The before/after image of every row the action wrote (JSON Change[]); a large action's first ones only (see `spilled`). */
  changes: string;
  /** How many more of its changes are in `action_rows` (0 for all but large actions; migration 21). */
  spilled: number;
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

/**
 * Writes one action row and its entity index. Call inside the transaction that made the changes. A large
 * action's changes beyond `changes` are already in `action_rows` under `spill.actionId`, which becomes its id.
 */
export function recordAction(db: Db, ctx: ActionContext, action: NewAction, changes: Change[], spill: Spill | null = null): string {
  const id = spill?.actionId ?? nextId(db, 'a');
  const spilled = spill?.count ?? 0;
  // its changes beside it go to the other devices just before its row (sync/action-rows.ts)
  if (spilled > 0) queueActionPages(db, id);
  // `spilled` is named only when there is one: an ordinary action writes what every schema since 1 has.
  const info = cached(
    db,
    spilled > 0
      ? `INSERT INTO actions (id, request_id, source, tool, args, result, changes, summary, what, created_at, undoes, spilled) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
      : `INSERT INTO actions (id, request_id, source, tool, args, result, changes, summary, what, created_at, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
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
    ...(spilled > 0 ? [spilled] : []),
  );
  const link = cached(db, `INSERT OR IGNORE INTO action_entities (entity, action_seq) VALUES (?, ?)`);
  for (const c of changes) link.run(entityKey(c.table, c.id), info.lastInsertRowid);
  if (spill)
    cached(db, `INSERT OR IGNORE INTO action_entities (entity, action_seq) SELECT tbl || ':' || row_id, ? FROM action_rows WHERE action_id = ?`).run(info.lastInsertRowid, spill.actionId);
  return id;
}

export function getActionRow(db: Db, id: string): ActionRow | null {
  return (cached(db, `SELECT * FROM actions WHERE id = ?`).get(id) as ActionRow | undefined) ?? null;
}

/** The changes an action keeps in its own row (all of them, unless it is a large one: see eachChange). */
export function changesOf(row: ActionRow): Change[] {
  return JSON.parse(row.changes) as Change[];
}

const PAGE = 500;
/** Past any n an action_rows row has (n is a change's place among an action's, at most a few million). */
const END = 2 ** 52;

interface SideRow {
  n: number;
  tbl: string;
  row_id: string;
  before: string | null;
  after: string | null;
  /** 0: received without its after image (sync/action-rows.ts): the row as it is stands in (migration 22). */
  after_kept: number;
}

function sideChange(db: Db, r: SideRow): Change {
  const before = r.before === null ? null : (JSON.parse(r.before) as Row);
  if (r.after_kept === 0) return { table: r.tbl as Table, id: r.row_id, before, after: readRow(db, r.tbl, r.row_id), current: true };
  return { table: r.tbl as Table, id: r.row_id, before, after: r.after === null ? null : (JSON.parse(r.after) as Row) };
}

/** The action's changes in `action_rows` with lo <= n < hi, a page at a time (no statement stays open between pages). */
function* side(db: Db, actionId: string, lo: number, hi: number, reverse: boolean): Generator<Change> {
  const page = reverse
    ? cached(db, `SELECT * FROM action_rows WHERE action_id = ? AND n >= ? AND n < ? ORDER BY n DESC LIMIT ${PAGE}`)
    : cached(db, `SELECT * FROM action_rows WHERE action_id = ? AND n >= ? AND n < ? ORDER BY n LIMIT ${PAGE}`);
  for (;;) {
    const rows = page.all(actionId, lo, hi) as SideRow[];
    for (const r of rows) yield sideChange(db, r);
    if (rows.length < PAGE) return;
    if (reverse) hi = rows[rows.length - 1]!.n;
    else lo = rows[rows.length - 1]!.n + 1;
  }
}

/**
 * Every change of an action in order (or in reverse), a page at a time: those in `action_rows` with n < 0,
 * then those in its own row, then those in `action_rows` with n >= 0.
 */
export function* eachChange(db: Db, row: ActionRow, reverse = false): Generator<Change> {
  const own = changesOf(row);
  if (!(row.spilled > 0)) {
    yield* reverse ? own.reverse() : own;
    return;
  }
  if (reverse) {
    yield* side(db, row.id, 0, END, true);
    yield* own.reverse();
    yield* side(db, row.id, -END, 0, true);
  } else {
    yield* side(db, row.id, -END, 0, false);
    yield* own;
    yield* side(db, row.id, 0, END, false);
  }
}

/** The action's change of one row, if it changed it; `own` is changesOf(row) when the caller has it already. */
export function changeOf(db: Db, row: ActionRow, table: string, id: string, own: Change[] = changesOf(row)): Change | undefined {
  const inline = own.find((c) => c.table === table && c.id === id);
  if (inline || !(row.spilled > 0)) return inline;
  const r = cached(db, `SELECT * FROM action_rows WHERE action_id = ? AND tbl = ? AND row_id = ?`).get(row.id, table, id) as SideRow | undefined;
  return r && sideChange(db, r);
}

/** Whether a large action changed a row among those kept beside it (in action_rows). */
export function changedBeside(db: Db, row: ActionRow, table: string, id: string): boolean {
  return row.spilled > 0 && cached(db, `SELECT 1 FROM action_rows WHERE action_id = ? AND tbl = ? AND row_id = ?`).get(row.id, table, id) !== undefined;
}

/** How many of a large action's changes beside its row are in this database (`spilled` when all are). */
export function changesBeside(db: Db, row: ActionRow): number {
  if (!(row.spilled > 0)) return 0;
  return (cached(db, `SELECT count(*) AS n FROM action_rows WHERE action_id = ?`).get(row.id) as { n: number }).n;
}

/**
 * Whether all of a large action's changes are in this database: on the device that made it, and on one that
 * received them (sync/action-rows.ts); not in an imported copy of the log, nor where one was made by a Tidy
 * before schema 22 on another device (such a Tidy kept them on its device).
 */
export function changesHere(db: Db, row: ActionRow): boolean {
  return !(row.spilled > 0) || changesBeside(db, row) === row.spilled;
}

/**
 * The record of an undo's changes beside its row: those of the undone action, each the other way round, under
 * a new action id. Call before the undo restores anything: a change received without its after image takes
 * the row as it is now (what the undone action left, once nothing later changed it) as the undo's before.
 */
export function reverseBeside(db: Db, row: ActionRow): Spill | null {
  if (!(row.spilled > 0)) return null;
  const spill = { actionId: nextId(db, 'a'), count: row.spilled };
  // n -> -(n + 1) turns their order around and moves those after the action's own row's changes before them
  // (eachChange), as undo reverses its own row's list.
  cached(
    db,
    `INSERT INTO action_rows (action_id, n, tbl, row_id, before, after) SELECT ?, -(n + 1), tbl, row_id, after, before FROM action_rows WHERE action_id = ? AND after_kept = 1`,
  ).run(spill.actionId, row.id);
  const page = cached(db, `SELECT n, tbl, row_id, before FROM action_rows WHERE action_id = ? AND after_kept = 0 AND n > ? ORDER BY n LIMIT ${PAGE}`);
  const put = cached(db, `INSERT INTO action_rows (action_id, n, tbl, row_id, before, after) VALUES (?, ?, ?, ?, ?, ?)`);
  for (let after = -END; ; ) {
    const rows = page.all(row.id, after) as { n: number; tbl: string; row_id: string; before: string | null }[];
    for (const r of rows) {
      const now = readRow(db, r.tbl, r.row_id);
      put.run(spill.actionId, -(r.n + 1), r.tbl, r.row_id, now === null ? null : JSON.stringify(now), r.before);
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.n;
  }
  return spill;
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
    ...(row.changes === '[]' && !(row.spilled > 0) ? { external: true } : {}),
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
