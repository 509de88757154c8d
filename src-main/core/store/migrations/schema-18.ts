/** Schema 18: everything of the user's syncs (messages get ids, settings that sync, routine claims; docs/ARCHITECTURE.md "Sync"). */
import type Database from 'better-sqlite3';
import { SYNCED_SETTINGS } from '../sync-capture';
import type { Migration } from './migration';

/** Queues every row of a table as changes (a row's columns together), as setting sync up does for the first device. */
function queueAll(db: Database.Database, table: string, local: readonly string[]): void {
  const cols = (db.pragma(`table_info(${table})`) as { name: string }[]).map((c) => c.name).filter((c) => c !== 'id' && !local.includes(c));
  const pick = `CASE c.k ${cols.map((col, i) => `WHEN ${i + 1} THEN x.${col}`).join(' ')} ELSE 1 END`;
  const names = ['_exists', ...cols].map((col, i) => `SELECT ${i} AS k, '${col}' AS col`).join(' UNION ALL ');
  db.prepare(`INSERT INTO sync_outbox (at, tbl, row, col, value) SELECT ?, '${table}', x.id, c.col, ${pick} FROM ${table} x CROSS JOIN (${names}) c ORDER BY x.rowid, c.k`).run(Date.now());
}

export const SCHEMA_18: Migration[] = [
  {
    version: 18,
    description: 'sync carries messages (each gets an id, as the action log has), the settings that make sense on every device, and routine claims',
    up(db) {
      db.exec(`
        -- A message's id travels between devices (its seq is this database's own order, as the action log's
        -- is). Messages written before now are x<seq> (with the device part while sync is on, as new ids
        -- have it: another device's x<seq> is not this one's); the counter goes on after them.
        ALTER TABLE messages ADD COLUMN id TEXT;
        UPDATE messages SET id = 'x' || seq || COALESCE('.' || (SELECT id_part FROM sync_state WHERE id = 1), '');
        CREATE UNIQUE INDEX messages_by_id ON messages(id);
        INSERT INTO id_counters (kind, next) SELECT 'x', MAX(seq) + 1 FROM messages WHERE true HAVING MAX(seq) IS NOT NULL
          ON CONFLICT(kind) DO UPDATE SET next = MAX(next, excluded.next);
        -- The settings that sync (the allow-list in store/sync-capture.ts), as sync carries rows: by id.
        -- Kept equal to their rows in settings by triggers made while sync is on.
        CREATE TABLE synced_settings (id TEXT PRIMARY KEY, value TEXT NOT NULL);
        -- Which device runs a routine (src-main/core/routines/claims.ts): one row per routine and device,
        -- written only by that device; the live claim with the earliest stamp holds the routine.
        CREATE TABLE routine_claims (
          id TEXT PRIMARY KEY,
          routine_id TEXT NOT NULL,
          device TEXT NOT NULL,
          stamp TEXT NOT NULL,
          claimed_at TEXT NOT NULL,
          until TEXT NOT NULL
        );
        CREATE INDEX routine_claims_by_routine ON routine_claims(routine_id);
      `);
      // A database that syncs already sends what sync did not carry before: its conversations, messages and allowed settings.
      if (db.prepare(`SELECT 1 FROM sync_state WHERE id = 1`).get() === undefined) return;
      queueAll(db, 'conversations', []);
      queueAll(db, 'messages', ['seq']);
      const allowed = JSON.stringify(SYNCED_SETTINGS);
      db.prepare(`INSERT INTO synced_settings (id, value) SELECT key, value FROM settings WHERE key IN (SELECT value FROM json_each(?))`).run(allowed);
      queueAll(db, 'synced_settings', []);
    },
  },
];
