/** Schema 16: sync between devices (src-main/core/sync/, docs/ARCHITECTURE.md "Sync"). */
import type { Migration } from './migration';

export const SCHEMA_16: Migration[] = [
  {
    version: 16,
    description: 'sync between devices: this device and its target, the clock of every synced cell, the outbox, cursors, devices, and messages kept for later',
    up(db) {
      db.exec(`
        -- One row while sync is on (none while it is off): this device, its clock, its next batch and its
        -- target. The derived key and a WebDAV password are in the OS keychain, never here. \`applying\` is
        -- 1 only inside the transaction that applies received messages, so the capture triggers skip them.
        CREATE TABLE sync_state (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          device TEXT NOT NULL,
          id_part TEXT NOT NULL,
          name TEXT NOT NULL,
          clock TEXT NOT NULL,
          next_seq INTEGER NOT NULL DEFAULT 1,
          target_kind TEXT NOT NULL CHECK (target_kind IN ('folder', 'webdav')),
          target_url TEXT NOT NULL,
          target_user TEXT,
          applying INTEGER NOT NULL DEFAULT 0,
          last_synced_at TEXT,
          last_error TEXT,
          created_at TEXT NOT NULL
        );
        -- The clock stamp of every synced cell (values stay in the tables).
        CREATE TABLE sync_cells (
          tbl TEXT NOT NULL,
          row TEXT NOT NULL,
          col TEXT NOT NULL,
          hlc TEXT NOT NULL,
          PRIMARY KEY (tbl, row, col)
        ) WITHOUT ROWID;
        -- Local changes not yet in a batch on the target: captured by triggers (at: wall time in ms),
        -- stamped (hlc) before they are sent or anything received is merged.
        CREATE TABLE sync_outbox (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          at INTEGER NOT NULL,
          hlc TEXT,
          tbl TEXT NOT NULL,
          row TEXT NOT NULL,
          col TEXT NOT NULL,
          value
        );
        CREATE INDEX sync_outbox_by_hlc ON sync_outbox(hlc);
        -- Per other device: the last of its batches merged here.
        CREATE TABLE sync_cursors (device TEXT PRIMARY KEY, seq INTEGER NOT NULL);
        CREATE TABLE sync_devices (device TEXT PRIMARY KEY, name TEXT, last_seen TEXT, forgotten INTEGER NOT NULL DEFAULT 0);
        -- Received messages that won but cannot be written yet: a table or column this schema does not have,
        -- or a row that cannot be written yet (its parent has not arrived). Applied when they can be.
        CREATE TABLE sync_pending (
          tbl TEXT NOT NULL,
          row TEXT NOT NULL,
          col TEXT NOT NULL,
          hlc TEXT NOT NULL,
          value,
          reason TEXT NOT NULL,
          PRIMARY KEY (tbl, row, col)
        ) WITHOUT ROWID;
      `);
    },
  },
];
