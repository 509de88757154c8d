// A sync device over a Tidy database (migration 16): the outbox the capture triggers fill
// (store/sync-capture.ts), stamped from the device clock kept in sync_state; the cell clocks in
// sync_cells; cursors in sync_cursors. Received batches are applied one IMMEDIATE transaction each: merge
// against sync_cells, write the winning values into the registry's tables (and the action log), record the
// cursor. A batch is data: table and column names are looked up in the registry and the database's own
// schema, never taken from it into SQL; values are type-checked against the column; what cannot be written
// yet (a column this schema does not have, a row whose parent has not arrived) waits in sync_pending.
import { fail } from '../fail';
import type { Db } from '../store/db';
import { TRACKED_TABLES } from '../store/entities';
import { cached } from '../store/statements';
import { EXISTS_COLUMN, SYNCED_TABLES, syncedColumns } from '../store/sync-capture';
import { HlcClock, parseHlc } from './hlc';
import { DEVICE_ID } from './layout';
import { cellKey, type Applied, type Message, type Value } from './messages';
import type { RoundDevice, SnapshotSupport } from './round';
import { floorStamp, packStamps, snapshotMessages, type Snapshot, type SnapshotTable } from './snapshot';
import { noteConflict } from './conflicts';
import { keepRow } from './kept';
import { NAME_RULES, renamedHere, renamesStamped, settleNameClash, type NamedWrite } from './names';
import { ACTION_ROWS_TABLE } from '../store/action-pages';
import { allActionPages, applyActionPage, queueUnsentPages } from './action-rows';

export interface SyncStateRow {
  device: string;
  id_part: string;
  name: string;
  clock: string;
  next_seq: number;
  target_kind: 'folder' | 'webdav';
  target_url: string;
  target_user: string | null;
  last_synced_at: string | null;
  last_error: string | null;
  created_at: string;
  snapshot_seq: number | null;
  snapshot_due: number;
}

export function readSyncState(db: Db): SyncStateRow | null {
  const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_state'`).get();
  if (!has) return null;
  return (db.prepare(`SELECT * FROM sync_state WHERE id = 1`).get() as SyncStateRow | undefined) ?? null;
}

/** The pseudo-table a device's name travels in (one message per device, row = its id, column `name`). */
export const DEVICES_TABLE = 'sync_devices';
/** The pseudo-table a device says how far it has read the others in (row = the reader, column `d_<writer>`, value = the batch number). */
export const READ_TABLE = 'sync_read';
const readColumn = (writer: string): string => `d_${writer}`;
const MAX_NAME = 80;

type Affinity = 'text' | 'integer' | 'real' | 'any';
interface ColumnInfo {
  affinity: Affinity;
}

const schemas = new WeakMap<Db, { version: number; schema: Map<string, Map<string, ColumnInfo>> }>();

/** Synced tables and their columns as this database has them: the only identifiers that ever reach SQL. Read again when the schema changes. */
function schemaOf(db: Db): Map<string, Map<string, ColumnInfo>> {
  const version = db.pragma('schema_version', { simple: true }) as number;
  const hit = schemas.get(db);
  if (hit?.version === version) return hit.schema;
  const schema = readSchemaOf(db);
  schemas.set(db, { version, schema });
  return schema;
}

function readSchemaOf(db: Db): Map<string, Map<string, ColumnInfo>> {
  const out = new Map<string, Map<string, ColumnInfo>>();
  for (const table of SYNCED_TABLES) {
    const info = db.pragma(`table_info(${table})`) as { name: string; type: string }[];
    if (info.length === 0) continue;
    const cols = new Map<string, ColumnInfo>();
    const synced = new Set(syncedColumns(db, table));
    for (const c of info) {
      if (!synced.has(c.name)) continue;
      const t = c.type.toUpperCase();
      cols.set(c.name, { affinity: t.includes('INT') ? 'integer' : t.includes('TEXT') || t.includes('CHAR') ? 'text' : t.includes('REAL') ? 'real' : 'any' });
    }
    cols.set(EXISTS_COLUMN, { affinity: 'integer' });
    out.set(table, cols);
  }
  return out;
}

function typeOk(info: ColumnInfo, column: string, value: Value): boolean {
  if (value === null) return column !== EXISTS_COLUMN;
  if (typeof value === 'boolean') return false;
  if (column === EXISTS_COLUMN) return value === 0 || value === 1;
  switch (info.affinity) {
    case 'integer':
      return typeof value === 'number' && Number.isSafeInteger(value);
    case 'real':
      return typeof value === 'number';
    case 'text':
      return typeof value === 'string';
    default:
      return true;
  }
}

/** The action log's own columns are written once (with the row); of later changes only `undone_at` applies. */
const ACTION_MUTABLE = new Set(['undone_at', EXISTS_COLUMN]);

/** A received action's before/after images, checked: undo turns them into SQL, so every table and column must be the registry's. */
function actionChangesOk(text: unknown, schema: Map<string, Map<string, ColumnInfo>>): boolean {
  if (typeof text !== 'string') return false;
  let changes: unknown;
  try {
    changes = JSON.parse(text);
  } catch {
    return false;
  }
  if (!Array.isArray(changes)) return false;
  const tracked = new Set<string>(TRACKED_TABLES);
  for (const c of changes as unknown[]) {
    if (c === null || typeof c !== 'object') return false;
    const { table, id, before, after } = c as Record<string, unknown>;
    if (typeof table !== 'string' || !tracked.has(table) || typeof id !== 'string') return false;
    const cols = schema.get(table);
    if (!cols) return false;
    for (const image of [before, after]) {
      if (image === null) continue;
      if (typeof image !== 'object' || Array.isArray(image)) return false;
      for (const [k, v] of Object.entries(image as Record<string, unknown>)) {
        if (k !== 'id' && (!cols.has(k) || k === EXISTS_COLUMN)) return false;
        if (!(v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)))) return false;
      }
    }
  }
  return true;
}

