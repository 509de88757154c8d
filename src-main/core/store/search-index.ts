/**
 * The full-text index (SQLite FTS5) over every searchable entity of the registry (store/entities.ts).
 * `search_docs` maps (kind, id) to a document id, `search_text` holds the text under that id. Triggers,
 * not application code, keep it in sync, because undo writes rows directly (restoreRow) and must leave the
 * index right too. The triggers are made from the registry when a database opens: an entity that becomes
 * searchable gets its triggers and its rows indexed then, with no migration.
 */
import type Database from 'better-sqlite3';
import { ENTITIES, type EntityDef } from './entities';

/** A connection (the type store/db.ts names Db; not imported from there, which imports this module). */
type Db = Database.Database;

/**
 * A table whose text is indexed: the registry's searchable entities, and the conversations (their titles,
 * and the user's messages and the answers, not tool results) so that a chat can be found again.
 */
interface Source {
  table: string;
  /** The kind in search_docs (the table's name unless a table has two indexed columns). */
  kind?: string;
  /** The column that identifies a row (stored as text in search_docs.ref). */
  key: string;
  column: string;
  /** Only rows where this holds (SQL over the row's columns, unqualified). */
  where?: string;
}

const CONVERSATION_SOURCES: readonly Source[] = [
  { table: 'conversations', key: 'id', column: 'title' },
  { table: 'messages', key: 'seq', column: 'content', where: `role IN ('user', 'assistant') AND content IS NOT NULL` },
];

const qualify = (where: string, row: 'new' | 'old'): string => where.replace(/\b(role|content|description)\b/g, `${row}.$1`);

/** A task's description is found as the task is (domain/search.ts). */
const EXTRA_SOURCES: readonly Source[] = [
  { table: 'tasks', kind: 'task_descriptions', key: 'id', column: 'description', where: 'description IS NOT NULL' },
];

function triggers(src: Source): { name: string; sql: string }[] {
  const { key, column: col } = src;
  const table = src.kind ?? src.table;
  const on = src.table;
  const doc = (row: 'new' | 'old') => `(SELECT docid FROM search_docs WHERE kind = '${table}' AND ref = ${row}.${key})`;
  const when = (row: 'new' | 'old') => (src.where ? ` WHEN ${qualify(src.where, row)}` : '');
  const remove = (row: 'new' | 'old') => `DELETE FROM search_text WHERE rowid = ${doc(row)};
  DELETE FROM search_docs WHERE kind = '${table}' AND ref = ${row}.${key};`;
  const add = (row: 'new' | 'old') => `INSERT INTO search_docs (kind, ref) VALUES ('${table}', ${row}.${key});
  INSERT INTO search_text (rowid, text) VALUES (last_insert_rowid(), ${row}.${col});`;
  const list = [
    { name: `search_${table}_insert`, sql: `CREATE TRIGGER search_${table}_insert AFTER INSERT ON ${on}${when('new')} BEGIN\n  ${add('new')}\nEND` },
    { name: `search_${table}_delete`, sql: `CREATE TRIGGER search_${table}_delete AFTER DELETE ON ${on} BEGIN\n  ${remove('old')}\nEND` },
  ];
  // A row that may enter or leave the index on an update is removed and added again; otherwise its text is replaced in place.
  list.splice(1, 0, {
    name: `search_${table}_update`,
    sql: src.where
      ? `CREATE TRIGGER search_${table}_update AFTER UPDATE OF ${col} ON ${on} BEGIN\n  ${remove('old')}\n  INSERT INTO search_docs (kind, ref) SELECT '${table}', new.${key} WHERE ${qualify(src.where, 'new')};\n  INSERT INTO search_text (rowid, text) SELECT last_insert_rowid(), new.${col} WHERE ${qualify(src.where, 'new')};\nEND`
      : `CREATE TRIGGER search_${table}_update AFTER UPDATE OF ${col} ON ${on} BEGIN\n  UPDATE search_text SET text = new.${col} WHERE rowid = ${doc('new')};\nEND`,
  });
  return list;
}

/** The indexed tables that exist: a database built by a prefix of the migrations (tests) lacks the newer ones. */
function sources(db: Db): Source[] {
  const all: Source[] = [
    ...(ENTITIES as readonly EntityDef[])
      .filter((e): e is EntityDef & { search: { column: string } } => e.search !== undefined)
      .map((e) => ({ table: e.table, key: 'id', column: e.search.column })),
    ...EXTRA_SOURCES,
    ...CONVERSATION_SOURCES,
  ];
  const present = new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name));
  const hasColumn = (s: Source): boolean => (db.pragma(`table_info(${s.table})`) as { name: string }[]).some((c) => c.name === s.column);
  return all.filter((s) => present.has(s.table) && hasColumn(s));
}

const TRIGGERS = `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search\\_%' ESCAPE '\\'`;

/** Whether the index's triggers are what the registry says (read-only: a check before anything is written). */
/**
 * The model's words as an FTS5 query: each word a quoted prefix term, all required. Quoting makes any
 * input safe (FTS5 syntax such as `-`, `:`, `"` or NEAR is never interpreted).
 */
export function ftsQuery(text: string): string | null {
  const words = text.normalize('NFC').match(/[\p{L}\p{N}]+/gu);
  return words ? words.map((w) => `"${w}"*`).join(' ') : null;
}

export function searchIndexCurrent(db: Db): boolean {
  const have = new Map((db.prepare(TRIGGERS).all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const want = sources(db).flatMap(triggers);
  return want.length === have.size && want.every((t) => have.get(t.name) === t.sql);
}

/** Makes the triggers match the registry and rebuilds the index, in one transaction; nothing when they match. */
export function syncSearchIndex(db: Db): void {
  if (searchIndexCurrent(db)) return;
  db.transaction(() => {
    dropSearchTriggers(db);
    db.exec(`DELETE FROM search_text; DELETE FROM search_docs;`);
    for (const src of sources(db)) {
      const where = src.where ? `WHERE ${src.where}` : '';
      const kind = src.kind ?? src.table;
      db.prepare(`INSERT INTO search_docs (kind, ref) SELECT ?, ${src.key} FROM ${src.table} ${where} ORDER BY rowid`).run(kind);
      db.prepare(
        `INSERT INTO search_text (rowid, text) SELECT d.docid, x.${src.column} FROM search_docs d JOIN ${src.table} x ON x.${src.key} = d.ref WHERE d.kind = ?`,
      ).run(kind);
      for (const t of triggers(src)) db.exec(t.sql);
    }
  }).immediate();
}

/** Drops every trigger named like the index's (a file's own are never run; syncSearchIndex makes them again). */
export function dropSearchTriggers(db: Db): void {
  for (const { name } of db.prepare(TRIGGERS).all() as { name: string }[]) db.exec(`DROP TRIGGER "${name.replace(/"/g, '""')}"`);
}
