/** Schema 18: everything of the user's syncs (messages get ids, settings that sync, routine claims; docs/ARCHITECTURE.md "Sync"). */
import type { Migration } from './migration';

export const SCHEMA_18: Migration[] = [
  {
    version: 18,
    description: 'sync carries messages (each gets an id, as the action log has), the settings that make sense on every device, and routine claims',
    up(db) {
      db.exec(`
        -- A message's id travels between devices (its seq is this database's own order, as the action log's
        -- is). Messages written before now are x<seq>; the counter goes on after them.
        ALTER TABLE messages ADD COLUMN id TEXT;
        UPDATE messages SET id = 'x' || seq;
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
    },
  },
];
