/**
 * A database file is not trusted because it says it is Tidy's: a restored backup, an imported file or a
 * file someone else wrote into may carry a trigger (one that writes an MCP server into the settings on the
 * next `tidy add`), a view where a table was, a dropped table, rows that refer to nothing or an id counter
 * at the end of its range. Before anything is written to a file, its schema (tables, columns, indexes,
 * triggers, views) is compared with the one Tidy's own migrations build for the file's user_version — a
 * reference built in memory by running those migrations — and any difference is refused in one line
 * naming the first one. The search index's triggers are the exception: they are made from the entity
 * registry at every open (search-index.ts), so a file's own are never run; they are replaced instead.
 */
import Database from 'better-sqlite3';
import type { Migration } from './migrations';

type Db = Database.Database;

export interface SchemaEntry {
  type: string;
  name: string;
  table: string;
  sql: string | null;
}

/**
 * The largest id counter or sequence Tidy accepts (2^50, about 10^15): ids become JavaScript numbers,
 * exact up to 2^53, and SQLite's integers end at 2^63; a counter near either is an attack, not use.
 */
export const MAX_COUNTER = 2 ** 50;

/** Entries Tidy does not compare: statistics ANALYZE writes, and the search and sync capture triggers (dropped and made again at every open, never run as found). */
const ignored = (e: SchemaEntry): boolean =>
  /^sqlite_stat\d$/.test(e.name) || (e.type === 'trigger' && (e.name.startsWith('search_') || e.name.startsWith('sync_capture_')));

const normal = (sql: string | null): string | null => (sql === null ? null : sql.replace(/\s+/g, ' ').trim());

/** The schema of `schema` (main, or an attached name) as sqlite_master lists it, in creation order. */
export function readSchema(db: Db, schema = 'main'): SchemaEntry[] {
  return (db.prepare(`SELECT type, name, tbl_name AS "table", sql FROM "${schema}".sqlite_master ORDER BY rowid`).all() as SchemaEntry[]).map((e) => ({
    ...e,
    sql: normal(e.sql),
  }));
}

const references = new WeakMap<readonly Migration[], Map<string, SchemaEntry[]>>();

/**
 * The schema Tidy's migrations build up to `version`, from an in-memory database (built once per version
 * and process). `nativeBinding`: the desktop app's better-sqlite3 binary.
 */
export function referenceSchema(version: number, migrations: readonly Migration[], nativeBinding?: string): SchemaEntry[] {
  let cache = references.get(migrations);
  if (!cache) references.set(migrations, (cache = new Map()));
  const key = `${version}:${nativeBinding ?? ''}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const db = new Database(':memory:', nativeBinding ? { nativeBinding } : {});
  try {
    db.pragma('foreign_keys = OFF');
    db.transaction(() => {
      for (const m of migrations) if (m.version <= version) m.up(db);
    })();
    const schema = readSchema(db);
    cache.set(key, schema);
    return schema;
  } finally {
    db.close();
  }
}

const label = (e: SchemaEntry): string => (e.type === 'trigger' ? `trigger ${e.name} on ${e.table}` : e.type === 'index' ? `index ${e.name} on ${e.table}` : `${e.type} ${e.name}`);

interface Column {
  name: string;
  type: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
  hidden: number;
}

function columns(db: Db, schema: string, table: string): Column[] | null {
  try {
    return db.prepare(`SELECT name, type, "notnull", dflt_value, pk, hidden FROM pragma_table_xinfo(?, ?)`).all(table, schema) as Column[];
  } catch {
    return null;
  }
}

/** The first column that differs, in words, or null when the columns are the same. */
function columnDifference(file: Column[], ref: Column[], table: string): string | null {
  for (let i = 0; i < Math.max(file.length, ref.length); i++) {
    const f = file[i];
    const r = ref[i];
    if (!f) return `table ${table} lacks the column ${r!.name}`;
    if (!r) return `table ${table} has a column ${f.name} that Tidy's does not`;
    if (f.name !== r.name) return `table ${table} has the column ${f.name} where Tidy's has ${r.name}`;
    if (f.type !== r.type || f.notnull !== r.notnull || f.dflt_value !== r.dflt_value || f.pk !== r.pk || f.hidden !== r.hidden)
      return `table ${table}'s column ${f.name} is declared differently (${f.type || 'no type'}${f.notnull ? ' NOT NULL' : ''}${f.dflt_value !== null ? ` DEFAULT ${f.dflt_value}` : ''})`;
  }
  return null;
}

