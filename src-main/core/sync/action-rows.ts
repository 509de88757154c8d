// A large action's changes past its first INLINE_CHANGES (kept in `action_rows`, actions/changes.ts) travel to
// the other devices in a compact form, so such an action (an import of 100,000 events) can be undone on every
// device without doubling the import's traffic. The side of a change that the synced row itself carries does
// not travel: the after image never does (it is the row as the action left it, which travels as the row), so
// an insert sends only its table and row id; an update or a removal sends its before image, which no synced
// row carries any more. On a device that received them (`after_kept` = 0, migration 22) the row as it is
// stands in for the after image at undo time (actions/log.ts), and undo counts every later change of such a
// row as one to undo first (actions/undo.ts): once those are undone, the row is again as the action left it.
//
// On the wire: messages of the pseudo-table `action_rows`, row = the action's id, column `p<k>` (its k-th
// page), value = JSON `[first n, [entry, …]]` for consecutive n from `first n`, an entry being `[table, id]`
// (before: none; after: the row), `[table, id, before]` (after: the row) or `[table, id, before, 0]` (after:
// none, the row was removed). A page holds at most PAGE_CHANGES entries and PAGE_CHARS characters. Pages are
// written once and never change; a received page is checked like a received action's images (undo turns
// them into SQL) and written with INSERT OR IGNORE, so a page received twice, or one for an action made here,
// changes nothing. Pages are queued just before the action's own row, so they arrive with it or before it.
import type { Db } from '../store/db';
import { TRACKED_TABLES } from '../store/entities';
import { cached } from '../store/statements';
import { EXISTS_COLUMN, syncOn } from '../store/sync-capture';
import { MAX_VALUE_CHARS } from './messages';

/** The pseudo-table a large action's changes travel in. */
export const ACTION_ROWS_TABLE = 'action_rows';
const PAGE_CHANGES = 500;
const PAGE_CHARS = 200_000;
/** What a reader accepts in one page (a margin over PAGE_CHANGES for later versions). */
const MAX_PAGE_CHANGES = 5_000;
const PAGE_COLUMN = /^p(0|[1-9][0-9]{0,8})$/;
/** Past any n an action_rows row has. */
const END = 2 ** 52;

interface SideRow {
  n: number;
  tbl: string;
  row_id: string;
  before: string | null;
  gone: number;
}

/** One change as an entry of a page (text, from the stored JSON: no parse and stringify of its image). */
const entryText = (r: SideRow): string =>
  `[${JSON.stringify(r.tbl)},${JSON.stringify(r.row_id)}${r.before !== null || r.gone ? `,${r.before ?? 'null'}` : ''}${r.gone ? ',0' : ''}]`;

/**
 * An action's changes in `action_rows` as pages, in order of n (read a page at a time). A change whose
 * entry alone would not fit in a message is left out: the action then stays one to undo on its own device
 * (the other devices count fewer changes than it has, and refuse in one line).
 */
export function* actionPages(db: Db, actionId: string): Generator<{ column: string; value: string }> {
  const read = cached(
    db,
    `SELECT n, tbl, row_id, before, (after IS NULL AND after_kept = 1) AS gone FROM action_rows WHERE action_id = ? AND n > ? ORDER BY n LIMIT ${PAGE_CHANGES}`,
  );
  let k = 0;
  let first = 0;
  let next = 0;
  let parts: string[] = [];
  let chars = 0;
  let after = -END;
  for (;;) {
    const rows = read.all(actionId, after) as SideRow[];
    for (const r of rows) {
      const text = entryText(r);
      if (parts.length > 0 && (r.n !== next || parts.length >= PAGE_CHANGES || chars + text.length > PAGE_CHARS)) {
        yield { column: `p${k++}`, value: `[${first},[${parts.join(',')}]]` };
        parts = [];
        chars = 0;
      }
      if (text.length + 40 > MAX_VALUE_CHARS) continue;
      if (parts.length === 0) first = r.n;
      parts.push(text);
      chars += text.length + 1;
      next = r.n + 1;
    }
    if (rows.length < PAGE_CHANGES) break;
    after = rows[rows.length - 1]!.n;
  }
  if (parts.length > 0) yield { column: `p${k}`, value: `[${first},[${parts.join(',')}]]` };
}

