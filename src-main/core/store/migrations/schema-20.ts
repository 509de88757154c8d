/** Schema 20: sync snapshots and pruning (src-main/core/sync/snapshot.ts, docs/ARCHITECTURE.md "Sync"). */
import type { Migration } from './migration';

export const SCHEMA_20: Migration[] = [
  {
    version: 20,
    description: "sync snapshots and pruning: this device's newest snapshot and whether one is due, and how far each device has read each other's batches",
    up(db) {
      db.exec(`
        -- The sequence number of this device's newest snapshot on the target (NULL: none yet), and 1 while
        -- one is due (a device that set a target up with data sends a snapshot as its first transfer).
        ALTER TABLE sync_state ADD COLUMN snapshot_seq INTEGER;
        ALTER TABLE sync_state ADD COLUMN snapshot_due INTEGER NOT NULL DEFAULT 0;
        -- How far each device (reader) has read each other device's (writer's) batches, as it said in its
        -- own batches: a device prunes its old batches once every known device has read past them.
        CREATE TABLE sync_read (
          reader TEXT NOT NULL,
          writer TEXT NOT NULL,
          seq INTEGER NOT NULL,
          PRIMARY KEY (reader, writer)
        ) WITHOUT ROWID;
      `);
    },
  },
];
