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
import { formatHlc, HlcClock, newNodeId } from './hlc';
import { DEVICE_ID, HEADER_FILE } from './layout';
import { syncRound, type RoundOptions, type RoundResult } from './round';
import { hasDottedIds, rekeyOwnIds } from './rekey';
import { listSettled } from './kept';
import { lastRecord } from './names';
import { joinTarget, setupTarget } from './setup';
import { DEVICES_TABLE, READ_TABLE, readSyncState, StoreDevice, type StoreDeviceOptions, type SyncStateRow } from './store-device';
import { ACTION_ROWS_TABLE } from '../store/action-pages';
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
 * Why a database with data cannot join, and what to do: it synced before (an id with a device part, or a
 * trace of `tidy sync off`), so its plain ids (t12) may be rows the target already has, under the same
 * ids: re-keyed they would be doubled, kept they would overwrite the target's newer edits with stale ones.
 */
export const JOIN_SYNCED_BEFORE_HINT =
  'Its rows may already be on the target under the same ids. Join with a new, empty database (`tidy --db NEW.db sync setup …`), or set up a new, empty target from this device and join the others to it.';

/**
 * Whether this database synced before: an id with a device part anywhere, or devices it knew (kept,
 * forgotten, by `tidy sync off`). Such a database cannot join with its data (JOIN_SYNCED_BEFORE_HINT).
 */
export function syncedBefore(db: Db): boolean {
  return db.prepare(`SELECT 1 FROM sync_devices LIMIT 1`).get() !== undefined || hasDottedIds(db);
}

function refuseSyncedBefore(db: Db, where: string): void {
  if (userChanges(db) > 0 && syncedBefore(db)) fail(`This database synced before, so it cannot bring its data to ${where}.`, JOIN_SYNCED_BEFORE_HINT);
}

/** The longest device name (a received one longer is not taken). */
const DEVICE_NAME_MAX = 80;

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
 * A joining database may have data of its own: its ids take the device part (rekey.ts) and its rows are sent
 * as the first device's are; only one that synced before is refused (JOIN_SYNCED_BEFORE_HINT).
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
    refuseSyncedBefore(db, target.label);
  }
  const key = joined ? await joinTarget(target, passphrase) : await setupTarget(target, passphrase, options.kdf ?? DEFAULT_KDF);
  // The device id's first six digits are the device part of new ids: unlike every device's already on the target.
  const taken = new Set((await target.list('')).filter((e) => e.dir && DEVICE_ID.test(e.name)).map((e) => e.name.slice(0, 6)));
  let device = newNodeId(random);
  for (let i = 0; taken.has(device.slice(0, 6)) && i < 100; i++) device = newNodeId(random);
  const name = (options.name ?? hostname()).trim().slice(0, DEVICE_NAME_MAX) || 'this device';
  const queued = enableSync(db, { device, name, spec, first: !joined });
  return { joined, device, key, queued };
}

interface Enable {
  device: string;
  name: string;
  spec: TargetSpec;
  /** The device that sets the target up (false: it joins one another device set up). */
  first: boolean;
}

/**
 * Turns sync on in one transaction: this device's state, the capture triggers, and its rows queued. The
 * first device sends every row it has. A joining device with data first gives its own ids the device part
 * (rekey.ts: the first device's plain ids are the same), then sends its own rows the same way; rows every
 * database has (the Inbox, the Personal calendar) and its synced settings go without a stamp of their own,
 * so the target's values win over them.
 */