/**
 * The first difference between the schema of `schema` in `db` and Tidy's own for `version`, in words
 * ("it has a trigger evil on tasks that Tidy's schema 10 does not have"), or null when they are the same.
 */
export function schemaDifference(db: Db, version: number, migrations: readonly Migration[], options: { schema?: string; nativeBinding?: string } = {}): string | null {
  const schema = options.schema ?? 'main';
  const have = readSchema(db, schema).filter((e) => !ignored(e));
  const want = referenceSchema(version, migrations, options.nativeBinding).filter((e) => !ignored(e));
  const byName = new Map(have.map((e) => [e.name, e]));
  const wanted = new Set(want.map((e) => e.name));
  for (const r of want) {
    const f = byName.get(r.name);
    if (!f) return `its ${label(r)} is missing`;
    if (f.type !== r.type) return `${r.name} is a ${f.type} where Tidy's schema ${version} has a ${r.type}`;
    if (f.table !== r.table) return `its ${r.type} ${r.name} is on ${f.table}, not on ${r.table}`;
    if (f.sql !== r.sql) {
      if (r.type === 'table') {
        const fc = columns(db, schema, f.name);
        const rc = referenceColumns(version, migrations, r.name, options.nativeBinding);
        const diff = fc && rc ? columnDifference(fc, rc, r.name) : null;
        if (diff) return diff;
      }
      return `its ${label(r)} is defined differently from Tidy's schema ${version}`;
    }
  }
  for (const f of have) if (!wanted.has(f.name)) return `it has a ${label(f)} that Tidy's schema ${version} does not have`;
  return null;
}

function referenceColumns(version: number, migrations: readonly Migration[], table: string, nativeBinding?: string): Column[] | null {
  const db = new Database(':memory:', nativeBinding ? { nativeBinding } : {});
  try {
    db.pragma('foreign_keys = OFF');
    for (const m of migrations) if (m.version <= version) m.up(db);
    return columns(db, 'main', table);
  } finally {
    db.close();
  }
}

/**
 * What else makes a file unusable though its schema is right: an id counter or AUTOINCREMENT sequence past
 * MAX_COUNTER (the next id would overflow or lose precision), and, when `references` is set, a row that
 * refers to a missing one (foreign_key_check, which reads every referring table). Null when none.
 */
export function contentProblem(db: Db, options: { schema?: string; references: boolean }): string | null {
  const s = options.schema ?? 'main';
  const has = (name: string): boolean => db.prepare(`SELECT 1 FROM "${s}".sqlite_master WHERE type = 'table' AND name = ?`).get(name) !== undefined;
  if (has('id_counters')) {
    const c = db.prepare(`SELECT kind, next FROM "${s}".id_counters WHERE typeof(next) != 'integer' OR next > ? OR next < 1 LIMIT 1`).safeIntegers(true).get(MAX_COUNTER) as
      | { kind: unknown; next: unknown }
      | undefined;
    if (c) return `its id counter for "${String(c.kind).slice(0, 20)}" is at ${String(c.next).slice(0, 30)}, past what Tidy can count (${MAX_COUNTER})`;
  }
  if (has('sqlite_sequence')) {
    const q = db.prepare(`SELECT name, seq FROM "${s}".sqlite_sequence WHERE typeof(seq) != 'integer' OR seq > ? LIMIT 1`).safeIntegers(true).get(MAX_COUNTER) as
      | { name: unknown; seq: unknown }
      | undefined;
    if (q) return `its sequence for ${String(q.name).slice(0, 40)} is at ${String(q.seq).slice(0, 30)}, past what Tidy can count (${MAX_COUNTER})`;
  }
  if (options.references) {
    const broken = db.prepare(`SELECT "table", rowid, parent FROM pragma_foreign_key_check(NULL, ?) LIMIT 1`).get(s) as
      | { table: string; rowid: number | null; parent: string }
      | undefined;
    if (broken) return `a row of ${broken.table}${broken.rowid !== null ? ` (rowid ${broken.rowid})` : ''} refers to a missing row of ${broken.parent}`;
  }
  return null;
}
