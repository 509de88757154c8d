// Names that must be unique, made on two devices at once ("Errands" on Laptop and on Desktop while both were
// offline): when a received row (or a received change of one: a rename, an unarchive) would take a name that
// a live row here already has, the later-made row of the two is renamed "Errands (Laptop)", after the device
// that made it (" 2", " 3" … when that is taken too), and the write goes on. The rule reads only what every
// device holds alike (the rows' created_at and ids, the device names), so the device that receives the other's
// row and the device whose own row loses make the same rename; each sends it as a change of its own, and
// equal values under last-writer-wins converge. Nothing waits and nothing is lost: the renamed row keeps its
// id, so its tasks (items, sections, events, labelled tasks) stay with it. Labels are renamed too, not merged
// (docs/ARCHITECTURE.md, "Sync", says why). The rename is recorded (sync/conflicts.ts, `recordRename`) so
// `tidy sync` and Settings → Sync say it in one line.
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { clashOf, deviceLabel, freeName, makerOf, NAME_RULES, nameKey, type Named, type Values } from '../store/names';
import { parseHlc } from './hlc';
import { DEVICE_ID } from './layout';
import { MAX_VALUE_CHARS, type Message } from './messages';

/** Whether `a` was made after `b`: the later creation time, then the larger id (a built-in row is never the later). */
function madeLater(a: Named, b: Named): boolean {
  if (a.builtin !== b.builtin) return b.builtin;
  if (a.created_at !== b.created_at) return a.created_at > b.created_at;
  return a.id > b.id;
}

/**
 * The labels sync may have given a row made by `device` (besides those with its id's digits, `baseName`):
 * its name, and the one used while its maker was unknown here.
 */
function suffixLabels(db: Db, device: string | null): string[] {
  if (!device) return ['another device'];
  const r = cached(db, `SELECT name FROM sync_devices WHERE device = ?`).get(device) as { name: string | null } | undefined;
  const name = r?.name?.trim();
  return [...(name ? [name] : []), 'another device'];
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The name a row had before sync renamed it: "Errands" of "Errands (vm)", "Errands (vm) 2" or "Errands (vm
 * 3f9a0c)" when the suffix is one sync gives the row's maker (its name now, `labels`; any label that ends in
 * its id's six digits `part`, as given while another device had its name); else the name as it is. A row
 * renamed before is renamed from that name again, never suffixed twice ("Errands (vm) (vm)"), so the rename
 * of a row does not depend on how many renames it went through on the way, or in which order a device saw
 * the clashes.
 */
export function baseName(name: string, labels: readonly string[], part?: string): string {
  const alternatives = labels.map(escapeRegExp);
  if (part && /^[0-9a-f]{6}$/.test(part)) alternatives.push(`[^()]*\\b${part}`);
  if (alternatives.length === 0) return name;
  const m = new RegExp(`^(.*\\S) \\((?:${alternatives.join('|')})\\)(?: [2-9]| [1-9]\\d+)?$`, 'isu').exec(name);
  return m ? m[1]! : name;
}

const nameCellOf = (db: Db, table: string, id: string): string | null =>
  (cached(db, `SELECT hlc FROM sync_cells WHERE tbl = ? AND row = ? AND col = 'name'`).get(table, id) as { hlc: string } | undefined)?.hlc ?? null;

/**
 * Cells this device renamed while applying, not stamped yet: a received value of one of them, later in the
 * same batch or in what waited, is older than the rename (which is stamped after everything received so far)
 * and must not be written over it. Emptied when the outbox is stamped.
 */
const queuedHere = new WeakMap<Db, Set<string>>();

/** Whether a received value of this cell is older than a rename made here and not stamped yet. */
export const renamedHere = (db: Db, cell: string): boolean => queuedHere.get(db)?.has(cell) === true;

/** The outbox was stamped: every rename made here now has its stamp in sync_cells. */
export const renamesStamped = (db: Db): void => void queuedHere.delete(db);

/** A write of a received row, given the name and name_key to use instead of the received ones (or none). */
export type NamedWrite = (rename: { name: string; name_key: string } | null) => void;

/**
 * Settles a write that broke a unique name (inside the apply transaction, capture off): renames the later-made
 * of the two rows, writes, records, and queues the rename as this device's change. `row`: the received row as
 * it would be written (its whole image for an update). False when the clash is not a name's, or the write
 * still fails (the caller lets it wait): then nothing of this is kept.
 */
export function settleNameClash(db: Db, table: string, row: Values & { id: string }, write: NamedWrite, now: number): boolean {
  const rule = NAME_RULES[table];
  if (!rule || typeof row['name'] !== 'string') return false;
  const other = clashOf(db, table, rule, row);
  if (!other) return false;
  const incoming: Named = { id: row.id, name: row['name'], created_at: typeof row['created_at'] === 'string' ? row['created_at'] : '', builtin: row['builtin'] === 1 };
  const loser = madeLater(incoming, other) ? incoming : other;
  const winner = loser === incoming ? other : incoming;
  if (loser.builtin) return false;
  const maker = makerOf(db, table, loser.id);
  const name = freeName(db, table, rule, baseName(loser.name, suffixLabels(db, maker), maker?.slice(0, 6)), deviceLabel(db, maker), row, nameKey(winner.name));
  const renamed = { name, name_key: nameKey(name) };
  // the loser's name as it stood (its stamp keys the record, so the devices that both see the clash record it once)
  const lostHlc = nameCellOf(db, table, loser.id);
  db.exec('SAVEPOINT sync_name');
  try {
    if (loser === other) cached(db, `UPDATE ${table} SET name = ?, name_key = ? WHERE id = ?`).run(renamed.name, renamed.name_key, other.id);
    write(loser === incoming ? renamed : null);
  } catch (e) {
    db.exec('ROLLBACK TO sync_name');
    db.exec('RELEASE sync_name');
    const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '';
    if (code.startsWith('SQLITE_CONSTRAINT')) return false;
    throw e;
  }
  db.exec('RELEASE sync_name');
  // this device's change (capture is off while applying), stamped at the next stamp point: later than both names
  const queue = cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`);
  queue.run(now, table, loser.id, 'name', renamed.name);
  queue.run(now, table, loser.id, 'name_key', renamed.name_key);
  let cells = queuedHere.get(db);
  if (!cells) queuedHere.set(db, (cells = new Set()));
  cells.add(`${table}\u0000${loser.id}\u0000name`).add(`${table}\u0000${loser.id}\u0000name_key`);
  if (lostHlc) recordRename(db, { tbl: table, row: loser.id, from: loser.name, to: renamed.name, device: maker ?? lostHlc.slice(-16), lostHlc, kept: winner.id }, now);
  return true;
}

/** The line that says a rename: "Two devices made a project “Errands”; Laptop's is now “Errands (Laptop)”". */
function renameLine(table: string, from: string, to: string, device: string): string {
  const word = NAME_RULES[table]?.word ?? 'row';
  return `Two devices made a ${word} “${from}”; ${device}'s is now “${to}”`;
}

