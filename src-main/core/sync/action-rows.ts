// The receiving side of a large action's pages, and the sends of older actions and snapshots; the format and the
// sending side: store/action-pages.ts.
import type { Db } from '../store/db';
import { TRACKED_TABLES } from '../store/entities';
import { cached } from '../store/statements';
import { EXISTS_COLUMN } from '../store/sync-capture';
import { actionPages, ACTION_ROWS_TABLE, END, queueActionPages } from '../store/action-pages';

/** What a reader accepts in one page (a margin over PAGE_CHANGES for later versions). */
const MAX_PAGE_CHANGES = 5_000;
const PAGE_COLUMN = /^p(0|[1-9][0-9]{0,8})$/;

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
