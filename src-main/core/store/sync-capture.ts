/**
 * Sync's capture: while sync is on, triggers append every changed column of every synced table (the
 * entity registry's tables and the action log) to `sync_outbox`, unstamped, with the wall time of the
 * change; the sync layer stamps them from the device clock before it sends them or merges anything
 * received (src-main/core/sync/store-device.ts). Triggers, not application code, because undo writes rows
 * directly. They are made from the registry when a database opens (as the search index's are) and only
 * while sync is on; received changes are written with `sync_state.applying` = 1, which the triggers skip,
 * so nothing received is echoed back.
 *
 * A row's existence is a cell of its own, `_exists` (1 or 0): an undo of a creation deletes the row here,
 * and the delete travels as `_exists` = 0 under the same last-writer-wins rule as any column.
 */
import type Database from 'better-sqlite3';
import { ENTITIES } from './entities';

/** A connection (the type store/db.ts names Db; not imported from there, which imports this module). */
type Db = Database.Database;

/** The tables sync carries, in the order a new device receives them (parents before children). */
export const SYNCED_TABLES: readonly string[] = [...ENTITIES.map((e) => e.table), 'actions'];
/** Columns that are this database's own and never sync. */
const LOCAL_COLUMNS: Record<string, readonly string[]> = { actions: ['seq'] };
export const EXISTS_COLUMN = '_exists';

/** The wall time in ms, in SQL (as close to Date.now() as SQLite's clock allows). */
const NOW_MS = `CAST(ROUND((julianday('now') - 2440587.5) * 86400000.0) AS INTEGER)`;
const ACTIVE = `(SELECT applying FROM sync_state WHERE id = 1) = 0`;
const PREFIX = 'sync_capture_';

const tableExists = (db: Db, table: string): boolean => db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) !== undefined;

/** The synced columns of a table, as this database has them (id excluded: it is the row). */
export function syncedColumns(db: Db, table: string): string[] {
  const local = LOCAL_COLUMNS[table] ?? [];
  return (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id' && !local.includes(c));
}

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

function triggersFor(db: Db, table: string): { name: string; sql: string }[] {
  const cols = syncedColumns(db, table);
  const row = (r: 'new' | 'old', col: string, value: string) => `(${NOW_MS}, ${q(table)}, ${r}.id, ${q(col)}, ${value})`;
  const insert = [row('new', EXISTS_COLUMN, '1'), ...cols.map((c) => row('new', c, `new.${c}`))].join(',\n    ');
  const updates = cols
    .map((c) => `INSERT INTO sync_outbox (at, tbl, row, col, value) SELECT ${NOW_MS}, ${q(table)}, new.id, ${q(c)}, new.${c} WHERE old.${c} IS NOT new.${c};`)
    .join('\n  ');
  return [
    { name: `${PREFIX}${table}_insert`, sql: `CREATE TRIGGER ${PREFIX}${table}_insert AFTER INSERT ON ${table} WHEN ${ACTIVE} BEGIN\n  INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES\n    ${insert};\nEND` },
    { name: `${PREFIX}${table}_update`, sql: `CREATE TRIGGER ${PREFIX}${table}_update AFTER UPDATE ON ${table} WHEN ${ACTIVE} BEGIN\n  ${updates}\nEND` },
    { name: `${PREFIX}${table}_delete`, sql: `CREATE TRIGGER ${PREFIX}${table}_delete AFTER DELETE ON ${table} WHEN ${ACTIVE} BEGIN\n  INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES ${row('old', EXISTS_COLUMN, '0')};\nEND` },
  ];
}

/** Whether sync is on in this database (its tables exist and hold this device). */
export function syncOn(db: Db): boolean {
  return tableExists(db, 'sync_state') && db.prepare(`SELECT 1 FROM sync_state WHERE id = 1`).get() !== undefined;
}

const TRIGGERS = `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'sync\\_capture\\_%' ESCAPE '\\'`;

function wanted(db: Db): { name: string; sql: string }[] {
  return syncOn(db) ? SYNCED_TABLES.filter((t) => tableExists(db, t)).flatMap((t) => triggersFor(db, t)) : [];
}

export function captureTriggersCurrent(db: Db): boolean {
  const have = new Map((db.prepare(TRIGGERS).all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const want = wanted(db);
  return want.length === have.size && want.every((t) => have.get(t.name) === t.sql);
}

/** Drops every trigger named like capture's (a file's own are never run; syncCaptureTriggers makes them again). */
export function dropCaptureTriggers(db: Db): void {
  for (const { name } of db.prepare(TRIGGERS).all() as { name: string }[]) db.exec(`DROP TRIGGER "${name.replace(/"/g, '""')}"`);
}

/** Makes the capture triggers match the registry and whether sync is on (none while it is off). Call inside a transaction or alone. */
export function syncCaptureTriggers(db: Db): void {
  if (captureTriggersCurrent(db)) return;
  const run = (): void => {
    dropCaptureTriggers(db);
    for (const t of wanted(db)) db.exec(t.sql);
  };
  if (db.inTransaction) run();
  else db.transaction(run).immediate();
}