const jsonOk = (v: unknown, nullable: boolean): boolean => {
  if (v === null) return nullable;
  if (typeof v !== 'string') return false;
  try {
    JSON.parse(v);
    return true;
  } catch {
    return false;
  }
};

/** Stamps the captured, unstamped local changes (oldest first) and records their stamps as the cells' clocks. Inside a transaction. */
export function stampOutbox(db: Db, clock: HlcClock): number {
  renamesStamped(db);
  const first = cached(db, `SELECT 1 FROM sync_outbox WHERE hlc IS NULL LIMIT 1`).get();
  if (first === undefined) return 0;
  // Of several unsent changes of one cell only the last needs to travel.
  cached(db, `DELETE FROM sync_outbox WHERE hlc IS NULL AND seq NOT IN (SELECT MAX(seq) FROM sync_outbox WHERE hlc IS NULL GROUP BY tbl, row, col)`).run();
  const rows = cached(db, `SELECT seq, at FROM sync_outbox WHERE hlc IS NULL ORDER BY seq`).raw().all() as [number, number][];
  // stamps in order, written in one statement each (a first sync stamps hundreds of thousands)
  const stamps = rows.map(([seq, at]) => [seq, clock.stampAt(at)]);
  const json = JSON.stringify(stamps);
  cached(db, `UPDATE sync_outbox SET hlc = j.h FROM (SELECT value ->> 0 AS s, value ->> 1 AS h FROM json_each(?)) AS j WHERE sync_outbox.seq = j.s`).run(json);
  cached(
    db,
    `INSERT INTO sync_cells (tbl, row, col, hlc) SELECT o.tbl, o.row, o.col, o.hlc FROM json_each(?) j JOIN sync_outbox o ON o.seq = j.value ->> 0 WHERE true
     ON CONFLICT(tbl, row, col) DO UPDATE SET hlc = excluded.hlc WHERE excluded.hlc > sync_cells.hlc`,
  ).run(json);
  // a local change of a cell overrides what was waiting for it
  if (cached(db, `SELECT 1 FROM sync_pending LIMIT 1`).get() !== undefined)
    cached(db, `DELETE FROM sync_pending WHERE EXISTS (SELECT 1 FROM json_each(?) j JOIN sync_outbox o ON o.seq = j.value ->> 0 WHERE o.tbl = sync_pending.tbl AND o.row = sync_pending.row AND o.col = sync_pending.col)`).run(json);
  return rows.length;
}

/** The characters of values one batch holds at most (besides BATCH_MESSAGES): its file stays a few MB, far below what a reader takes. */
export const BATCH_CHARS = 16_000_000;

