/**
 * The full-text index (SQLite FTS5) over every searchable entity of the registry (store/entities.ts).
 * `search_docs` maps (kind, id) to a document id, `search_text` holds the text under that id. Triggers,
 * not application code, keep it in sync, because undo writes rows directly (restoreRow) and must leave the
 * index right too. The triggers are made from the registry when a database opens: an entity that becomes
 * searchable gets its triggers and its rows indexed then, with no migration.
 */
import type { Db } from './db';
import { ENTITIES, type EntityDef } from './entities';

function triggers(e: EntityDef & { search: { column: string } }): { name: string; sql: string }[] {
  const { table } = e;
  const col = e.search.column;
  const doc = (row: 'new' | 'old') => `(SELECT docid FROM search_docs WHERE kind = '${table}' AND ref = ${row}.id)`;
  return [
    {
      name: `search_${table}_insert`,
      sql: `CREATE TRIGGER search_${table}_insert AFTER INSERT ON ${table} BEGIN
  INSERT INTO search_docs (kind, ref) VALUES ('${table}', new.id);
  INSERT INTO search_text (rowid, text) VALUES (last_insert_rowid(), new.${col});
END`,
    },
    {
      name: `search_${table}_update`,
      sql: `CREATE TRIGGER search_${table}_update AFTER UPDATE OF ${col} ON ${table} BEGIN
  UPDATE search_text SET text = new.${col} WHERE rowid = ${doc('new')};
END`,
    },
    {
      name: `search_${table}_delete`,
      sql: `CREATE TRIGGER search_${table}_delete AFTER DELETE ON ${table} BEGIN
  DELETE FROM search_text WHERE rowid = ${doc('old')};
  DELETE FROM search_docs WHERE kind = '${table}' AND ref = old.id;
END`,
    },
  ];
}

const searchable = (): (EntityDef & { search: { column: string } })[] =>
  (ENTITIES as readonly EntityDef[]).filter((e): e is EntityDef & { search: { column: string } } => e.search !== undefined);

const TRIGGERS = `SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND name LIKE 'search\\_%' ESCAPE '\\'`;

/** Whether the index's triggers are what the registry says (read-only: a check before anything is written). */
export function searchIndexCurrent(db: Db): boolean {
  const have = new Map((db.prepare(TRIGGERS).all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const want = searchable().flatMap(triggers);
  return want.length === have.size && want.every((t) => have.get(t.name) === t.sql);
}

/** Makes the triggers match the registry and rebuilds the index, in one transaction; nothing when they match. */
export function syncSearchIndex(db: Db): void {
  if (searchIndexCurrent(db)) return;
  db.transaction(() => {
    for (const { name } of db.prepare(TRIGGERS).all() as { name: string }[]) db.exec(`DROP TRIGGER ${name}`);
    db.exec(`DELETE FROM search_text; DELETE FROM search_docs;`);
    for (const e of searchable()) {
      db.prepare(`INSERT INTO search_docs (kind, ref) SELECT ?, id FROM ${e.table} ORDER BY rowid`).run(e.table);
      db.prepare(
        `INSERT INTO search_text (rowid, text) SELECT d.docid, x.${e.search.column} FROM search_docs d JOIN ${e.table} x ON x.id = d.ref WHERE d.kind = ?`,
      ).run(e.table);
      for (const t of triggers(e)) db.exec(t.sql);
    }
  }).immediate();
}
