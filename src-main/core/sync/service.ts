// Sync for a Tidy database: set up (the first device) or join (every other) a target, one round, status,
// devices, off. The CLI (src-main/cli/commands/sync.ts) is a thin shell over these; the key comes in as
// bytes (the caller keeps it in the OS keychain, never in the database).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { fail } from '../fail';
import type { Db } from '../store/db';
import { ID_PART } from '../store/ids';
import { TRACKED_TABLES } from '../store/entities';
import { cached } from '../store/statements';
import { dropCaptureTriggers, EXISTS_COLUMN, prepareFirstSync, SYNCED_TABLES, syncCaptureTriggers, syncedColumns } from '../store/sync-capture';
import { DEFAULT_KDF, parseHeader, type KdfParams } from './crypto';
import { HlcClock, newNodeId } from './hlc';
import { DEVICE_ID, HEADER_FILE } from './layout';
import { syncRound, type RoundOptions, type RoundResult } from './round';
import { joinTarget, setupTarget } from './setup';
import { DEVICES_TABLE, readSyncState, StoreDevice, type SyncStateRow } from './store-device';
import { FolderTarget } from './targets/folder';
import type { SyncTarget } from './targets/target';
import { WebDavTarget } from './targets/webdav';

export interface TargetSpec {
  kind: 'folder' | 'webdav';
  /** The folder's path or the WebDAV URL. */
  url: string;
  user?: string | null;
  password?: string;
}

export function openTarget(spec: TargetSpec): SyncTarget {
  return spec.kind === 'folder' ? new FolderTarget(spec.url) : new WebDavTarget(spec.url, spec.user ? { username: spec.user, password: spec.password ?? '' } : {});
}

export const targetOf = (state: SyncStateRow): TargetSpec => ({ kind: state.target_kind, url: state.target_url, user: state.target_user });

/** Rows of its own a joining database holds (built-in ones aside): its logged changes and the rows of the registry's tables. */
function userChanges(db: Db): number {
  let n = (db.prepare(`SELECT COUNT(*) AS n FROM actions`).get() as { n: number }).n;
  for (const t of [...TRACKED_TABLES, 'conversations']) {
    const own = t === 'projects' ? ' WHERE builtin = 0' : t === 'calendars' ? ` WHERE kind != 'local'` : '';
    n += (db.prepare(`SELECT COUNT(*) AS n FROM ${t}${own}`).get() as { n: number }).n;
  }
  return n;
}

/**
 * Why a non-empty database cannot join, and what to do: its ids (t12) were handed out by this database
 * alone and would collide with the first device's, and re-keying them everywhere they are referred to was
 * judged too risky; `tidy import tidy` keeps ids, so it does not help either.
 */
export const JOIN_NON_EMPTY_HINT =
  'Only the device that sets a target up brings its data. Join with a new, empty database (`tidy --db NEW.db sync setup …`), or set up a new target from this device and join it from the others with empty databases.';

export interface SetupOptions {
  /** This device's name, as other devices list it (default: the host name). */
  name?: string;
  kdf?: KdfParams;
  random?: (n: number) => Uint8Array;
}

export interface SetupResult {
  /** Joined a target another device had set up (false: this device set it up). */
  joined: boolean;
  device: string;
  key: Uint8Array;
  /** Changes queued for the first round (every row of a database that sets a target up). */
  queued: number;
}

/**
 * Sets sync up on this database: a target without a header is set up with the passphrase (this device
 * first); one with a header is joined (the passphrase must be its own; a wrong one is refused in one line).
 * A joining database must hold no changes of its own yet (JOIN_NON_EMPTY_HINT says how to bring them).
 */
