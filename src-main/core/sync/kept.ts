// A row kept by sync although an undo on another device removed it. Laptop undoes the creation of the project
// "Errands" while Desktop, not synced yet, adds a task to it: Laptop's delete cannot be applied on Desktop (its
// task points at the project), and Desktop's task cannot be written on Laptop (its project is gone). The rule:
// a deletion that a device cannot apply because live rows still point at the row keeps the row. That device
// (every device that meets the case makes the same decision) sends the row back as its own change (`_exists`
// = 1 and every column, stamped later than the delete), so the row comes back where it was removed and the
// task that waited for it is written; nothing the user made is lost. The action log says it too: the row's
// return is an action of its own ("Kept project “Errands”: …", created, not a redo), whose id, request and
// images are made from the undo that removed the row alone, so every device that makes it makes the same row
// (the action log's rows are written once; equal rows converge). That undo stays in effect for what else it
// did; to remove the row after all, undo the kept action with --cascade (it undoes the new task first). The
// case is recorded in sync_conflicts (`_kept`) and said where renames are: `tidy sync`, Settings → Sync.
// Same rule for every parent and child: sections, tasks and memories in projects, items in lists, events in
// calendars, a task's labels, comments and subtasks.
import { KINDS, type EntityKind } from '../../../src-shared/entities';
import type { Db } from '../store/db';
import { TRACKED_TABLES, entity } from '../store/entities';
import { cached } from '../store/statements';
import { EXISTS_COLUMN, syncedColumns } from '../store/sync-capture';
import { parseHlc } from './hlc';
import { DEVICE_ID } from './layout';
import type { Message, Value } from './messages';
import { deviceLabel, listRenames, makerOf, type RenameView } from './names';

/** In sync_conflicts, a kept row's `col`: `lost_value` is JSON [the row's name, the child's table], `lost_hlc` the delete's stamp, `lost_device` the device that made the child, `won_device` the undo's action id. */
export const KEPT = '_kept';

interface ActionLike {
  id: string;
  request_id: string;
  source: string;
  created_at: string;
  changes: string;
}

/** The in-effect action here whose change removed this row (an undo of its creation), with the row as it was; null when it has not arrived yet. */
function removerOf(db: Db, table: string, row: string): { action: ActionLike; image: Record<string, Value> } | null {
  const rows = cached(
    db,
    `SELECT a.id, a.request_id, a.source, a.created_at, a.changes FROM action_entities e JOIN actions a ON a.seq = e.action_seq WHERE e.entity = ? ORDER BY e.action_seq DESC`,
  ).all(`${table}:${row}`) as ActionLike[];
  for (const a of rows) {
    let changes: unknown;
    try {
      changes = JSON.parse(a.changes);
    } catch {
      continue;
    }
    if (!Array.isArray(changes)) continue;
    for (const c of changes as { table?: unknown; id?: unknown; before?: unknown; after?: unknown }[])
      if (c.table === table && c.id === row && c.after === null && c.before !== null && typeof c.before === 'object') return { action: a, image: c.before as Record<string, Value> };
  }
  return null;
}

/** A live row here that points at the row (any foreign key of the registry's tables), with the device that made it. */
function childOf(db: Db, table: string, row: string): { table: string; id: string } | null {
  for (const t of TRACKED_TABLES) {
    for (const fk of db.pragma(`foreign_key_list(${t})`) as { table: string; from: string; to: string }[]) {
      if (fk.table !== table) continue;
      const hit = cached(db, `SELECT id FROM ${t} WHERE ${fk.from} = ? LIMIT 1`).get(row) as { id: string } | undefined;
      if (hit) return { table: t, id: hit.id };
    }
  }
  return null;
}

const kindOf = (table: string): EntityKind | null => (Object.keys(KINDS) as EntityKind[]).find((k) => KINDS[k].table === table) ?? null;

/**
 * A received deletion of `row` broke a foreign key here (inside the apply transaction, capture off): keeps the
 * row, queues its return as this device's change, logs the kept action and records the case. False for a row
 * not of the registry's tables.
 */