const toValue = (v: unknown): Value => {
  if (v === null || typeof v === 'string' || typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  throw new Error('sync: a synced column holds a value of no synced type');
};

export interface StoreDeviceOptions {
  /** The wall clock, injected in tests. */
  now?: () => number;
  tuning?: Partial<SyncTuning>;
}

export class StoreDevice implements RoundDevice {
  readonly id: string;
  private readonly now: () => number;

  constructor(
    private readonly db: Db,
    readonly key: Uint8Array,
    private readonly options: StoreDeviceOptions = {},
  ) {
    const state = readSyncState(db);
    if (!state) fail('Sync is not set up on this device.', 'Run `tidy sync setup --folder PATH` or `tidy sync setup --webdav URL` first.');
    this.id = state.device;
    this.now = options.now ?? Date.now;
  }

  private clock(): HlcClock {
    const { clock } = cached(this.db, `SELECT clock FROM sync_state WHERE id = 1`).get() as { clock: string };
    return new HlcClock(this.id, this.now, undefined, clock);
  }

  private saveClock(clock: HlcClock): void {
    cached(this.db, `UPDATE sync_state SET clock = ? WHERE id = 1`).run(clock.current);
  }

  /** Stamps what the triggers captured since the last call (its own transaction). */
  stamp(): number {
    return this.db
      .transaction(() => {
        const clock = this.clock();
        const n = stampOutbox(this.db, clock);
        if (n > 0) this.saveClock(clock);
        return n;
      })
      .immediate();
  }

  /** Stamps what was captured, then queues a large action's pages that were never sent (sync/action-rows.ts; its own transaction). */
  queueUnsentPages(): number {
    // a device whose first file is still to be its snapshot sends them in it
    const s = cached(this.db, `SELECT next_seq, snapshot_due FROM sync_state WHERE id = 1`).get() as { next_seq: number; snapshot_due: number };
    if (s.next_seq === 1 && s.snapshot_due === 1) return 0;
    return this.db
      .transaction(() => {
        const clock = this.clock();
        if (stampOutbox(this.db, clock) > 0) this.saveClock(clock);
        return queueUnsentPages(this.db);
      })
      .immediate();
  }

  nextSeq(): number {
    return (cached(this.db, `SELECT next_seq FROM sync_state WHERE id = 1`).get() as { next_seq: number }).next_seq;
  }

  unsent(max: number, maxChars = BATCH_CHARS): Message[] {
    this.stamp();
    const rows = cached(this.db, `SELECT hlc, tbl, row, col, value FROM sync_outbox WHERE hlc IS NOT NULL ORDER BY seq LIMIT ?`).all(max + 1) as {
      hlc: string;
      tbl: string;
      row: string;
      col: string;
      value: unknown;
    }[];
    // a batch holds at most BATCH_CHARS of values too (a large action's pages of before images: sync/action-rows.ts)
    let limit = Math.min(rows.length, max);
    let chars = 0;
    for (let i = 0; i < limit; i++) {
      const v = rows[i]!.value;
      chars += typeof v === 'string' ? v.length : 8;
      if (chars > maxChars && i > 0) limit = i;
    }
    let take = rows.slice(0, limit);
    // A new row's columns travel in one batch (a receiver inserts a row whole): a chunk ends before a row that would be cut.
    if (rows.length > limit && take.length > 0) {
      const last = take[take.length - 1]!;
      const next = rows[limit]!;
      if (next.tbl === last.tbl && next.row === last.row) {
        let cut = take.length;
        while (cut > 0 && take[cut - 1]!.tbl === last.tbl && take[cut - 1]!.row === last.row) cut--;
        if (cut > 0) take = take.slice(0, cut);
      }
    }
    return take.map((r) => ({ hlc: r.hlc, table: r.tbl, row: r.row, column: r.col, value: toValue(r.value) }));
  }

  markSent(seq: number, hlcs: ReadonlySet<string>): void {
    this.db
      .transaction(() => {
        cached(this.db, `DELETE FROM sync_outbox WHERE hlc IN (SELECT value FROM json_each(?))`).run(JSON.stringify([...hlcs]));
        cached(this.db, `UPDATE sync_state SET next_seq = MAX(next_seq, ?) WHERE id = 1`).run(seq + 1);
      })
      .immediate();
  }

  cursor(other: string): number {
    return (cached(this.db, `SELECT seq FROM sync_cursors WHERE device = ?`).get(other) as { seq: number } | undefined)?.seq ?? 0;
  }

  mergeBatch(other: string, seq: number, messages: Message[]): Applied[] {
    return this.db
      .transaction(() => {
        // another Tidy process on this database merged it meanwhile
        if (this.cursor(other) >= seq) return [];
        const clock = this.clock();
        stampOutbox(this.db, clock);
        // the clock moves past the batch's latest stamp (stamps sort as strings): one parse, not one per message
        let latest = '';
        for (const m of messages) if (m.hlc > latest) latest = m.hlc;
        if (latest) clock.recv(latest);
        cached(this.db, `UPDATE sync_state SET applying = 1 WHERE id = 1`).run();
        try {
          const applied = applyMessages(this.db, messages);
          retryPending(this.db);
          cached(this.db, `INSERT INTO sync_cursors (device, seq) VALUES (?, ?) ON CONFLICT(device) DO UPDATE SET seq = excluded.seq`).run(other, seq);
          const last = latest ? (parseHlc(latest)?.millis ?? 0) : 0;
          if (last > 0)
            cached(this.db, `INSERT INTO sync_devices (device, last_seen) VALUES (?, ?) ON CONFLICT(device) DO UPDATE SET last_seen = MAX(COALESCE(last_seen, ''), excluded.last_seen), forgotten = 0`).run(
              other,
              new Date(last).toISOString(),
            );
          this.saveClock(clock);
          return applied;
        } finally {
          cached(this.db, `UPDATE sync_state SET applying = 0 WHERE id = 1`).run();
        }
      })
      .immediate();
  }

  /**
   * Writes what waits and can be written now, without a batch to merge (its own transaction): rows that
   * waited before this Tidy settled names two devices made (sync/names.ts) are renamed and written at the
   * next round, whether or not anything new arrives. Nothing waiting: one read.
   */
  retryWaiting(): void {
    if (cached(this.db, `SELECT 1 FROM sync_pending WHERE reason IN ('waiting', 'no row') LIMIT 1`).get() === undefined) return;
    this.db
      .transaction(() => {
        const clock = this.clock();
        stampOutbox(this.db, clock);
        cached(this.db, `UPDATE sync_state SET applying = 1 WHERE id = 1`).run();
        try {
          retryPending(this.db);
        } finally {
          cached(this.db, `UPDATE sync_state SET applying = 0 WHERE id = 1`).run();
        }
        this.saveClock(clock);
      })
      .immediate();
  }

  advance(other: string, seq: number): void {
    // a merge records its cursor in its own transaction; this records one past a snapshot file (nothing to merge)
    cached(this.db, `INSERT INTO sync_cursors (device, seq) VALUES (?, ?) ON CONFLICT(device) DO UPDATE SET seq = MAX(seq, excluded.seq)`).run(other, seq);
  }

  readonly snapshots: SnapshotSupport = {
    fresh: () => cached(this.db, `SELECT 1 FROM sync_cursors LIMIT 1`).get() === undefined,
    apply: (snap) => this.applySnapshot(snap),
    due: (force) => {
      const s = cached(this.db, `SELECT next_seq, snapshot_seq, snapshot_due FROM sync_state WHERE id = 1`).get() as { next_seq: number; snapshot_seq: number | null; snapshot_due: number };
      return force || s.snapshot_due === 1 || s.next_seq - 1 - (s.snapshot_seq ?? 0) >= this.tuning.snapshotAfter;
    },
    take: (seq) => this.db.transaction(() => takeSnapshot(this.db, this.id, seq, () => this.stamp())).immediate(),
    written: (seq) => {
      cached(this.db, `UPDATE sync_state SET snapshot_seq = MAX(COALESCE(snapshot_seq, 0), ?), snapshot_due = 0, next_seq = MAX(next_seq, ?) WHERE id = 1`).run(seq, seq + 1);
    },
    report: () => this.reportCursors(),
    readBy: () => this.readBy(),
  };

  private get tuning(): SyncTuning {
    return { ...DEFAULT_TUNING, ...this.options.tuning };
  }

  /**
   * Queues how far this device has read each other device, for their pruning: with other changes, or once a
   * cursor is `reportEvery` batches past what was said (so two idle devices do not answer each other for ever).
   */
  private reportCursors(): void {
    this.db
      .transaction(() => {
        const busy = cached(this.db, `SELECT 1 FROM sync_outbox LIMIT 1`).get() !== undefined;
        const rows = cached(this.db, `SELECT c.device, c.seq, COALESCE(r.seq, 0) AS said FROM sync_cursors c LEFT JOIN sync_read r ON r.reader = ? AND r.writer = c.device WHERE c.seq > COALESCE(r.seq, 0)`).all(
          this.id,
        ) as { device: string; seq: number; said: number }[];
        const queue = cached(this.db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`);
        const said = cached(this.db, `INSERT INTO sync_read (reader, writer, seq) VALUES (?, ?, ?) ON CONFLICT(reader, writer) DO UPDATE SET seq = excluded.seq`);
        for (const r of rows) {
          if (!DEVICE_ID.test(r.device) || (!busy && r.seq - r.said < this.tuning.reportEvery)) continue;
          queue.run(this.now(), READ_TABLE, this.id, readColumn(r.device), r.seq);
          said.run(this.id, r.device, r.seq);
        }
      })
      .immediate();
  }

  /**
   * The batches of this device every device still syncing has read (the lowest of their last words; 0 when
   * one never said), and this device's newest snapshot. Devices forgotten or not seen for `awayMs` do not
   * hold pruning back: if they come back they start again from a snapshot.
   */
  private readBy(): { read: number; snapshot: number } {
    const s = cached(this.db, `SELECT snapshot_seq FROM sync_state WHERE id = 1`).get() as { snapshot_seq: number | null };
    const since = new Date(this.now() - this.tuning.awayMs).toISOString();
    const { read } = cached(
      this.db,
      `SELECT MIN(COALESCE(r.seq, 0)) AS read FROM sync_devices d LEFT JOIN sync_read r ON r.reader = d.device AND r.writer = ?
       WHERE d.device != ? AND d.forgotten = 0 AND COALESCE(d.last_seen, '') >= ?`,
    ).get(this.id, this.id, since) as { read: number | null };
    return { read: read ?? Number.MAX_SAFE_INTEGER, snapshot: s.snapshot_seq ?? 0 };
  }

  /**
   * Starts from a snapshot: merges its cells (last writer wins, so this device's own newer changes, stamped
   * first, are kept and still sent) in one transaction, then moves every cursor it covers past what it holds.
   */
  private applySnapshot(snap: Snapshot): Applied[] {
    return this.db
      .transaction(() => {
        if (this.cursor(snap.device) >= snap.seq) return [];
        const clock = this.clock();
        stampOutbox(this.db, clock);
        cached(this.db, `UPDATE sync_state SET applying = 1 WHERE id = 1`).run();
        try {
          const applied: Applied[] = [];
          let latest = '';
          for (const part of snapshotMessages(snap)) {
            for (const m of part) if (m.hlc > latest) latest = m.hlc;
            for (const a of applyMessages(this.db, part)) applied.push(a);
          }
          if (latest) clock.recv(latest);
          retryPending(this.db);
          const cursor = cached(this.db, `INSERT INTO sync_cursors (device, seq) VALUES (?, ?) ON CONFLICT(device) DO UPDATE SET seq = MAX(seq, excluded.seq)`);
          cursor.run(snap.device, snap.seq);
          for (const [d, seq] of Object.entries(snap.cursors)) if (d !== this.id && d !== snap.device) cursor.run(d, seq);
          cached(this.db, `INSERT INTO sync_devices (device) VALUES (?) ON CONFLICT(device) DO UPDATE SET forgotten = 0`).run(snap.device);
          this.saveClock(clock);
          return applied;
        } finally {
          cached(this.db, `UPDATE sync_state SET applying = 0 WHERE id = 1`).run();
        }
      })
      .immediate();
  }
}

/** When a device writes a snapshot, and when it tells the others how far it has read (tests make them small). */
export interface SyncTuning {
  /** A device writes a snapshot once it has written this many batches since its last one. */
  snapshotAfter: number;
  /** An idle device says how far it has read once a cursor moved this many batches. */
  reportEvery: number;
  /** A device not seen for this long no longer holds pruning back. */
  awayMs: number;
}

export const DEFAULT_TUNING: SyncTuning = { snapshotAfter: 64, reportEvery: 16, awayMs: 30 * 24 * 3600_000 };

/**
 * This database's synced state as a snapshot numbered `seq` (inside an IMMEDIATE transaction; the outbox is
 * stamped first, so every value travels with the stamp of its latest change).
 */
export function takeSnapshot(db: Db, device: string, seq: number, stamp: () => void): Snapshot {
  stamp();
  const pending = new Map<string, Set<string>>();
  const messages: Message[] = [];
  for (const p of cached(db, `SELECT tbl, row, col, hlc, value FROM sync_pending`).all() as { tbl: string; row: string; col: string; hlc: string; value: unknown }[]) {
    messages.push({ hlc: p.hlc, table: p.tbl, row: p.row, column: p.col, value: toValue(p.value) });
    const key = `${p.tbl}\u0000${p.row}`;
    let set = pending.get(key);
    if (!set) pending.set(key, (set = new Set()));
    set.add(p.col);
  }
  const tables: SnapshotTable[] = [];
  const schema = schemaOf(db);
  for (const table of SYNCED_TABLES) {
    const cols = schema.get(table);
    if (!cols) continue;
    const columns = [EXISTS_COLUMN, ...[...cols.keys()].filter((c) => c !== EXISTS_COLUMN)];
    const rows: SnapshotTable['rows'] = [];
    const read = db.prepare(
      `SELECT x.id, ${columns
        .slice(1)
        .map((c) => `x.${c}`)
        .join(', ')}, (SELECT group_concat(c.col || ' ' || c.hlc, ' ') FROM sync_cells c WHERE c.tbl = '${table}' AND c.row = x.id) FROM ${table} x ORDER BY x.rowid`,
    );
    for (const r of read.raw().iterate() as Iterable<unknown[]>) {
      const id = r[0] as string;
      const stamps = new Map<string, string>();
      const text = r[r.length - 1] as string | null;
      if (text) {
        const parts = text.split(' ');
        for (let i = 0; i + 1 < parts.length; i += 2) stamps.set(parts[i]!, parts[i + 1]!);
      }
      const waits = pending.get(`${table}\u0000${id}`);
      const values: Value[] = [1, ...r.slice(1, -1).map(toValue)];
      rows.push([id, values, packStamps(columns.map((c) => (waits?.has(c) ? null : (stamps.get(c) ?? null))))]);
    }
    tables.push({ table, columns, rows });
    // rows gone from this table: their `_exists` = 0 travels (a deleted row's other cells are not kept)
    for (const g of db
      .prepare(
        `SELECT c.row, c.hlc FROM sync_cells c WHERE c.tbl = '${table}' AND c.col = '${EXISTS_COLUMN}' AND NOT EXISTS (SELECT 1 FROM ${table} x WHERE x.id = c.row)
         AND NOT EXISTS (SELECT 1 FROM sync_pending p WHERE p.tbl = c.tbl AND p.row = c.row AND p.col = c.col)`,
      )
      .all() as { row: string; hlc: string }[])
      messages.push({ hlc: g.hlc, table, row: g.row, column: EXISTS_COLUMN, value: 0 });
  }
  for (const d of cached(db, `SELECT d.device, d.name, c.hlc FROM sync_devices d JOIN sync_cells c ON c.tbl = '${DEVICES_TABLE}' AND c.row = d.device AND c.col = 'name'`).all() as {
    device: string;
    name: string;
    hlc: string;
  }[])
    messages.push({ hlc: d.hlc, table: DEVICES_TABLE, row: d.device, column: 'name', value: d.name });
  for (const r of cached(db, `SELECT r.reader, r.writer, r.seq, c.hlc FROM sync_read r JOIN sync_cells c ON c.tbl = '${READ_TABLE}' AND c.row = r.reader AND c.col = 'd_' || r.writer`).all() as {
    reader: string;
    writer: string;
    seq: number;
    hlc: string;
  }[])
    messages.push({ hlc: r.hlc, table: READ_TABLE, row: r.reader, column: readColumn(r.writer), value: r.seq });
  // large actions' changes beside their rows, as they were sent (or, made before sync was on, with the lowest stamp)
  const pageStamp = cached(db, `SELECT hlc FROM sync_cells WHERE tbl = ? AND row = ? AND col = ?`);
  const sentNow = cached(db, `INSERT OR IGNORE INTO sync_cells (tbl, row, col, hlc) VALUES (?, ?, ?, ?)`);
  const floor = floorStamp(device);
  for (const p of allActionPages(db)) {
    let hlc = (pageStamp.get(ACTION_ROWS_TABLE, p.actionId, p.column) as { hlc: string } | undefined)?.hlc;
    // sent now, in the snapshot (queueUnsentPages then knows it was)
    if (hlc === undefined) sentNow.run(ACTION_ROWS_TABLE, p.actionId, p.column, (hlc = floor));
    messages.push({ hlc, table: ACTION_ROWS_TABLE, row: p.actionId, column: p.column, value: p.value });
  }
  const cursors: Record<string, number> = {};
  for (const c of cached(db, `SELECT device, seq FROM sync_cursors`).all() as { device: string; seq: number }[]) if (DEVICE_ID.test(c.device) && c.device !== device) cursors[c.device] = c.seq;
  return { device, seq, cursors, tables, messages };
}


interface Group {
  table: string;
  row: string;
  values: Map<string, { hlc: string; value: Value }>;
  /**
   * A name clash is settled (sync/names.ts) only once the rest of the batch is written (retryPending): a
   * rename then sees every name the batch brings, as the sender's side does.
   */
  settle?: boolean;
  /**
   * A delete blocked by rows that point at it keeps the row (sync/kept.ts) only once nothing else that waits
   * can be written: those rows may be deletions waiting too (a project and its task, undone together).
   */
  keep?: boolean;
}

/** The clock of every cell of the given rows, one primary-key range read per row (keyed table \0 row \0 column). */
function cellsOfRows(db: Db, rows: Iterable<[string, string]>): Map<string, string> {
  const out = new Map<string, string>();
  const read = cached(db, `SELECT col, hlc FROM sync_cells WHERE tbl = ? AND row = ?`).raw();
  for (const [t, r] of rows) for (const [c, h] of read.all(t, r) as [string, string][]) out.set(`${t}\u0000${r}\u0000${c}`, h);
  return out;
}

/**
 * Merges received messages into the database (inside the apply transaction, with capture off): what changed.
 * Per row, not per message: the clocks of a row's cells are read in one primary-key range, the batch's
 * messages of one cell are reduced to the latest first, and each row is written once, with all its winning
 * columns, by a statement prepared once per (table, column set). (Set-based reads and writes through
 * json_each were tried: slower than prepared statements run per row, measured at 30k rows.)
 */
export function applyMessages(db: Db, messages: readonly Message[]): Applied[] {
  const schema = schemaOf(db);
  // the latest message of each cell in the batch (an equal stamp does not replace: as when it arrives later)
  const latest = new Map<string, Message>();
  const rowKeys = new Map<string, [string, string]>();
  for (const m of messages) {
    const key = cellKey(m);
    const seen = latest.get(key);
    if (seen && m.hlc <= seen.hlc) continue;
    latest.set(key, m);
    const rk = `${m.table}\u0000${m.row}`;
    if (!rowKeys.has(rk)) rowKeys.set(rk, [m.table, m.row]);
  }
  const current = cellsOfRows(db, rowKeys.values());
  const applied: Applied[] = [];
  const won: Message[] = [];
  for (const [key, m] of latest) {
    const hlc = current.get(key);
    // the one point where a received message meets the local cell: a concurrent loser is recorded (sync/conflicts.ts),
    // a received conflict record taken in; older or equal stamps change nothing
    if (noteConflict(db, m, hlc === undefined ? undefined : { hlc })) continue;
    if (hlc !== undefined && m.hlc <= hlc) continue;
    won.push(m);
    applied.push(hlc !== undefined ? { message: m, previous: { hlc, value: null } } : { message: m });
  }
  if (won.length === 0) return applied;
  const setCell = cached(db, `INSERT INTO sync_cells (tbl, row, col, hlc) VALUES (?, ?, ?, ?) ON CONFLICT(tbl, row, col) DO UPDATE SET hlc = excluded.hlc`);
  for (const m of won) setCell.run(m.table, m.row, m.column, m.hlc);
  // nothing waits (the usual case): no lookups of what waits, per message or per row
  const waiting = cached(db, `SELECT 1 FROM sync_pending LIMIT 1`).get() !== undefined;
  if (waiting) {
    const unpend = cached(db, `DELETE FROM sync_pending WHERE tbl = ? AND row = ? AND col = ?`);
    for (const m of won) unpend.run(m.table, m.row, m.column);
  }
  const groups = new Map<string, Group>();
  for (const m of won) {
    if (m.table === DEVICES_TABLE) {
      if (DEVICE_ID.test(m.row) && m.column === 'name' && typeof m.value === 'string' && m.value.length <= MAX_NAME)
        cached(db, `INSERT INTO sync_devices (device, name) VALUES (?, ?) ON CONFLICT(device) DO UPDATE SET name = excluded.name`).run(m.row, m.value);
      continue;
    }
    if (m.table === READ_TABLE) {
      const writer = m.column.slice(2);
      if (DEVICE_ID.test(m.row) && m.column.startsWith('d_') && DEVICE_ID.test(writer) && typeof m.value === 'number' && Number.isSafeInteger(m.value) && m.value >= 0)
        cached(db, `INSERT INTO sync_read (reader, writer, seq) VALUES (?, ?, ?) ON CONFLICT(reader, writer) DO UPDATE SET seq = MAX(seq, excluded.seq)`).run(m.row, writer, m.value);
      continue;
    }
    if (m.table === ACTION_ROWS_TABLE) {
      // a large action's changes beside its row (sync/action-rows.ts): written once, never a row of their own
      const taken = applyActionPage(db, m.row, m.column, m.value, (t) => schema.get(t));
      if (taken !== 'ok') pend(db, m.table, m.row, m.column, m.hlc, m.value, taken);
      continue;
    }
    const cols = schema.get(m.table);
    const col = cols?.get(m.column);
    if (!cols || !col) {
      pend(db, m.table, m.row, m.column, m.hlc, m.value, 'unknown');
      continue;
    }
    if (!typeOk(col, m.column, m.value)) {
      pend(db, m.table, m.row, m.column, m.hlc, m.value, 'type');
      continue;
    }
    const key = `${m.table}\u0000${m.row}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { table: m.table, row: m.row, values: new Map() }));
    g.values.set(m.column, { hlc: m.hlc, value: m.value });
  }
  // rows in the order their first message came (parents are sent before children)
  for (const g of groups.values()) writeRow(db, schema, g, waiting);
  return applied;
}

function pend(db: Db, table: string, row: string, col: string, hlc: string, value: Value, reason: string): void {
  cached(
    db,
    `INSERT INTO sync_pending (tbl, row, col, hlc, value, reason) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT(tbl, row, col) DO UPDATE SET hlc = excluded.hlc, value = excluded.value, reason = excluded.reason WHERE excluded.hlc >= sync_pending.hlc`,
  ).run(table, row, col, hlc, value, reason);
}

let savepoints = 0;

/**
 * Runs one write; a constraint it breaks undoes that write alone (SQLite rolls back a failed statement) and
 * answers the constraint's code (`SQLITE_CONSTRAINT_UNIQUE`, …); null when it was written.
 */
function attempt(db: Db, write: () => void, statements: 'one' | 'several'): string | null {
  const name = statements === 'several' ? `sync_row_${++savepoints}` : null;
  if (name) db.exec(`SAVEPOINT ${name}`);
  try {
    write();
    if (name) db.exec(`RELEASE ${name}`);
    return null;
  } catch (e) {
    if (name) {
      db.exec(`ROLLBACK TO ${name}`);
      db.exec(`RELEASE ${name}`);
    }
    const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '';
    if (!code.startsWith('SQLITE_CONSTRAINT')) throw e;
    return code;
  }
}

/**
 * A write that broke a unique index: when it is a name two devices gave two rows (sync/names.ts), the later-made
 * row is renamed and the write done; true when it was.
 */
function settled(db: Db, code: string | null, g: Group, image: Record<string, Value>, write: NamedWrite): boolean {
  if (!g.settle || code !== 'SQLITE_CONSTRAINT_UNIQUE' || !Object.hasOwn(NAME_RULES, g.table)) return false;
  return settleNameClash(db, g.table, { ...image, id: g.row }, write, Date.now());
}

/** Writes one row's winning values: insert (when `_exists` won as 1), update, or delete (`_exists` = 0); what cannot be written waits. */
function writeRow(db: Db, schema: Map<string, Map<string, ColumnInfo>>, g: Group, waiting = true): void {
  const cols = schema.get(g.table)!;
  // what waited for this row joins what arrived now (the newer wins: a pending cell had its newer message take its place)
  if (waiting)
    for (const p of cached(db, `SELECT col, hlc, value FROM sync_pending WHERE tbl = ? AND row = ? AND reason IN ('waiting', 'no row')`).all(g.table, g.row) as {
      col: string;
      hlc: string;
      value: Value;
    }[]) {
      if (!g.values.has(p.col) && cols.has(p.col)) g.values.set(p.col, { hlc: p.hlc, value: toValue(p.value) });
    }
  // a name renamed here in this apply (sync/names.ts) keeps the rename: what was received for it is older
  if (Object.hasOwn(NAME_RULES, g.table)) for (const c of ['name', 'name_key']) if (renamedHere(db, `${g.table}\u0000${g.row}\u0000${c}`)) g.values.delete(c);
  const exists = cached(db, `SELECT 1 FROM ${g.table} WHERE id = ?`).get(g.row) !== undefined;
  const flag = g.values.get(EXISTS_COLUMN)?.value;
  const waitAll = (reason: string): void => {
    for (const [c, v] of g.values) pend(db, g.table, g.row, c, v.hlc, v.value, reason);
  };
  const data = [...g.values].filter(([c]) => c !== EXISTS_COLUMN);
  const done = (): void => {
    if (waiting) cached(db, `DELETE FROM sync_pending WHERE tbl = ? AND row = ? AND reason IN ('waiting', 'no row')`).run(g.table, g.row);
  };

  if (flag === 0) {
    // a deleted row's other cells are not kept: a row that comes back (a redo) brings all its columns again
    if (!exists || g.table === 'actions') return done();
    const code = attempt(db, () => cached(db, `DELETE FROM ${g.table} WHERE id = ?`).run(g.row), 'one');
    // live rows still point at it (another device added to it while this one was undone): the row is kept
    // (sync/kept.ts), once the batch and all else that can be is written (the undo that removed it is then here)
    if (code === null || (code === 'SQLITE_CONSTRAINT_FOREIGNKEY' && g.keep === true && keepRow(db, g.table, g.row, g.values.get(EXISTS_COLUMN)!.hlc, Date.now()))) done();
    else waitAll('waiting');
    return;
  }
  if (!exists) {
    if (flag !== 1) {
      // the row was deleted here (its `_exists` cell is known and nothing waits to make it): the change is of a deleted row
      const known = cellOfRow(db, g.table, g.row);
      if (known) done();
      else waitAll('no row');
      return;
    }
    if (g.table === 'actions' && !actionRowOk(schema, g)) {
      waitAll('refused');
      return;
    }
    const names = data.map(([c]) => c);
    const insert = cached(db, `INSERT INTO ${g.table} (id${names.map((c) => `, ${c}`).join('')}) VALUES (?${names.map(() => ', ?').join('')})`);
    const values = data.map(([, v]) => v.value);
    const code =
      g.table === 'actions'
        ? attempt(
            db,
            () => {
              const info = insert.run(g.row, ...values);
              linkAction(db, Number(info.lastInsertRowid), g.values.get('changes')!.value as string, g.row, g.values.get('spilled')?.value);
            },
            'several',
          )
        : attempt(db, () => insert.run(g.row, ...values), 'one');
    const image = (): Record<string, Value> => Object.fromEntries(data.map(([c, v]) => [c, v.value]));
    if (code === null || settled(db, code, g, image(), (r) => insert.run(g.row, ...data.map(([c, v]) => (r && (c === 'name' || c === 'name_key') ? r[c] : v.value))))) done();
    else waitAll('waiting');
    return;
  }
  const patch = g.table === 'actions' ? data.filter(([c]) => ACTION_MUTABLE.has(c)) : data;
  if (patch.length > 0) {
    const update = cached(db, `UPDATE ${g.table} SET ${patch.map(([c]) => `${c} = ?`).join(', ')} WHERE id = ?`);
    const code = attempt(db, () => update.run(...patch.map(([, v]) => v.value), g.row), 'one');
    if (code !== null) {
      // the row as the update would leave it, and the same update with the name a clash gives it
      const row = () => ({ ...(cached(db, `SELECT * FROM ${g.table} WHERE id = ?`).get(g.row) as Record<string, Value>), ...Object.fromEntries(patch.map(([c, v]) => [c, v.value])) });
      const renaming: NamedWrite = (r) => {
        const cols = r ? [...new Set([...patch.map(([c]) => c), 'name', 'name_key'])] : patch.map(([c]) => c);
        const vals = cols.map((c) => (r && (c === 'name' || c === 'name_key') ? r[c] : g.values.get(c)!.value));
        cached(db, `UPDATE ${g.table} SET ${cols.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...vals, g.row);
      };
      if (!settled(db, code, g, row(), renaming)) {
        waitAll('waiting');
        return;
      }
    }
  }
  done();
}

/** Whether the row's `_exists` cell has a clock here and no `_exists` waits to be written: it was deleted here. */
function cellOfRow(db: Db, table: string, row: string): boolean {
  const cell = cached(db, `SELECT 1 FROM sync_cells WHERE tbl = ? AND row = ? AND col = ?`).get(table, row, EXISTS_COLUMN);
  const waiting = cached(db, `SELECT 1 FROM sync_pending WHERE tbl = ? AND row = ? AND col = ?`).get(table, row, EXISTS_COLUMN);
  return cell !== undefined && waiting === undefined;
}

/** A received action row is whole and well formed (the log's readers parse its JSON; undo turns its images into SQL). */
function actionRowOk(schema: Map<string, Map<string, ColumnInfo>>, g: Group): boolean {
  const v = (c: string): Value | undefined => g.values.get(c)?.value;
  return actionChangesOk(v('changes'), schema) && jsonOk(v('args'), false) && jsonOk(v('result') ?? null, true) && jsonOk(v('what') ?? null, true);
}

function linkAction(db: Db, seq: number, changes: string, id: string, spilled: Value | undefined): void {
  const link = cached(db, `INSERT OR IGNORE INTO action_entities (entity, action_seq) VALUES (?, ?)`);
  for (const c of JSON.parse(changes) as { table: string; id: string }[]) link.run(`${c.table}:${c.id}`, seq);
  // a large action's changes beside it that arrived before its row (sync/action-rows.ts)
  if (typeof spilled === 'number' && spilled > 0)
    cached(db, `INSERT OR IGNORE INTO action_entities (entity, action_seq) SELECT tbl || ':' || row_id, ? FROM action_rows WHERE action_id = ?`).run(seq, id);
}

/**
 * Rows that waited (a parent had not arrived, a delete was blocked by children, a column this Tidy did not
 * have before an update): written now if they can be, until nothing more can.
 */
export function retryPending(db: Db): void {
  const schema = schemaOf(db);
  // messages for a table or column this schema did not have: once an update of Tidy added it, they apply like any other
  const promote = cached(db, `UPDATE sync_pending SET reason = 'waiting' WHERE tbl = ? AND col = ? AND reason = 'unknown'`);
  for (const u of cached(db, `SELECT DISTINCT tbl, col FROM sync_pending WHERE reason = 'unknown'`).all() as { tbl: string; col: string }[])
    if (schema.get(u.tbl)?.has(u.col)) promote.run(u.tbl, u.col);
  // a large action's pages that waited (an older Tidy received them, or they named a column it had not): again
  for (const p of cached(db, `SELECT row, col, value FROM sync_pending WHERE tbl = ? AND reason = 'unknown'`).all(ACTION_ROWS_TABLE) as { row: string; col: string; value: unknown }[])
    if (applyActionPage(db, p.row, p.col, p.value, (t) => schema.get(t)) === 'ok') cached(db, `DELETE FROM sync_pending WHERE tbl = ? AND row = ? AND col = ?`).run(ACTION_ROWS_TABLE, p.row, p.col);
  // a pass that writes nothing more lets the next one keep rows whose deletion live rows block (sync/kept.ts)
  let keep = false;
  for (let pass = 0; pass < 64; pass++) {
    const rows = cached(db, `SELECT DISTINCT tbl, row FROM sync_pending WHERE reason IN ('waiting', 'no row')`).all() as { tbl: string; row: string }[];
    if (rows.length === 0) return;
    const before = (cached(db, `SELECT COUNT(*) AS n FROM sync_pending`).get() as { n: number }).n;
    for (const r of rows) if (schema.has(r.tbl)) writeRow(db, schema, { table: r.tbl, row: r.row, values: new Map(), settle: true, keep });
    const after = (cached(db, `SELECT COUNT(*) AS n FROM sync_pending`).get() as { n: number }).n;
    if (after >= before) {
      if (keep) return;
      keep = true;
    } else keep = false;
  }
}

