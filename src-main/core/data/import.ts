/**
 * `tidy import tidy FILE`: reads a JSON export (./schema.ts) back into an empty database, exactly: same
 * ids, same timestamps, same log. All in one transaction: on any error nothing is imported.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { z } from 'zod';
import { StoreError, type Db } from '../store/db';
import { backfillActionWhat, LATEST_VERSION, upgradeEventImagesTo15, upgradeTaskImagesTo12, upgradeTasksTo6 } from '../store/migrations';
import { COLLECTIONS, EXPORT_FORMAT, EXPORT_VERSION, exportSchema, type ExportData } from './schema';

/** A larger file is refused before it is read: JSON.parse needs the whole text in memory, several times over. */
export const MAX_IMPORT_BYTES = 256 * 1024 * 1024;

export class ImportError extends StoreError {
  override name = 'ImportError';
}

export interface ImportSummary {
  counts: Record<string, number>;
}

function readText(path: string, maxBytes: number): string {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile()) throw new ImportError(`${path} is not a file; pass the path of a file made by \`tidy export --format json\``);
    size = st.size;
  } catch (e) {
    if (e instanceof ImportError) throw e;
    throw new ImportError(`cannot read ${path}; pass the path of a file made by \`tidy export --format json\``);
  }
  if (size > maxBytes)
    throw new ImportError(`${path} is ${(size / 1048576).toFixed(0)} MB, more than the ${(maxBytes / 1048576).toFixed(0)} MB Tidy imports; nothing was imported`);
  const buf = Buffer.alloc(size);
  const fd = openSync(path, 'r');
  try {
    let off = 0;
    while (off < size) {
      const n = readSync(fd, buf, off, size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf.toString('utf8', 0, off);
  } finally {
    closeSync(fd);
  }
}

/** The first problem zod found, as one line naming where: "data.tasks[3].priority: …". */
function firstIssue(e: z.ZodError): string {
  const issue = e.issues[0];
  if (!issue) return 'the file does not match the export format';
  const where = issue.path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
  return `${where || 'the file'}: ${issue.message.split('\n')[0]!.slice(0, 200)}`;
}

/** Parses and checks an export's text; throws an ImportError with one line. */
export function parseExport(textIn: string, name = 'the file'): ExportData & { schemaVersion: number } {
  let raw: unknown;
  try {
    raw = JSON.parse(textIn);
  } catch (e) {
    const why = e instanceof RangeError ? 'nested too deeply' : (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 200);
    throw new ImportError(`${name} is not valid JSON (${why}); pass a file made by \`tidy export --format json\``);
  }
  const head = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  if (head['format'] !== EXPORT_FORMAT) throw new ImportError(`${name} is not a Tidy export (no "format": "${EXPORT_FORMAT}"); pass a file made by \`tidy export --format json\``);
  if (typeof head['version'] === 'number' && head['version'] > EXPORT_VERSION)
    throw new ImportError(`${name} is export version ${head['version']}, newer than this Tidy reads (${EXPORT_VERSION}); update Tidy to import it`);
  if (typeof head['schemaVersion'] === 'number' && head['schemaVersion'] > LATEST_VERSION)
    throw new ImportError(`${name} was written by a newer Tidy (schema ${head['schemaVersion']}; this Tidy knows up to ${LATEST_VERSION}); update Tidy to import it`);
  const parsed = exportSchema.safeParse(raw);
  if (!parsed.success) throw new ImportError(`${name} does not match the export format (${firstIssue(parsed.error)}); nothing was imported`);
  return { ...parsed.data.data, schemaVersion: parsed.data.schemaVersion };
}

/** Tables that hold the user's data: a database with rows in any of them (or a project beyond the inbox) is not empty. */
const USER_TABLES = ['tasks', 'sections', 'labels', 'comments', 'filters', 'memories', 'routines', 'lists', 'list_items', 'events', 'conversations', 'messages', 'runs', 'steps', 'actions', 'action_entities'];

export function isEmptyDatabase(db: Db): boolean {
  if (USER_TABLES.some((t) => db.prepare(`SELECT 1 FROM ${t} LIMIT 1`).get() !== undefined)) return false;
  return db.prepare(`SELECT 1 FROM projects WHERE builtin = 0 UNION ALL SELECT 1 FROM calendars WHERE kind != 'local' LIMIT 1`).get() === undefined;
}

const ID_LIKE = /^([a-z])(\d{1,15})$/;

/**
 * Imports an export file into `db`, which must be empty. Refuses a non-empty database, another format, a
 * newer version or any row that breaks the format or a reference, with an ImportError of one line; nothing
 * is written then.
 */
export function importTidyExport(db: Db, path: string, options: { maxBytes?: number } = {}): ImportSummary {
  const data = parseExport(readText(path, options.maxBytes ?? MAX_IMPORT_BYTES), path);
  const counts: Record<string, number> = {};
  try {
    db.transaction(() => {
      if (!isEmptyDatabase(db)) throw new ImportError(`the database is not empty; import into a new one (tidy --db NEW_FILE import tidy ${path}) — nothing was imported`);
      // The inbox a new database starts with is replaced by the exported one (with its own dates).
      if (data.projects.length > 0) db.prepare(`DELETE FROM projects WHERE builtin = 1`).run();
      if (data.calendars.length > 0) db.prepare(`DELETE FROM calendars WHERE kind = 'local'`).run();
      for (const c of COLLECTIONS) {
        const keys = Object.keys(c.columns);
        const bools = new Set(c.bools ?? []);
        const insert = db.prepare(`INSERT INTO ${c.table} (${Object.values(c.columns).join(', ')}) VALUES (${keys.map(() => '?').join(', ')})`);
        const rows = data[c.key] as Record<string, unknown>[];
        // A subtask may come before its parent in id order (t10 < t9): its parent is set once all tasks are in.
        const later = (k: string, row: Record<string, unknown>) => c.key === 'tasks' && k === 'parentId' && row[k] != null;
        // A column a file of an older schema does not have takes its default (null; positions are set below).
        for (const row of rows) insert.run(keys.map((k) => (later(k, row) ? null : bools.has(k) ? (row[k] ? 1 : 0) : (row[k] ?? (k === 'position' || k === 'spilled' ? 0 : null)))));
        if (c.key === 'tasks') {
          const parent = db.prepare(`UPDATE tasks SET parent_id = ? WHERE id = ?`);
          for (const row of rows) if (row['parentId'] != null) parent.run(row['parentId'], row['id']);
        }
        counts[c.key] = rows.length;
      }
      if (data.schemaVersion < 6) upgradeTasksTo6(db);
      backfillActionWhat(db); // entries of files from schema 10 and before have no `what`
      if (data.schemaVersion < 12) upgradeTaskImagesTo12(db);
      if (data.schemaVersion < 15) upgradeEventImagesTo15(db);
      if (!db.prepare(`SELECT 1 FROM projects WHERE id = 'inbox' AND builtin = 1`).get())
        throw new ImportError(`${path} has no inbox project (id "inbox", builtin); nothing was imported — pass a whole export`);
      const broken = db.pragma('foreign_key_check') as unknown[];
      if (broken.length > 0) throw new ImportError(`${path} has rows that refer to missing ones; nothing was imported`);

      // Counters: what the file says, but never below an id or seq already used, so none is handed out twice.
      const next = new Map<string, number>(Object.entries(data.counters.ids));
      const see = (value: string | null): void => {
        const m = value ? ID_LIKE.exec(value) : null;
        if (m) next.set(m[1]!, Math.max(next.get(m[1]!) ?? 0, Number(m[2]) + 1));
      };
      for (const r of data.projects) see(r.id);
      for (const r of data.tasks) see(r.id);
      for (const r of [...data.sections, ...data.labels, ...data.taskLabels, ...data.comments, ...data.filters, ...data.memories, ...data.routines]) see(r.id);
      for (const r of data.lists) see(r.id);
      for (const r of data.items) see(r.id);
      for (const r of data.calendars) see(r.id);
      for (const r of data.events) see(r.id);
      for (const r of data.conversations) see(r.id);
      for (const r of data.runs) see(r.id);
      for (const r of data.messages) see(r.id ?? null);
      // messages of a file from before schema 18 have no id: they get the next ones
      const giveId = db.prepare(`UPDATE messages SET id = ? WHERE seq = ?`);
      for (const { seq } of db.prepare(`SELECT seq FROM messages WHERE id IS NULL ORDER BY seq`).all() as { seq: number }[]) {
        const n = next.get('x') ?? 1;
        giveId.run(`x${n}`, seq);
        next.set('x', n + 1);
      }
      for (const r of data.actions) {
        see(r.id);
        see(r.requestId);
      }
      const setCounter = db.prepare(`INSERT INTO id_counters (kind, next) VALUES (?, ?) ON CONFLICT(kind) DO UPDATE SET next = max(next, excluded.next)`);
      for (const [kind, n] of [...next].sort(([a], [b]) => (a < b ? -1 : 1))) setCounter.run(kind, n);
      for (const [name, seq] of Object.entries(data.counters.sequences)) {
        if (seq === 0) continue;
        if (db.prepare(`SELECT 1 FROM sqlite_sequence WHERE name = ?`).get(name)) db.prepare(`UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?`).run(seq, name);
        else db.prepare(`INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)`).run(name, seq);
      }
    }).immediate();
  } catch (e) {
    if (e instanceof StoreError) throw e;
    const why = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 200);
    throw new ImportError(`${path} cannot be imported (${why}: two rows with one id, or a value the database refuses); nothing was imported`);
  }
  return { counts };
}
