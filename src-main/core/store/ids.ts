import type { IdKind } from '../../../src-shared/entities';
import type { Db } from './db';
import { cached } from './statements';

/**
 * Short, human-typable ids: a letter for the kind and a counter (t12 is a task, p3 a project, a41 an
 * action, e5 an event, k2 a calendar, s4 a section, g2 a label, j9 a task's label, n3 a comment, f1 a saved filter). Counters only grow, so an id freed by an undo is never handed out again.
 *
 * While sync is on, a new id also carries this device's part after a dot (`t12.3f9a0c`), so two devices
 * never hand out the same id; rows made before sync was set up keep their ids (docs/ARCHITECTURE.md, "Sync").
 */
export type { IdKind } from '../../../src-shared/entities';

/** The device part of an id: six lowercase hex digits (the start of the device id). */
export const ID_PART = /^[0-9a-f]{6}$/;

/** Whether the database has the sync tables (a database built by a prefix of the migrations, in tests, has not). */
const hasSyncState = new WeakMap<Db, boolean>();

function idPart(db: Db): string | null {
  let has = hasSyncState.get(db);
  if (has === undefined) {
    has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_state'`).get() !== undefined;
    hasSyncState.set(db, has);
  }
  if (!has) return null;
  const row = cached(db, `SELECT id_part FROM sync_state WHERE id = 1`).get() as { id_part: string } | undefined;
  return row?.id_part ?? null;
}

export function nextId(db: Db, kind: IdKind): string {
  const row = cached(
    db,
    `INSERT INTO id_counters (kind, next) VALUES (?, 2)
     ON CONFLICT(kind) DO UPDATE SET next = next + 1 RETURNING next - 1 AS n`,
  ).get(kind) as { n: number };
  const part = idPart(db);
  return part ? `${kind}${row.n}.${part}` : `${kind}${row.n}`;
}
