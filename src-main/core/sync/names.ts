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
import { MAX_NAME, nameKey } from '../domain/text';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { EXISTS_COLUMN } from '../store/sync-capture';
import { parseHlc } from './hlc';
import { DEVICE_ID } from './layout';
import { MAX_VALUE_CHARS, type Message, type Value } from './messages';

interface NameRule {
  /** Columns the name is unique within (a section's name within its project). */
  scope: readonly string[];
  /** Unique among live rows only (`archived_at IS NULL`); false: among all rows. */
  live: boolean;
  /** The row in words, for the line that says it. */
  word: string;
}

/** Every unique name index of the schema (a test checks this against the database's own indexes). */
export const NAME_RULES: Readonly<Record<string, NameRule>> = {
  projects: { scope: [], live: true, word: 'project' },
  lists: { scope: [], live: true, word: 'list' },
  calendars: { scope: [], live: true, word: 'calendar' },
  routines: { scope: [], live: true, word: 'routine' },
  sections: { scope: ['project_id'], live: true, word: 'section' },
  labels: { scope: [], live: false, word: 'label' },
  filters: { scope: [], live: false, word: 'saved filter' },
};

type Values = Record<string, Value | undefined>;

interface Named {
  id: string;
  name: string;
  created_at: string;
  builtin: boolean;
}

/** The live row here that already has the name `row` (as it would be written) asks for, if any. */
function clashOf(db: Db, table: string, rule: NameRule, row: Values & { id: string }): Named | null {
  const key = row['name_key'];
  if (typeof key !== 'string') return null;
  if (rule.live && row['archived_at'] !== null && row['archived_at'] !== undefined) return null;
  const where = [`name_key = ?`, `id != ?`, ...rule.scope.map((c) => `${c} IS ?`), ...(rule.live ? ['archived_at IS NULL'] : [])];
  const hit = cached(db, `SELECT id, name, created_at${table === 'projects' ? ', builtin' : ', 0 AS builtin'} FROM ${table} WHERE ${where.join(' AND ')} LIMIT 1`).get(
    key,
    row.id,
    ...rule.scope.map((c) => row[c] ?? null),
  ) as { id: string; name: string; created_at: string; builtin: number } | undefined;
  return hit ? { id: hit.id, name: hit.name, created_at: hit.created_at, builtin: hit.builtin === 1 } : null;
}

/** Whether `a` was made after `b`: the later creation time, then the larger id (a built-in row is never the later). */
function madeLater(a: Named, b: Named): boolean {
  if (a.builtin !== b.builtin) return b.builtin;
  if (a.created_at !== b.created_at) return a.created_at > b.created_at;
  return a.id > b.id;
}

/**
 * The device that made a row: the device part of its id (`p12.3f9a0c`), else the device whose stamp its
 * existence carries (rows made before sync was set up). Null when neither is known here.
 */
export function makerOf(db: Db, table: string, id: string): string | null {
  const part = /\.([0-9a-f]{6})$/.exec(id)?.[1];
  if (part) {
    const d = cached(db, `SELECT device FROM sync_devices WHERE substr(device, 1, 6) = ? ORDER BY forgotten, device LIMIT 1`).get(part) as { device: string } | undefined;
    if (d) return d.device;
  }
  const cell = cached(db, `SELECT hlc FROM sync_cells WHERE tbl = ? AND row = ? AND col = ?`).get(table, id, EXISTS_COLUMN) as { hlc: string } | undefined;
  return cell ? cell.hlc.slice(-16) : null;
}

/**
 * A device in words: its name, with the first six digits of its id when another device known here has the
 * same name ("vm 3f9a0c": two machines both left at the host name), so a rename's suffix says which.
 */
export function deviceLabel(db: Db, device: string | null): string {
  if (!device) return 'another device';
  const r = cached(db, `SELECT name FROM sync_devices WHERE device = ?`).get(device) as { name: string | null } | undefined;
  const name = r?.name?.trim();
  if (!name) return `device ${device.slice(0, 6)}`;
  // compared as service.ts compares device names (any case, also outside ASCII)
  const key = name.toLowerCase();
  const others = cached(db, `SELECT name FROM sync_devices WHERE device != ? AND name IS NOT NULL`).all(device) as { name: string }[];
  return others.some((o) => o.name.trim().toLowerCase() === key) ? `${name} ${device.slice(0, 6)}` : name;
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

/** "Errands (Laptop)", or "Errands (Laptop) 2" … : the first such name no row in the scope has (nor `also`). */
function freeName(db: Db, table: string, rule: NameRule, base: string, device: string, scope: Values, also: string): string {
  const where = [`name_key = ?`, ...rule.scope.map((c) => `${c} IS ?`), ...(rule.live ? ['archived_at IS NULL'] : [])];
  const taken = cached(db, `SELECT 1 FROM ${table} WHERE ${where.join(' AND ')} LIMIT 1`);
  const scopeValues = rule.scope.map((c) => scope[c] ?? null);
  for (let n = 1; ; n++) {
    const tail = ` (${device})${n > 1 ? ` ${n}` : ''}`;
    // a long name is shortened so the whole stays within a name's length
    const head = base.length + tail.length > MAX_NAME ? base.slice(0, Math.max(1, MAX_NAME - tail.length)).trimEnd() : base;
    const name = `${head}${tail}`;
    const key = nameKey(name);
    if (key !== also && taken.get(key, ...scopeValues) === undefined) return name;
  }
}

/**
 * The name a row coming back (an undo or a redo) takes when its own is taken now, by sync or by a row made since:
 * "Errands (Laptop)" after the device that made it, as above, while sync is on; "Errands 2" without sync. Null
 * when its name is free (or it has none).
 */
export function nameBack(db: Db, table: string, row: Values & { id: string }): { name: string; name_key: string } | null {
  const rule = NAME_RULES[table];
  if (!rule || typeof row['name'] !== 'string' || !clashOf(db, table, rule, row)) return null;
  const syncing = cached(db, `SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_state'`).get() !== undefined && cached(db, `SELECT 1 FROM sync_state`).get() !== undefined;
  let name: string;
  if (syncing) name = freeName(db, table, rule, row['name'], deviceLabel(db, makerOf(db, table, row.id)), row, '');
  else {
    const where = [`name_key = ?`, `id != ?`, ...rule.scope.map((c) => `${c} IS ?`), ...(rule.live ? ['archived_at IS NULL'] : [])];
    const taken = cached(db, `SELECT 1 FROM ${table} WHERE ${where.join(' AND ')} LIMIT 1`);
    for (let n = 2; ; n++) {
      const tail = ` ${n}`;
      const head = row['name'].length + tail.length > MAX_NAME ? row['name'].slice(0, Math.max(1, MAX_NAME - tail.length)).trimEnd() : row['name'];
      name = `${head}${tail}`;
      if (taken.get(nameKey(name), row.id, ...rule.scope.map((c) => row[c] ?? null)) === undefined) break;
    }
  }
  return { name, name_key: nameKey(name) };
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