export function keepRow(db: Db, table: string, row: string, deleteHlc: string, now: number): boolean {
  if (!(TRACKED_TABLES as readonly string[]).includes(table)) return false;
  const remover = removerOf(db, table, row);
  const current = cached(db, `SELECT * FROM ${table} WHERE id = ?`).get(row) as Record<string, Value> | undefined;
  if (!current) return false;
  const queue = cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`);
  // the row comes back on the devices that removed it: all its columns, later than the delete
  queue.run(now, table, row, EXISTS_COLUMN, 1);
  for (const c of syncedColumns(db, table)) queue.run(now, table, row, c, current[c] ?? null);
  // the undo that removed it is in the log here (it travels in the same batch as its changes, unless the batch
  // was cut between them or the change is one a large action keeps on its own device): the kept action
  if (remover) logKept(db, table, row, remover.action, remover.image, now);
  const child = childOf(db, table, row);
  const image = remover?.image ?? current;
  const name = String(image['name'] ?? image['title'] ?? image['content'] ?? image['text'] ?? row);
  const device = child ? (makerOf(db, child.table, child.id) ?? '') : '';
  recordKept(db, { tbl: table, row, name, child: child?.table ?? '', device: DEVICE_ID.test(device) ? device : '', deleteHlc, action: remover?.action.id ?? '' }, now);
  return true;
}

/** The kept action's id: the undo's, then the row's (the same on every device that makes it). */
export const keptActionId = (undo: string, row: string): string => `${undo}+${row}`;

function logKept(db: Db, table: string, row: string, undo: ActionLike, image: Record<string, Value>, now: number): void {
  const id = keptActionId(undo.id, row);
  if (cached(db, `SELECT 1 FROM actions WHERE id = ?`).get(id) !== undefined) return;
  const word = entity(table).word;
  const name = typeof image['name'] === 'string' ? image['name'] : null;
  const summary = `Kept ${word}${name ? ` “${name}”` : ` ${row}`}: another device added to it while it was being undone`;
  const what = { verb: 'created', kind: kindOf(table), id: row, name, count: 1, reverses: null };
  const changes = [{ table, id: row, before: null, after: image }];
  const info = cached(
    db,
    `INSERT INTO actions (id, request_id, source, tool, args, result, changes, summary, what, created_at, undone_at, undoes) VALUES (?, ?, ?, 'sync.keep', ?, NULL, ?, ?, ?, ?, NULL, NULL)`,
  ).run(id, id, undo.source, JSON.stringify({ table, id: row, undo: undo.id }), JSON.stringify(changes), summary, JSON.stringify(what), undo.created_at);
  cached(db, `INSERT OR IGNORE INTO action_entities (entity, action_seq) VALUES (?, ?)`).run(`${table}:${row}`, info.lastInsertRowid);
  // this device's change (capture is off while applying): the action row whole, as capture would send it
  const written = cached(db, `SELECT * FROM actions WHERE id = ?`).get(id) as Record<string, Value>;
  const queue = cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`);
  queue.run(now, 'actions', id, EXISTS_COLUMN, 1);
  for (const c of syncedColumns(db, 'actions')) queue.run(now, 'actions', id, c, written[c] ?? null);
}

export interface KeptRecord {
  tbl: string;
  row: string;
  /** The row's name (or text) as the undo removed it. */
  name: string;
  /** The table of a row that pointed at it ('' when none is known). */
  child: string;
  /** The device that made that row ('' when not known). */
  device: string;
  /** The delete's stamp: every device that keeps the row records it under it, once. */
  deleteHlc: string;
  /** The undo that removed the row. */
  action: string;
}

function insertKept(db: Db, r: KeptRecord, at: string): boolean {
  return (
    cached(
      db,
      `INSERT OR IGNORE INTO sync_conflicts (tbl, row, col, lost_value, lost_hlc, lost_device, won_hlc, won_device, merged, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`,
    ).run(r.tbl, r.row, KEPT, JSON.stringify([r.name, r.child]), r.deleteHlc, r.device, r.deleteHlc, r.action, at).changes > 0
  );
}

