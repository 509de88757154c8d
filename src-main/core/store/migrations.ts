import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  description: string;
  up(db: Database.Database): void;
}

/**
 * The schema, as an append-only list. A migration is never edited once released: a change to the
 * schema is a new entry. PRAGMA user_version holds the number of the last one applied.
 */
export const migrations: Migration[] = [
  {
    version: 1,
    description: 'projects, tasks, lists, list items, settings and the action log',
    up(db) {
      db.exec(`
        CREATE TABLE projects (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          name_key TEXT NOT NULL,
          builtin INTEGER NOT NULL DEFAULT 0,
          archived_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX projects_live_name ON projects(name_key) WHERE archived_at IS NULL;

        CREATE TABLE tasks (
          id TEXT PRIMARY KEY,
          content TEXT NOT NULL,
          project_id TEXT NOT NULL REFERENCES projects(id),
          priority INTEGER NOT NULL DEFAULT 1 CHECK (priority BETWEEN 1 AND 4),
          due TEXT,
          status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'archived')),
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX tasks_by_project ON tasks(project_id, status);

        CREATE TABLE lists (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          name_key TEXT NOT NULL,
          archived_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX lists_live_name ON lists(name_key) WHERE archived_at IS NULL;

        CREATE TABLE list_items (
          id TEXT PRIMARY KEY,
          list_id TEXT NOT NULL REFERENCES lists(id),
          text TEXT NOT NULL,
          checked INTEGER NOT NULL DEFAULT 0,
          archived_at TEXT,
          position INTEGER NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX list_items_by_list ON list_items(list_id, position);

        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);

        -- Ids are short strings (t12, p3, a41). Counters only grow, so an undone id is never reused.
        CREATE TABLE id_counters (kind TEXT PRIMARY KEY, next INTEGER NOT NULL);

        CREATE TABLE actions (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          run_id TEXT NOT NULL,
          source TEXT NOT NULL CHECK (source IN ('user', 'agent')),
          tool TEXT NOT NULL,
          args TEXT NOT NULL,
          result TEXT,
          inverse TEXT NOT NULL,
          summary TEXT NOT NULL,
          created_at TEXT NOT NULL,
          undone_at TEXT,
          undoes TEXT REFERENCES actions(id)
        );
        CREATE INDEX actions_by_run ON actions(run_id, seq);
        CREATE INDEX actions_by_undoes ON actions(undoes);

        -- Which rows each action changed, to find later actions that touched the same entity.
        CREATE TABLE action_entities (
          entity TEXT NOT NULL,
          action_seq INTEGER NOT NULL REFERENCES actions(seq),
          PRIMARY KEY (entity, action_seq)
        ) WITHOUT ROWID;
      `);
      const now = new Date().toISOString();
      db.prepare(
        `INSERT INTO projects (id, name, name_key, builtin, created_at, updated_at) VALUES ('inbox', 'Inbox', 'inbox', 1, ?, ?)`,
      ).run(now, now);
    },
  },
];

export const LATEST_VERSION = migrations[migrations.length - 1]!.version;
