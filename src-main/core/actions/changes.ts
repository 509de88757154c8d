import type { Db } from '../store/db';
import type { Row, Table } from '../store/entities';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';

export { TRACKED_TABLES, type Row, type Table } from '../store/entities';

/** One row's state before and after an action; null means the row did not exist. */
export interface Change {
  table: Table;
  id: string;
  before: Row | null;
  after: Row | null;
  /**
   * The after image was not kept here (a large action received from the device that made it, migration 22):
   * `after` is the row as it is now, and any later change of the row is one to undo first.
   */
  current?: true;
}

export const entityKey = (table: Table, id: string): string => `${table}:${id}`;

export function readRow(db: Db, table: string, id: string): Row | null {
  return (cached(db, `SELECT * FROM ${table} WHERE id = ?`).get(id) as Row | undefined) ?? null;
}

/** Rows are compared by value, column by column, whatever order their keys came in. */
export function sameRow(a: Row | null, b: Row | null): boolean {
  if (a === null || b === null) return a === b;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => a[k] === b[k]);
}

/**
 * An action keeps this many changes in its own JSON value (`actions.changes`); the ones after them (an
 * import of 100,000 events) go to `action_rows` one row each as they happen, so no large action is ever
 * held in memory whole (migration 21).
 */
export const INLINE_CHANGES = 1_000;
let inlineChanges = INLINE_CHANGES;

/** Tests only: makes an action keep `n` changes in its own row (a large action of a few dozen rows); returns the undo. */
export function keepInlineForTests(n: number): () => void {
  inlineChanges = n;
  return () => {
    inlineChanges = INLINE_CHANGES;
  };
}

/** A large action's changes kept in `action_rows`: the action's id (taken when they started) and how many. */
export interface Spill {
  actionId: string;
  count: number;
}

/**
 * Collects the before and after image of every row an action writes. Domain operations write only
 * through this, so the action log always holds exactly what is needed to reverse them. The first
 * INLINE_CHANGES are kept here; the rest are written to `action_rows` as they come (see Spill).
 */
export class ChangeSet {
  private readonly byEntity = new Map<string, Change>();
  private spillId: string | null = null;
  private spilledCount = 0;

  constructor(private readonly db: Db) {}

  /** The changes kept in memory: all of them, unless `spill` says more are in `action_rows`. */
  get changes(): Change[] {
    return [...this.byEntity.values()];
  }

  /** How many rows the action changed in all. */
  get count(): number {
    return this.byEntity.size + this.spilledCount;
  }

  /** The changes beyond `changes`, in `action_rows` under the action's id (null: none). */
  get spill(): Spill | null {
    return this.spillId === null ? null : { actionId: this.spillId, count: this.spilledCount };
  }

  insert(table: Table, row: Row): Row {
    const cols = Object.keys(row);
    cached(this.db, `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`).run(
      ...cols.map((c) => row[c]),
    );
    const after = readRow(this.db, table, String(row['id']));
    this.note(table, String(row['id']), null, after);
    return after!;
  }

  update(table: Table, id: string, patch: Row): Row {
    const before = readRow(this.db, table, id);
    const cols = Object.keys(patch);
    cached(this.db, `UPDATE ${table} SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(
      ...cols.map((c) => patch[c]),
      id,
    );
    const after = readRow(this.db, table, id);
    this.note(table, id, before, after);
    return after!;
  }

  /** Removes a row (a task's label taken off); undo puts it back. */
  remove(table: Table, id: string): void {
    const before = readRow(this.db, table, id);
    if (before === null) return;
    cached(this.db, `DELETE FROM ${table} WHERE id = ?`).run(id);
    this.note(table, id, before, null);
  }

  private note(table: Table, id: string, before: Row | null, after: Row | null): void {
    const key = entityKey(table, id);
    const earlier = this.byEntity.get(key);
    if (earlier || (this.spillId === null && this.byEntity.size < inlineChanges)) {
      this.byEntity.set(key, { table, id, before: earlier ? earlier.before : before, after });
      return;
    }
    // Past the first INLINE_CHANGES: to action_rows, keyed by the action's id (taken now; recordAction uses it).
    this.spillId ??= nextId(this.db, 'a');
    const n = this.spilledCount;
    const kept = cached(
      this.db,
      `INSERT INTO action_rows (action_id, n, tbl, row_id, before, after) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (action_id, tbl, row_id) DO UPDATE SET after = excluded.after RETURNING n`,
    ).get(this.spillId, n, table, id, imageText(before), imageText(after)) as { n: number };
    if (kept.n === n) this.spilledCount++;
  }
}

/** Puts a row back to an image (null removes it). Used only by undo, to restore an exact earlier state. */
export function restoreRow(db: Db, table: string, id: string, image: Row | null): void {
  if (image === null) {
    cached(db, `DELETE FROM ${table} WHERE id = ?`).run(id);
    return;
  }
  const cols = Object.keys(image);
  const updates = cols.filter((c) => c !== 'id').map((c) => `${c} = excluded.${c}`);
  cached(
    db,
    `INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})
     ON CONFLICT(id) DO UPDATE SET ${updates.join(', ')}`,
  ).run(...cols.map((c) => image[c]));
}

const imageText = (image: Row | null): string | null => (image === null ? null : JSON.stringify(image));
