/** Schema 22: a large action's changes travel to the other devices in a compact form (src-main/core/sync/action-rows.ts). */
import type { Migration } from './migration';

export const SCHEMA_22: Migration[] = [
  {
    version: 22,
    description: "a large action's row images are synced in a compact form, so it can be undone on every device",
    up(db) {
      db.exec(`
        -- 0: the change was received from the device that made it without its after image (it is the row as
        -- that device's action left it, which travels as the row itself): the row as it is here stands in.
        ALTER TABLE action_rows ADD COLUMN after_kept INTEGER NOT NULL DEFAULT 1;
        -- The large actions, found without reading the whole log: at each round, one made here whose changes
        -- beside it were never sent (made by a Tidy before this one while sync was on) is sent then.
        CREATE INDEX actions_spilled ON actions (seq) WHERE spilled > 0;
      `);
    },
  },
];