export async function setupSync(db: Db, spec: TargetSpec, passphrase: string, options: SetupOptions = {}): Promise<SetupResult> {
  const current = readSyncState(db);
  if (current) fail(`Sync is already set up on this device (${current.target_kind} ${current.target_url}).`, 'Run `tidy sync off` first to point it elsewhere.');
  if (passphrase.length === 0) fail('The passphrase is empty.', 'Give the passphrase at the prompt or on stdin.');
  const target = openTarget(spec);
  const random = options.random ?? ((n: number) => new Uint8Array(randomBytes(n)));
  const header = await target.read(HEADER_FILE, 64 * 1024);
  const joined = header !== null;
  if (joined) {
    parseHeader(new TextDecoder().decode(header));
    const n = userChanges(db);
    if (n > 0) fail(`This database already has data of its own; a device joins ${target.label} with an empty database.`, JOIN_NON_EMPTY_HINT);
  }
  const key = joined ? await joinTarget(target, passphrase) : await setupTarget(target, passphrase, options.kdf ?? DEFAULT_KDF);
  // The device id's first six digits are the device part of new ids: unlike every device's already on the target.
  const taken = new Set((await target.list('')).filter((e) => e.dir && DEVICE_ID.test(e.name)).map((e) => e.name.slice(0, 6)));
  let device = newNodeId(random);
  for (let i = 0; taken.has(device.slice(0, 6)) && i < 100; i++) device = newNodeId(random);
  const name = (options.name ?? hostname()).slice(0, 80) || 'this device';
  const queued = enableSync(db, { device, name, spec, first: !joined });
  return { joined, device, key, queued };
}

interface Enable {
  device: string;
  name: string;
  spec: TargetSpec;
  /** The device that sets the target up sends every row it has. */
  first: boolean;
}

/** Turns sync on in one transaction: this device's state, the capture triggers, and (first device) every row queued. */
export function enableSync(db: Db, e: Enable): number {
  if (!DEVICE_ID.test(e.device) || !ID_PART.test(e.device.slice(0, 6))) throw new Error(`sync: bad device id ${e.device}`);
  return db
    .transaction(() => {
      if (readSyncState(db)) fail('Sync is already set up on this device.', 'Run `tidy sync off` first to point it elsewhere.');
      if (!e.first && userChanges(db) > 0) fail('This database has changes of its own; a device joins with an empty database.', JOIN_NON_EMPTY_HINT);
      const now = Date.now();
      cached(
        db,
        `INSERT INTO sync_state (id, device, id_part, name, clock, next_seq, target_kind, target_url, target_user, created_at) VALUES (1, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
      ).run(e.device, e.device.slice(0, 6), e.name, new HlcClock(e.device).current, e.spec.kind, e.spec.url, e.spec.user ?? null, new Date(now).toISOString());
      cached(db, `INSERT INTO sync_devices (device, name, last_seen) VALUES (?, ?, ?)`).run(e.device, e.name, new Date(now).toISOString());
      syncCaptureTriggers(db);
      const outbox = cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`);
      outbox.run(now, DEVICES_TABLE, e.device, 'name', e.name);
      let queued = 1;
      if (e.first) {
        prepareFirstSync(db);
        for (const table of SYNCED_TABLES) {
          const cols = syncedColumns(db, table);
          if (cols.length === 0) continue;
          // every column of every row, a row's columns together, rows in the order they were made
          const pick = `CASE c.k ${cols.map((col, i) => `WHEN ${i + 1} THEN x.${col}`).join(' ')} ELSE 1 END`;
          const names = [EXISTS_COLUMN, ...cols].map((col, i) => `SELECT ${i} AS k, '${col}' AS col`).join(' UNION ALL ');
          queued += db
            .prepare(`INSERT INTO sync_outbox (at, tbl, row, col, value) SELECT ?, '${table}', x.id, c.col, ${pick} FROM ${table} x CROSS JOIN (${names}) c ORDER BY x.rowid, c.k`)
            .run(now).changes;
        }
      }
      return queued;
    })
    .immediate();
}

/** Turns sync off: this device forgets its target, clocks, outbox and cursors; the data stays as it is. */
export function disableSync(db: Db): SyncStateRow | null {
  return db
    .transaction(() => {
      const state = readSyncState(db);
      if (!state) return null;
      db.exec(`DELETE FROM sync_state; DELETE FROM sync_cells; DELETE FROM sync_outbox; DELETE FROM sync_cursors; DELETE FROM sync_devices; DELETE FROM sync_pending;`);
      dropCaptureTriggers(db);
      return state;
    })
    .immediate();
}

