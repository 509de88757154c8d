import type { Db } from '../store/db';
import type { Row, Table } from '../store/entities';
import { cached } from '../store/statements';

export { TRACKED_TABLES, type Row, type Table } from '../store/entities';

/** One row's state before and after an action; null means the row did not exist. */
export interface Change {
  table: Table;
  id: string;
  before: Row | null;
  after: Row | null;
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
 * Collects the before and after image of every row an action writes. Domain operations write only
 * through this, so the action log always holds exactly what is needed to reverse them.
 */
export class ChangeSet {
  private readonly byEntity = new Map<string, Change>();

  constructor(private readonly db: Db) {}

  get changes(): Change[] {
    return [...this.byEntity.values()];
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
    this.byEntity.set(key, { table, id, before: earlier ? earlier.before : before, after });
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