/**
 * In sync_conflicts, a rename's `col` (no column has it): `lost_value` is JSON [old name, new name], `lost_hlc`
 * the stamp of the old name, `lost_device` the device that made the renamed row, `won_device` the id of the row
 * that kept the name. The task and event histories (listConflicts) leave these out.
 */
export const RENAMED = '_renamed';
const CONFLICTS_TABLE = 'sync_conflicts';

interface RenameRecord {
  tbl: string;
  /** The row renamed. */
  row: string;
  from: string;
  to: string;
  /** The device that made the renamed row (its name is in the new name). */
  device: string;
  /** The stamp of the renamed row's name as it stood: every device that sees the clash records it under it, once. */
  lostHlc: string;
  /** The row that kept the name. */
  kept: string;
}

function insertRename(db: Db, r: RenameRecord, at: string): boolean {
  return (
    cached(
      db,
      `INSERT OR IGNORE INTO sync_conflicts (tbl, row, col, lost_value, lost_hlc, lost_device, won_hlc, won_device, merged, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
    ).run(r.tbl, r.row, RENAMED, JSON.stringify([r.from, r.to]), r.lostHlc, r.device, r.lostHlc, r.kept, at).changes > 0
  );
}

/** Records a rename made here and sends the record, so every device says it (also those that never saw the clash). */
function recordRename(db: Db, r: RenameRecord, now: number): void {
  if (!insertRename(db, r, new Date(now).toISOString())) return;
  cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`).run(now, CONFLICTS_TABLE, r.lostHlc, 'record', JSON.stringify({ renamed: true, ...r }));
}

/** A rename record another device sent, checked field by field (it comes from a file on the target); taken in if whole. */
export function takeRenameRecord(db: Db, m: Message, value: Record<string, unknown>): void {
  const str = (k: string, max: number): string | null => {
    const v = value[k];
    return typeof v === 'string' && v.length > 0 && v.length <= max ? v : null;
  };
  const tbl = str('tbl', 64);
  const row = str('row', 128);
  const from = str('from', MAX_VALUE_CHARS);
  const to = str('to', MAX_VALUE_CHARS);
  const device = str('device', 16);
  const lostHlc = str('lostHlc', 128);
  const kept = str('kept', 128);
  if (!tbl || !Object.hasOwn(NAME_RULES, tbl) || !row || !from || !to || !device || !DEVICE_ID.test(device) || !lostHlc || !kept || m.row !== lostHlc || !parseHlc(lostHlc)) return;
  insertRename(db, { tbl, row, from, to, device, lostHlc, kept }, new Date().toISOString());
}

export interface RenameView {
  /** The one line: "Two devices made a project “Errands”; Laptop's is now “Errands (Laptop)”". */
  text: string;
  table: string;
  row: string;
  at: string;
}

const renameView = (db: Db, r: { tbl: string; row: string; lost_value: unknown; lost_device: string; recorded_at: string }): RenameView | null => {
  let names: unknown;
  try {
    names = JSON.parse(String(r.lost_value));
  } catch {
    return null;
  }
  if (!Array.isArray(names) || typeof names[0] !== 'string' || typeof names[1] !== 'string') return null;
  return { text: renameLine(r.tbl, names[0], names[1], deviceLabel(db, r.lost_device)), table: r.tbl, row: r.row, at: r.recorded_at };
};

/** Renames recorded here, newest first; `after`: only those recorded after that record id (a round's own). */
export function listRenames(db: Db, options: { limit?: number; after?: number } = {}): RenameView[] {
  const has = cached(db, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_conflicts'`).get();
  if (!has) return [];
  const rows = cached(db, `SELECT tbl, row, lost_value, lost_device, recorded_at FROM sync_conflicts WHERE col = ? AND id > ? ORDER BY id DESC LIMIT ?`).all(
    RENAMED,
    options.after ?? 0,
    options.limit ?? 50,
  ) as { tbl: string; row: string; lost_value: unknown; lost_device: string; recorded_at: string }[];
  return rows.map((r) => renameView(db, r)).filter((v): v is RenameView => v !== null);
}

/** The newest record id of sync_conflicts (0 without any): a round's renames are those after it. */
export function lastRecord(db: Db): number {
  const has = cached(db, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_conflicts'`).get();
  if (!has) return 0;
  return (cached(db, `SELECT COALESCE(MAX(id), 0) AS n FROM sync_conflicts`).get() as { n: number }).n;
}

export { deviceLabel, makerOf, NAME_RULES };