export interface SyncSummary extends Omit<RoundResult, 'applied'> {
  /** Changes received that changed something here, by table ("tasks": 3). */
  changed: Record<string, number>;
  /** Rows received and written, by table. */
  rows: Record<string, number>;
  /** Received changes waiting (a newer Tidy's column, a row whose parent has not arrived). */
  pending: number;
}

/** One round for this database: send, receive, merge; what changed. Records when it last synced, or the error. */
export async function runSync(db: Db, key: Uint8Array, target: SyncTarget, options: RoundOptions & { now?: () => number } = {}): Promise<SyncSummary> {
  const device = new StoreDevice(db, key, { now: options.now });
  try {
    const result = await syncRound(device, target, options);
    const changed: Record<string, number> = {};
    const rows: Record<string, Set<string>> = {};
    for (const a of result.applied) {
      const t = a.message.table;
      if (t === DEVICES_TABLE) continue;
      changed[t] = (changed[t] ?? 0) + 1;
      (rows[t] ??= new Set()).add(a.message.row);
    }
    const pending = (db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get() as { n: number }).n;
    cached(db, `UPDATE sync_state SET last_synced_at = ?, last_error = ? WHERE id = 1`).run(new Date().toISOString(), result.problems[0] ?? null);
    const { applied: _applied, ...rest } = result;
    return { ...rest, changed, rows: Object.fromEntries(Object.entries(rows).map(([t, s]) => [t, s.size])), pending };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (readSyncState(db)) cached(db, `UPDATE sync_state SET last_error = ? WHERE id = 1`).run(message.slice(0, 500));
    throw e;
  }
}

export interface SyncStatus {
  on: boolean;
  device?: string;
  name?: string;
  target?: string;
  lastSyncedAt?: string | null;
  lastError?: string | null;
  /** Local changes not yet sent. */
  outbox?: number;
  /** Received changes waiting to be applied. */
  pending?: number;
}

export function syncStatus(db: Db): SyncStatus {
  const s = readSyncState(db);
  if (!s) return { on: false };
  const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
  return {
    on: true,
    device: s.device,
    name: s.name,
    target: `${s.target_kind} ${s.target_url}${s.target_user ? ` (user ${s.target_user})` : ''}`,
    lastSyncedAt: s.last_synced_at,
    lastError: s.last_error,
    outbox: count(`SELECT COUNT(*) AS n FROM sync_outbox`),
    pending: count(`SELECT COUNT(*) AS n FROM sync_pending`),
  };
}

export interface DeviceInfo {
  device: string;
  name: string | null;
  lastSeen: string | null;
  self: boolean;
  /** Batches of it merged here. */
  cursor: number;
}

export function listDevices(db: Db): DeviceInfo[] {
  const s = readSyncState(db);
  if (!s) return [];
  return (
    db
      .prepare(`SELECT d.device, d.name, d.last_seen, COALESCE(c.seq, 0) AS cursor FROM sync_devices d LEFT JOIN sync_cursors c ON c.device = d.device WHERE d.forgotten = 0 ORDER BY d.last_seen DESC`)
      .all() as { device: string; name: string | null; last_seen: string | null; cursor: number }[]
  ).map((r) => ({ device: r.device, name: r.name, lastSeen: r.last_seen, self: r.device === s.device, cursor: r.cursor }));
}

/** Hides a device from `tidy sync devices` (its changes stay; if it syncs again it is listed again). */
export function forgetDevice(db: Db, device: string): boolean {
  const s = readSyncState(db);
  if (s?.device === device) fail('That is this device.', 'To stop syncing this device, run `tidy sync off`.');
  return db.prepare(`UPDATE sync_devices SET forgotten = 1 WHERE device = ? AND forgotten = 0`).run(device).changes > 0;
}

/** The keychain account this device's key is kept under. */
export const keyAccount = (device: string): string => `sync-key:${device}`;
export const passwordAccount = (device: string): string => `sync-webdav:${device}`;
