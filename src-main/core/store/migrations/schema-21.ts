/** Schema 21: the row images of a large action kept beside it (src-main/core/actions/changes.ts, "spill"). */
import type { Migration } from './migration';

export const SCHEMA_21: Migration[] = [
  {
    version: 21,
    description: 'large actions (an import of 100,000 events) keep their row images in rows of their own, not in one JSON value',
    up(db) {
      db.exec(`
        -- The before/after images of an action's changes beyond the first ones its \`changes\` holds, one row
        -- each. Their order among the changes: n < 0 before those in \`changes\`, n >= 0 after them. Kept on
        -- this device only (not synced, not exported): the rows themselves travel as rows.
        CREATE TABLE action_rows (
          action_id TEXT NOT NULL,
          n INTEGER NOT NULL,
          tbl TEXT NOT NULL,
          row_id TEXT NOT NULL,
          before TEXT,
          after TEXT,
          PRIMARY KEY (action_id, n)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX action_rows_by_row ON action_rows (action_id, tbl, row_id);
        -- How many of the action's changes are in action_rows (0: all of them are in \`changes\`). Synced with
        -- the action, so a device without those rows knows it cannot undo it.
        ALTER TABLE actions ADD COLUMN spilled INTEGER NOT NULL DEFAULT 0;
      `);
    },
  },
];
