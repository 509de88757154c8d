// Conflicts, said (migration 17). Two edits of one cell conflict when they were concurrent: neither device
// had seen the other's change when it made its own. Last writer wins stays the rule; what the loser wrote is
// recorded (value, clock stamp, device) so the task's history can say "changed on Laptop at 10:02,
// overwritten by Desktop at 10:03 · Restore", and a description edited on two devices keeps both texts.
//
// Detection, without any field in the messages beyond {hlc, table, row, column, value}: each device merges
// every other device's message exactly once (per-device cursors). So when a received message LOSES to this
// device's own change of the cell, this device had not seen it when it made its change (it sees it only now),
// and the sender had not seen ours either (a stamp made after seeing ours would be later than ours: the
// clock moves past every stamp it receives). Concurrent, then, and the conflict is recorded by the device
// whose edit won, the moment the loser arrives. A change that was seen before it was overwritten (edit on
// Laptop, sync, edit on Desktop) is sequential: when Laptop's change reached Desktop, Desktop's cell was not
// yet its own, and when Desktop's change reaches Laptop it wins there; nothing is recorded. The record travels
// to the other devices as a message of the pseudo-table `sync_conflicts` (one per lost stamp, so it is
// recorded once everywhere), so every device shows it.
//
// Merged text: when the lost value and the winner are both non-empty texts of a merged column (a task's
// description), the winner's device writes one text: the winner's, then a marked block with the other
// device's text, as a new local change that syncs like any other. A three-way merge would need the common
// ancestor, which sync does not keep (cells carry only their latest value); a marked block loses nothing and
// reads plainly, and an edit removes what is not wanted.
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { EXISTS_COLUMN, syncedColumns } from '../store/sync-capture';
import { parseHlc } from './hlc';
import { MAX_VALUE_CHARS, type Message, type Value } from './messages';
import { KEPT, takeKeptRecord } from './kept';
import { RENAMED, takeRenameRecord } from './names';

export const CONFLICTS_TABLE = 'sync_conflicts';
/** Tables whose cells' conflicts are recorded (the action log's are not: its rows are written once). */
const RECORDED = new Set(['tasks', 'projects', 'sections', 'labels', 'lists', 'list_items', 'events', 'calendars', 'memories', 'routines', 'conversations']);
/** Columns whose two texts are kept as one merged note. */
export const MERGED_TEXT = new Set(['tasks.description', 'events.description', 'projects.description']);
/** Bookkeeping columns every edit touches: their conflicts say nothing a user wrote. */
const UNRECORDED_COLUMNS = new Set([EXISTS_COLUMN, 'updated_at', 'created_at']);
const nodeOf = (hlc: string): string => hlc.slice(-16);

export interface ConflictRecord {
  tbl: string;
  row: string;
  col: string;
  lostValue: Value;
  lostHlc: string;
  lostDevice: string;
  wonHlc: string;
  wonDevice: string;
  merged: boolean;
}

/** The block a merged text gets: the other device's text under a line that says where it came from. */
export function mergeTexts(winner: string, loser: string, loserDevice: string, loserAt: number): string {
  const at = new Date(loserAt);
  const pad = (n: number): string => String(n).padStart(2, '0');
  const when = `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}`;
  const merged = `${winner.replace(/\s+$/, '')}\n\n--- Also written on ${loserDevice} at ${when} (both edits kept by sync) ---\n${loser.replace(/\s+$/, '')}`;
  return merged.length <= MAX_VALUE_CHARS ? merged : winner;
}

/** Whether merging would add nothing: one text already holds the other (a merge seen before, or the same words). */
const holds = (winner: string, loser: string): boolean => loser.trim() === '' || winner.includes(loser.trim());

function selfDevice(db: Db): string | null {
  return (cached(db, `SELECT device FROM sync_state WHERE id = 1`).get() as { device: string } | undefined)?.device ?? null;
}

function deviceName(db: Db, device: string): string {
  const r = cached(db, `SELECT name FROM sync_devices WHERE device = ?`).get(device) as { name: string | null } | undefined;
  return r?.name ?? `device ${device.slice(0, 6)}`;
}

