/** Schema 17: sync conflicts said (src-main/core/sync/conflicts.ts, docs/ARCHITECTURE.md "Sync"). */
import type { Migration } from './migration';

export const SCHEMA_17: Migration[] = [
  {
    version: 17,
    description: 'sync conflicts: the value a concurrent edit on another device overwrote, with its clock and device, for the history and Restore',
    up(db) {
      db.exec(`
        -- One row per value lost to a concurrent edit of the same cell on another device (neither device had
        -- seen the other's change): the loser's value, clock stamp and device, and the winner's. \`merged\`:
        -- the two texts were kept as one (a description). Recorded by the device whose edit won, and sent to
        -- the others, so every device shows it. Kept when sync is turned off (it is the task's history).
        CREATE TABLE sync_conflicts (
          id INTEGER PRIMARY KEY AUTOINCREMENT,
          tbl TEXT NOT NULL,
          row TEXT NOT NULL,
          col TEXT NOT NULL,
          lost_value,
          lost_hlc TEXT NOT NULL UNIQUE,
          lost_device TEXT NOT NULL,
          won_hlc TEXT NOT NULL,
          won_device TEXT NOT NULL,
          merged INTEGER NOT NULL DEFAULT 0,
          recorded_at TEXT NOT NULL
        );
        CREATE INDEX sync_conflicts_row ON sync_conflicts (tbl, row);
      `);
    },
  },
];