export function enableSync(db: Db, e: Enable): number {
  if (!DEVICE_ID.test(e.device) || !ID_PART.test(e.device.slice(0, 6))) throw new Error(`sync: bad device id ${e.device}`);
  const part = e.device.slice(0, 6);
  return db
    .transaction(() => {
      if (readSyncState(db)) fail('Sync is already set up on this device.', 'Run `tidy sync off` first to point it elsewhere.');
      const own = !e.first && userChanges(db) > 0;
      if (own) {
        refuseSyncedBefore(db, 'the target');
        // before the capture triggers exist: moving an id is not a change to send
        rekeyOwnIds(db, part);
      }
      const now = Date.now();
      cached(
        db,
        `INSERT INTO sync_state (id, device, id_part, name, clock, next_seq, target_kind, target_url, target_user, created_at) VALUES (1, ?, ?, ?, ?, 1, ?, ?, ?, ?)`,
      ).run(e.device, part, e.name, new HlcClock(e.device).current, e.spec.kind, e.spec.url, e.spec.user ?? null, new Date(now).toISOString());
      cached(db, `INSERT INTO sync_devices (device, name, last_seen) VALUES (?, ?, ?) ON CONFLICT(device) DO UPDATE SET name = excluded.name, last_seen = excluded.last_seen, forgotten = 0`).run(
        e.device,
        e.name,
        new Date(now).toISOString(),
      );
      syncCaptureTriggers(db);
      const outbox = cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`);
      outbox.run(now, DEVICES_TABLE, e.device, 'name', e.name);
      if (!e.first && !own) return 1;
      prepareFirstSync(db);
      let stamped = stampExisting(db, e.device, now);
      // a joiner's rows that are not its own (built in everywhere, settings): no stamp, so any device's value wins
      if (own) stamped -= db.prepare(`DELETE FROM sync_cells WHERE row NOT LIKE ?`).run(`%.${part}`).changes;
      // the rows travel as this device's first snapshot (one file of rows, not a message per cell)
      cached(db, `UPDATE sync_state SET snapshot_due = 1 WHERE id = 1`).run();
      return 1 + stamped;
    })
    .immediate();
}

/**
 * Stamps every cell of every row a database has when it sets a target up, in set-based SQL (one statement a
 * table, not one per row): cell k gets the clock's k-th tick from `now` (65,536 a millisecond), a row's
 * `_exists` first, rows in the order they were made. The clock is left at the last stamp. Returns the cells.
 */
export function stampExisting(db: Db, device: string, now: number): number {
  let k = 0;
  for (const table of SYNCED_TABLES) {
    const cols = syncedColumns(db, table);
    if (cols.length === 0) continue;
    const names = [EXISTS_COLUMN, ...cols].map((col, i) => `SELECT ${i} AS k, '${col}' AS col`).join(' UNION ALL ');
    const width = cols.length + 1;
    // tick n = base + (row number - 1) * width + column index; millis = now + n / 65536, counter = n % 65536
    const n = `(${k} + (x.rn - 1) * ${width} + c.k)`;
    const ms = `(${Math.floor(now)} + ${n} / 65536)`;
    const hlc = `strftime('%Y-%m-%dT%H:%M:%S', ${ms} / 1000, 'unixepoch') || printf('.%03dZ-%04X-', ${ms} % 1000, ${n} % 65536) || '${device}'`;
    k += db
      .prepare(
        `INSERT INTO sync_cells (tbl, row, col, hlc) SELECT '${table}', x.id, c.col, ${hlc} FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY rowid) AS rn FROM ${table}) x CROSS JOIN (${names}) c WHERE true
         ON CONFLICT(tbl, row, col) DO UPDATE SET hlc = excluded.hlc`,
      )
      .run().changes;
  }
  if (k > 0) {
    const last = k - 1;
    cached(db, `UPDATE sync_state SET clock = ? WHERE id = 1`).run(formatHlc({ millis: Math.floor(now) + Math.floor(last / 65536), counter: last % 65536, node: device }));
  }
  return k;
}

/**
 * Turns sync off: this device forgets its target, clocks, outbox and cursors; the data stays as it is. The
 * devices it knew stay listed as forgotten: their names for the sync history, and the trace that this
 * database synced (it cannot join a target with its data again: syncedBefore).
 */
export function disableSync(db: Db): SyncStateRow | null {
  return db
    .transaction(() => {
      const state = readSyncState(db);
      if (!state) return null;
      db.exec(`DELETE FROM sync_state; DELETE FROM sync_cells; DELETE FROM sync_outbox; DELETE FROM sync_cursors; UPDATE sync_devices SET forgotten = 1; DELETE FROM sync_pending; DELETE FROM sync_read;`);
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
  /** Received changes waiting, all reasons together (`waiting` says which). */
  pending: number;
  waiting: Waiting;
  /** Names two devices gave two rows, settled this round, one line each ("Two devices made a project “Errands”; Laptop's is now “Errands (Laptop)”"). */
  renamed: string[];
}

/** Received changes waiting, by why: made by a newer Tidy (a table or column this one lacks), for a row not arrived yet, or not valid here. */
export interface Waiting {
  newer: number;
  rows: number;
  refused: number;
}

export function waitingCounts(db: Db): Waiting {
  const out: Waiting = { newer: 0, rows: 0, refused: 0 };
  for (const r of cached(db, `SELECT reason, COUNT(*) AS n FROM sync_pending GROUP BY reason`).all() as { reason: string; n: number }[]) {
    if (r.reason === 'unknown') out.newer += r.n;
    else if (r.reason === 'waiting' || r.reason === 'no row') out.rows += r.n;
    else out.refused += r.n;
  }
  return out;
}

/** What waits, in words: "3 received changes waiting: 2 made by a newer Tidy (update Tidy on this device), 1 for a row not arrived yet"; null when nothing does. */
export function waitingText(w: Waiting): string | null {
  const total = w.newer + w.rows + w.refused;
  if (total === 0) return null;
  const why = [
    w.newer ? `${w.newer.toLocaleString('en-US')} made by a newer Tidy (update Tidy on this device)` : '',
    w.rows ? `${w.rows.toLocaleString('en-US')} for a row not arrived yet` : '',
    w.refused ? `${w.refused.toLocaleString('en-US')} not valid here (kept, not applied)` : '',
  ].filter(Boolean);
  return `${total.toLocaleString('en-US')} received change${total === 1 ? '' : 's'} waiting: ${why.join(', ')}`;
}

/** One round for this database: send, receive, merge; what changed. Records when it last synced, or the error. */
export async function runSync(db: Db, key: Uint8Array, target: SyncTarget, options: RoundOptions & StoreDeviceOptions = {}): Promise<SyncSummary> {
  const device = new StoreDevice(db, key, { now: options.now, tuning: options.tuning });
  try {
    const before = lastRecord(db);
    device.retryWaiting();
    device.queueUnsentPages();
    // a name another device had first is given up before sending, so the new one goes out in this round
    const self = settleDeviceName(db, options.now?.() ?? Date.now());
    const result = await syncRound(device, target, options);
    const changed: Record<string, number> = {};
    const rows: Record<string, Set<string>> = {};
    for (const a of result.applied) {
      const t = a.message.table;
      if (t === DEVICES_TABLE || t === READ_TABLE || t === ACTION_ROWS_TABLE) continue;
      changed[t] = (changed[t] ?? 0) + 1;
      (rows[t] ??= new Set()).add(a.message.row);
    }
    const waiting = waitingCounts(db);
    const renamed = listSettled(db, { after: before, limit: 1000 })
      .reverse()
      .map((r) => r.text);
    if (self) renamed.push(`Another device is called “${self.from}” too; this device is now “${self.to}”`);
    cached(db, `UPDATE sync_state SET last_synced_at = ?, last_error = ? WHERE id = 1`).run(new Date().toISOString(), result.problems[0] ?? null);
    const { applied: _applied, ...rest } = result;
    return { ...rest, changed, rows: Object.fromEntries(Object.entries(rows).map(([t, s]) => [t, s.size])), pending: waiting.newer + waiting.rows + waiting.refused, waiting, renamed };
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    if (readSyncState(db)) cached(db, `UPDATE sync_state SET last_error = ? WHERE id = 1`).run(message.slice(0, 500));
    throw e;
  }
}

const nameCell = (db: Db, device: string): string | null =>
  (cached(db, `SELECT hlc FROM sync_cells WHERE tbl = '${DEVICES_TABLE}' AND row = ? AND col = 'name'`).get(device) as { hlc: string } | undefined)?.hlc ?? null;

/** Whether another device known here (not forgotten) has this device's name, in any case, and had it first. */
function nameTakenFirst(db: Db): boolean {
  const s = readSyncState(db);
  if (!s) return false;
  const mine = nameCell(db, s.device);
  if (!mine) return false; // its name not sent yet: nothing to compare with
  const key = s.name.trim().toLowerCase();
  const others = cached(db, `SELECT device, name FROM sync_devices WHERE device != ? AND forgotten = 0 AND name IS NOT NULL`).all(s.device) as { device: string; name: string }[];
  return others.some((o) => {
    if (o.name.trim().toLowerCase() !== key) return false;
    const theirs = nameCell(db, o.device);
    return theirs !== null && theirs < mine;
  });
}

/**
 * Device names unique within a target: two machines both left at the host name "vm" would read alike in
 * `tidy sync devices`, in a task's history and in the names sync gives ("Errands (vm)"). A device learns the
 * others' names by syncing, so this is settled as a round starts: when another device known here has this
 * device's name (in any case) and had it first (the earlier stamp of its name), this device takes the first
 * free "vm 2", "vm 3" … and sends it like any change. Two devices that both yield to a third and take the
 * same name settle it the same way a round later. Until then a row's name suffix carries the device's id
 * (`deviceLabel`: "Errands (vm 3f9a0c)"). What changed, or null.
 */
export function settleDeviceName(db: Db, now: number): { from: string; to: string } | null {
  if (!nameTakenFirst(db)) return null; // the usual case: read only, no write lock taken
  return db
    .transaction(() => {
      const s = readSyncState(db);
      if (!s || !nameTakenFirst(db)) return null;
      const taken = new Set((cached(db, `SELECT name FROM sync_devices WHERE name IS NOT NULL`).all() as { name: string }[]).map((r) => r.name.trim().toLowerCase()));
      // "vm 2" that meets another "vm 2" (both yielded to "vm") goes on to "vm 3"; "Pixel 7" becomes "Pixel 7 2"
      const numbered = / (\d+)$/.exec(s.name.trim());
      const stem = numbered ? s.name.trim().slice(0, -numbered[0].length) : '';
      const base = numbered && taken.has(stem.toLowerCase()) ? stem : s.name.trim();
      const numberedName = (n: number): string => `${base.slice(0, DEVICE_NAME_MAX - ` ${n}`.length).trimEnd()} ${n}`;
      let n = 2;
      while (taken.has(numberedName(n).toLowerCase())) n++;
      const name = numberedName(n);
      cached(db, `UPDATE sync_state SET name = ? WHERE id = 1`).run(name);
      cached(db, `UPDATE sync_devices SET name = ? WHERE device = ?`).run(name, s.device);
      cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`).run(now, DEVICES_TABLE, s.device, 'name', name);
      return { from: s.name, to: name };
    })
    .immediate();
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
  /** Received changes waiting to be applied (`waiting` says why). */
  pending?: number;
  waiting?: Waiting;
  /** The latest names sync settled, newest first, one line each. */
  renamed?: string[];
}

export function syncStatus(db: Db): SyncStatus {
  const s = readSyncState(db);
  if (!s) return { on: false };
  const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
  const waiting = waitingCounts(db);
  return {
    on: true,
    device: s.device,
    name: s.name,
    target: `${s.target_kind} ${s.target_url}${s.target_user ? ` (user ${s.target_user})` : ''}`,
    lastSyncedAt: s.last_synced_at,
    lastError: s.last_error,
    outbox: count(`SELECT COUNT(*) AS n FROM sync_outbox`),
    pending: waiting.newer + waiting.rows + waiting.refused,
    waiting,
    renamed: listSettled(db, { limit: 5 }).map((r) => r.text),
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
