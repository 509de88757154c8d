// The sending side of sync for a large action (the receiving side: sync/action-rows.ts). Kept in store/, beside
// sync-capture.ts, because recording an action (actions/log.ts) queues its pages, and the task commands must not
// load sync itself (test/unit/cli/dispatch.test.ts).
//
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
import type { Db } from './db';
import { cached } from './statements';
import { MAX_VALUE_CHARS, syncOn } from './sync-capture';

/** The pseudo-table a large action's changes travel in. */
export const ACTION_ROWS_TABLE = 'action_rows';
const PAGE_CHANGES = 500;
const PAGE_CHARS = 200_000;
/** Past any n an action_rows row has. */
export const END = 2 ** 52;

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