/** Queues a large action's pages to be sent, while sync is on (call just before its action row is written). */
export function queueActionPages(db: Db, actionId: string): void {
  if (!syncOn(db)) return;
  const queue = cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`);
  const now = Date.now();
  for (const p of actionPages(db, actionId)) queue.run(now, ACTION_ROWS_TABLE, actionId, p.column, p.value);
}

/**
 * Queues the pages of every large action made here that were never sent (made by a Tidy before schema 22
 * while sync was on, which kept them on this device): all its changes are here with their after images, and
 * no page of it has a clock. Call after the outbox is stamped (a page queued since has its clock then). Reads
 * only the large actions (a partial index); returns how many actions were queued.
 */
export function queueUnsentPages(db: Db): number {
  let queued = 0;
  const sent = cached(db, `SELECT 1 FROM sync_cells WHERE tbl = ? AND row = ? LIMIT 1`);
  const kept = cached(db, `SELECT COUNT(*) AS n FROM action_rows WHERE action_id = ? AND after_kept = 1`);
  for (const a of cached(db, `SELECT id, spilled FROM actions WHERE spilled > 0 ORDER BY seq`).all() as { id: string; spilled: number }[]) {
    if (sent.get(ACTION_ROWS_TABLE, a.id) !== undefined || (kept.get(a.id) as { n: number }).n !== a.spilled) continue;
    queueActionPages(db, a.id);
    queued++;
  }
  return queued;
}

/** Every stored action's pages, for a snapshot (a new device gets them with the rows). */
export function* allActionPages(db: Db): Generator<{ actionId: string; column: string; value: string }> {
  const next = cached(db, `SELECT action_id FROM action_rows WHERE action_id > ? ORDER BY action_id LIMIT 1`);
  let at = '';
  for (;;) {
    const r = next.get(at) as { action_id: string } | undefined;
    if (!r) return;
    at = r.action_id;
    for (const p of actionPages(db, at)) yield { actionId: at, ...p };
  }
}

/** A table's synced columns as this database has them (store-device.ts's schema). */
export type ColumnsOf = (table: string) => ReadonlyMap<string, unknown> | undefined;

/** Whether a received image is one undo may write: a plain object of this schema's columns and plain values. */
function imageOk(image: unknown, cols: ReadonlyMap<string, unknown>): 'ok' | 'unknown' | 'refused' {
  if (image === null) return 'ok';
  if (typeof image !== 'object' || Array.isArray(image)) return 'refused';
  let unknown = false;
  for (const [k, v] of Object.entries(image as Record<string, unknown>)) {
    if (!(v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) return 'refused';
    if (k === EXISTS_COLUMN) return 'refused';
    if (k !== 'id' && !cols.has(k)) unknown = true;
  }
  return unknown ? 'unknown' : 'ok';
}

/**
 * Writes a received page into `action_rows` (inside the apply transaction) and links its rows to the action
 * when it is here. 'unknown': it names a table or column this schema does not have (it waits for an update of
 * Tidy); 'refused': it is malformed. Nothing is written unless the whole page is good.
 */
export function applyActionPage(db: Db, actionId: string, column: string, value: unknown, columnsOf: ColumnsOf): 'ok' | 'unknown' | 'refused' {
  if (!PAGE_COLUMN.test(column) || typeof value !== 'string') return 'refused';
  let page: unknown;
  try {
    page = JSON.parse(value);
  } catch {
    return 'refused';
  }
  if (!Array.isArray(page) || page.length !== 2) return 'refused';
  const [first, entries] = page as unknown[];
  if (typeof first !== 'number' || !Number.isSafeInteger(first) || !Array.isArray(entries) || entries.length === 0 || entries.length > MAX_PAGE_CHANGES) return 'refused';
  if (Math.abs(first) > END || Math.abs(first + entries.length) > END) return 'refused';
  const tracked = new Set<string>(TRACKED_TABLES);
  const rows: [number, string, string, string | null, number][] = [];
  let unknown = false;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (!Array.isArray(e) || e.length < 2 || e.length > 4) return 'refused';
    const [table, id, before = null, gone] = e as unknown[];
    if (typeof table !== 'string' || typeof id !== 'string' || id.length < 1 || id.length > 128) return 'refused';
    if (gone !== undefined && gone !== 0) return 'refused';
    // a table this schema syncs but undo never writes (the log itself) is refused; one it does not have waits
    const cols = columnsOf(table);
    const ok = cols ? (tracked.has(table) ? imageOk(before, cols) : 'refused') : /^[a-z_][a-z0-9_]{0,63}$/.test(table) ? 'unknown' : 'refused';
    if (ok === 'refused') return 'refused';
    if (ok === 'unknown') unknown = true;
    // an image's id is its row's
    if (before !== null && (before as Record<string, unknown>)['id'] !== id) return 'refused';
    rows.push([first + i, table, id, before === null ? null : JSON.stringify(before), gone === 0 ? 1 : 0]);
  }
  if (unknown) return 'unknown';
  const insert = cached(db, `INSERT OR IGNORE INTO action_rows (action_id, n, tbl, row_id, before, after, after_kept) VALUES (?, ?, ?, ?, ?, NULL, ?)`);
  for (const [n, table, id, before, gone] of rows) insert.run(actionId, n, table, id, before, gone);
  cached(
    db,
    `INSERT OR IGNORE INTO action_entities (entity, action_seq) SELECT r.tbl || ':' || r.row_id, a.seq FROM action_rows r JOIN actions a ON a.id = r.action_id
     WHERE r.action_id = ? AND r.n >= ? AND r.n < ?`,
  ).run(actionId, first, first + entries.length);
  return 'ok';
}