function insert(db: Db, c: ConflictRecord, at: string): boolean {
  return (
    cached(
      db,
      `INSERT OR IGNORE INTO sync_conflicts (tbl, row, col, lost_value, lost_hlc, lost_device, won_hlc, won_device, merged, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(c.tbl, c.row, c.col, c.lostValue === true ? 1 : c.lostValue === false ? 0 : c.lostValue, c.lostHlc, c.lostDevice, c.wonHlc, c.wonDevice, c.merged ? 1 : 0, at).changes > 0
  );
}

const IDENT = /^[a-z_][a-z0-9_]{0,63}$/;

/** A conflict record received from another device, checked field by field (it comes from a file on the target). */
function parseRecord(m: Message): ConflictRecord | null {
  if (m.column !== 'record' || typeof m.value !== 'string' || m.value.length > MAX_VALUE_CHARS) return null;
  let v: unknown;
  try {
    v = JSON.parse(m.value);
  } catch {
    return null;
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return null;
  const r = v as Record<string, unknown>;
  const str = (k: string, max = 128): string | null => (typeof r[k] === 'string' && (r[k] as string).length > 0 && (r[k] as string).length <= max ? (r[k] as string) : null);
  const tbl = str('tbl');
  const col = str('col');
  const row = str('row');
  const lostHlc = str('lostHlc');
  const wonHlc = str('wonHlc');
  const lost = r['lostValue'];
  const okValue = lost === null || (typeof lost === 'number' && Number.isFinite(lost)) || (typeof lost === 'string' && lost.length <= MAX_VALUE_CHARS);
  if (!tbl || !col || !row || !lostHlc || !wonHlc || !okValue || !RECORDED.has(tbl) || !IDENT.test(col)) return null;
  const lostClock = parseHlc(lostHlc);
  const wonClock = parseHlc(wonHlc);
  // the row of the message is the lost stamp, and the record is the recording device's (the winner's)
  if (!lostClock || !wonClock || m.row !== lostHlc || wonClock.node !== nodeOf(m.hlc) || lostHlc >= wonHlc) return null;
  return { tbl, row, col, lostValue: lost as Value, lostHlc, lostDevice: lostClock.node, wonHlc, wonDevice: wonClock.node, merged: r['merged'] === true };
}

/** A received record that says a rename of a unique name (sync/names.ts), as its parsed JSON. */
function renameRecordOf(m: Message): Record<string, unknown> | null {
  if (m.column !== 'record' || typeof m.value !== 'string' || m.value.length > MAX_VALUE_CHARS || !m.value.startsWith('{"renamed":true')) return null;
  try {
    const v: unknown = JSON.parse(m.value);
    return v !== null && typeof v === 'object' && !Array.isArray(v) && (v as Record<string, unknown>)['renamed'] === true ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * The one call from applyMessages, where a received message meets the local cell's clock (`current`, before
 * the merge). Records a conflict when the message loses to this device's own concurrent change (and merges
 * two texts); takes in a conflict record another device sent. True: the message was such a record (nothing
 * more to do with it); false: the merge goes on as always.
 */
export function noteConflict(db: Db, m: Message, current: { hlc: string } | undefined): boolean {
  if (m.table === CONFLICTS_TABLE) {
    const renamed = renameRecordOf(m);
    if (renamed) {
      takeRenameRecord(db, m, renamed);
      return true;
    }
    if (takeKeptRecord(db, m)) return true;
    const r = parseRecord(m);
    if (r) insert(db, r, new Date().toISOString());
    return true;
  }
  if (!current || m.hlc >= current.hlc || UNRECORDED_COLUMNS.has(m.column) || !RECORDED.has(m.table)) return false;
  const self = selfDevice(db);
  if (!self || nodeOf(current.hlc) !== self || nodeOf(m.hlc) === self) return false;
  // identifiers only from the database's own schema
  if (!syncedColumns(db, m.table).includes(m.column)) return false;
  const local = cached(db, `SELECT ${m.column} AS v FROM ${m.table} WHERE id = ?`).get(m.row) as { v: unknown } | undefined;
  if (local === undefined || local.v === m.value || (local.v === null && m.value === null)) return false;
  const lostAt = parseHlc(m.hlc)!.millis;
  const record: ConflictRecord = { tbl: m.table, row: m.row, col: m.column, lostValue: m.value, lostHlc: m.hlc, lostDevice: nodeOf(m.hlc), wonHlc: current.hlc, wonDevice: self, merged: false };
  const now = Date.now();
  if (MERGED_TEXT.has(`${m.table}.${m.column}`) && typeof m.value === 'string' && typeof local.v === 'string' && local.v.trim() !== '' && !holds(local.v, m.value)) {
    const text = mergeTexts(local.v, m.value, deviceName(db, record.lostDevice), lostAt);
    if (text !== local.v) {
      // a change of this device (capture is off while applying: queued here), stamped later than both
      cached(db, `UPDATE ${m.table} SET ${m.column} = ? WHERE id = ?`).run(text, m.row);
      cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`).run(now, m.table, m.row, m.column, text);
      record.merged = true;
    }
  }
  if (insert(db, record, new Date(now).toISOString())) {
    const { tbl, row, col, lostValue, lostHlc, wonHlc, merged } = record;
    cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`).run(now, CONFLICTS_TABLE, lostHlc, 'record', JSON.stringify({ tbl, row, col, lostValue, lostHlc, wonHlc, merged }));
  }
  return false;
}

export interface ConflictView {
  column: string;
  lostValue: string | number | null;
  lostAt: string;
  lostDevice: string;
  wonAt: string;
  wonDevice: string;
  merged: boolean;
}

/** A row's conflicts, newest first, with the devices' names: for the task's history. */
export function listConflicts(db: Db, table: string, row: string, limit = 50): ConflictView[] {
  const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_conflicts'`).get();
  if (!has) return [];
  const rows = cached(db, `SELECT col, lost_value, lost_hlc, lost_device, won_hlc, won_device, merged FROM sync_conflicts WHERE tbl = ? AND row = ? AND col NOT IN (?, ?) ORDER BY won_hlc DESC, id DESC LIMIT ?`).all(
    table,
    row,
    RENAMED,
    KEPT,
    limit,
  ) as { col: string; lost_value: string | number | bigint | null; lost_hlc: string; lost_device: string; won_hlc: string; won_device: string; merged: number }[];
  const iso = (hlc: string): string => new Date(parseHlc(hlc)?.millis ?? 0).toISOString();
  return rows.map((r) => ({
    column: r.col,
    lostValue: typeof r.lost_value === 'bigint' ? Number(r.lost_value) : r.lost_value,
    lostAt: iso(r.lost_hlc),
    lostDevice: deviceName(db, r.lost_device),
    wonAt: iso(r.won_hlc),
    wonDevice: deviceName(db, r.won_device),
    merged: r.merged === 1,
  }));
}