function recordKept(db: Db, r: KeptRecord, now: number): void {
  if (!insertKept(db, r, new Date(now).toISOString())) return;
  cached(db, `INSERT INTO sync_outbox (at, tbl, row, col, value) VALUES (?, ?, ?, ?, ?)`).run(now, 'sync_conflicts', r.deleteHlc, 'record', JSON.stringify({ kept: true, ...r }));
}

/** A received record of a kept row (`{"kept":true,…}`), checked field by field (it comes from a file on the target); true when it was one. */
export function takeKeptRecord(db: Db, m: Message): boolean {
  if (m.column !== 'record' || typeof m.value !== 'string' || !m.value.startsWith('{"kept":true')) return false;
  let v: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(m.value);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return true;
    v = parsed as Record<string, unknown>;
  } catch {
    return true;
  }
  const str = (k: string, max: number, empty = false): string | null => {
    const x = v[k];
    return typeof x === 'string' && (empty || x.length > 0) && x.length <= max ? x : null;
  };
  const tbl = str('tbl', 64);
  const row = str('row', 128);
  const name = str('name', 1000);
  const child = str('child', 64, true);
  const device = str('device', 16, true);
  const deleteHlc = str('deleteHlc', 128);
  const action = str('action', 300, true);
  if (!tbl || !(TRACKED_TABLES as readonly string[]).includes(tbl) || !row || name === null || child === null || (child !== '' && !(TRACKED_TABLES as readonly string[]).includes(child))) return true;
  if (device === null || (device !== '' && !DEVICE_ID.test(device)) || !deleteHlc || m.row !== deleteHlc || !parseHlc(deleteHlc) || action === null) return true;
  insertKept(db, { tbl, row, name, child, device, deleteHlc, action }, new Date().toISOString());
  return true;
}

const capital = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The line that says it: "Project “Errands” kept: Desktop added a task to it; the undo that removed it is overridden". */
export function keptLine(db: Db, r: { tbl: string; name: string; child: string; device: string }): string {
  const who = r.device ? deviceLabel(db, r.device) : 'another device';
  const what = r.child ? `a ${kindOf(r.child) ? KINDS[kindOf(r.child)!].noun : 'row'}` : 'something';
  return `${capital(entity(r.tbl).word)} “${r.name}” kept: ${who} added ${what} to it; the undo that removed it is overridden`;
}

/** What sync settled here, newest first: names it renamed (sync/names.ts) and rows it kept. `after`: only records after that id. */
export function listSettled(db: Db, options: { limit?: number; after?: number } = {}): RenameView[] {
  const renames = listRenames(db, options);
  const has = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'sync_conflicts'`).get();
  if (!has) return renames;
  const rows = cached(db, `SELECT id, tbl, row, lost_value, lost_device, recorded_at FROM sync_conflicts WHERE col = ? AND id > ? ORDER BY id DESC LIMIT ?`).all(
    KEPT,
    options.after ?? 0,
    options.limit ?? 50,
  ) as { id: number; tbl: string; row: string; lost_value: unknown; lost_device: string; recorded_at: string }[];
  if (rows.length === 0) return renames;
  const kept: RenameView[] = [];
  for (const r of rows) {
    let v: unknown;
    try {
      v = JSON.parse(String(r.lost_value));
    } catch {
      continue;
    }
    if (!Array.isArray(v) || typeof v[0] !== 'string' || typeof v[1] !== 'string' || !(TRACKED_TABLES as readonly string[]).includes(r.tbl)) continue;
    kept.push({ text: keptLine(db, { tbl: r.tbl, name: v[0], child: v[1], device: r.lost_device }), table: r.tbl, row: r.row, at: r.recorded_at });
  }
  return [...renames, ...kept].sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0)).slice(0, options.limit ?? 50);
}

