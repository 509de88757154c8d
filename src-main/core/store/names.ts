// Names that must be unique (a project's, a list's, a section's within its project …): which they are, the row
// that already has a name, and the name a row takes when its own is taken — "Errands (Laptop)" after the
// device that made it while sync is on, "Errands 2" without sync. Sync settles a name two devices made with
// it (sync/names.ts), and an undo or redo that brings a row back under a name taken since (actions/undo.ts).
// Kept in store/ because both use it, and undo sits below sync.
import type { Db } from './db';
import { cached } from './statements';
import { EXISTS_COLUMN } from './sync-capture';

/** The longest name a row may have. */
export const MAX_NAME = 120;

/** The key a name is unique by (the `name_key` column): the same name in any case or Unicode form. */
export const nameKey = (name: string): string => name.normalize('NFKC').toLowerCase();

export interface NameRule {
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

export type Values = Record<string, unknown>;

export interface Named {
  id: string;
  name: string;
  created_at: string;
  builtin: boolean;
}

/** The live row here that already has the name `row` (as it would be written) asks for, if any. */
export function clashOf(db: Db, table: string, rule: NameRule, row: Values & { id: string }): Named | null {
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

/** "Errands (Laptop)", or "Errands (Laptop) 2" … : the first such name no row in the scope has (nor `also`). */
export function freeName(db: Db, table: string, rule: NameRule, base: string, device: string, scope: Values, also: string): string {
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
