/** Schema 1–5: the data, the action log, the agent (search index, conversations, runs, steps), remembered endpoint quirks. */
import type { Migration } from './migration';

export const SCHEMA_1_TO_5: Migration[] = [
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
  {
    version: 2,
    description: 'agent: full-text search index, conversations, messages, runs, steps, remembered model protocols',
    up(db) {
      // One FTS5 index over the four kinds of text. Its rowid is the source row's rowid * 4 + kind
      // (0 task, 1 project, 2 list, 3 item), so triggers update and delete by rowid (a point lookup) rather
      // than scanning an UNINDEXED column. Triggers, not application code, keep it in sync: undo writes
      // rows directly (restoreRow) and must leave the index right too.
      db.exec(`
        CREATE VIRTUAL TABLE search_index USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
      `);
      const sources = [
        { table: 'tasks', column: 'content', kind: 0 },
        { table: 'projects', column: 'name', kind: 1 },
        { table: 'lists', column: 'name', kind: 2 },
        { table: 'list_items', column: 'text', kind: 3 },
      ];
      for (const { table, column, kind } of sources) {
        db.exec(`
          CREATE TRIGGER ${table}_search_insert AFTER INSERT ON ${table} BEGIN
            INSERT INTO search_index (rowid, text) VALUES (new.rowid * 4 + ${kind}, new.${column});
          END;
          CREATE TRIGGER ${table}_search_update AFTER UPDATE OF ${column} ON ${table} BEGIN
            UPDATE search_index SET text = new.${column} WHERE rowid = new.rowid * 4 + ${kind};
          END;
          CREATE TRIGGER ${table}_search_delete AFTER DELETE ON ${table} BEGIN
            DELETE FROM search_index WHERE rowid = old.rowid * 4 + ${kind};
          END;
          INSERT INTO search_index (rowid, text) SELECT rowid * 4 + ${kind}, ${column} FROM ${table};
        `);
      }
      db.exec(`
        CREATE TABLE conversations (
          id TEXT PRIMARY KEY,
          title TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );

        -- The conversation as the model is sent it (role, text, tool calls), oldest first. run_id is a
        -- plain reference: the message is written before the trace writer records its run.
        CREATE TABLE messages (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          conversation_id TEXT NOT NULL REFERENCES conversations(id),
          run_id TEXT,
          role TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
          content TEXT,
          tool_calls TEXT,
          tool_call_id TEXT,
          created_at TEXT NOT NULL
        );
        CREATE INDEX messages_by_conversation ON messages(conversation_id, seq);

        CREATE TABLE runs (
          id TEXT PRIMARY KEY,
          conversation_id TEXT NOT NULL REFERENCES conversations(id),
          status TEXT NOT NULL CHECK (status IN ('running', 'done', 'error', 'cancelled', 'limit')),
          request TEXT NOT NULL,
          answer TEXT,
          message TEXT,
          model TEXT NOT NULL,
          base_url TEXT NOT NULL,
          protocol TEXT NOT NULL CHECK (protocol IN ('native', 'json')),
          actions INTEGER NOT NULL DEFAULT 0,
          prompt_tokens INTEGER NOT NULL DEFAULT 0,
          completion_tokens INTEGER NOT NULL DEFAULT 0,
          total_tokens INTEGER NOT NULL DEFAULT 0,
          started_at TEXT NOT NULL,
          finished_at TEXT
        );
        CREATE INDEX runs_by_conversation ON runs(conversation_id);

        -- The trace: every event of a run (except streamed text pieces), as JSON.
        CREATE TABLE steps (
          run_id TEXT NOT NULL REFERENCES runs(id),
          seq INTEGER NOT NULL,
          kind TEXT NOT NULL,
          payload TEXT NOT NULL,
          PRIMARY KEY (run_id, seq)
        ) WITHOUT ROWID;

        -- The protocol the auto setting found for an endpoint and model (json when it rejected tools).
        CREATE TABLE model_protocols (
          base_url TEXT NOT NULL,
          model TEXT NOT NULL,
          protocol TEXT NOT NULL CHECK (protocol IN ('native', 'json')),
          reason TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          PRIMARY KEY (base_url, model)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 3,
    description: 'runs remember the process that runs them, so a run cut off by a crash can be told apart',
    up(db) {
      db.exec(`ALTER TABLE runs ADD COLUMN pid INTEGER`);
    },
  },
  {
    version: 4,
    foreignKeysOff: true,
    description: 'the action log names requests and change images plainly and takes any source; the search index is keyed by (kind, id); runs say which limit stopped them',
    up(db) {
      // A table cannot lose a CHECK in place: rebuild it (SQLite's documented way, with foreign keys off:
      // action_entities' reference to "actions" then points at the new table).
      db.exec(`
        CREATE TABLE actions_v4 (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          id TEXT NOT NULL UNIQUE,
          request_id TEXT NOT NULL,
          source TEXT NOT NULL,
          tool TEXT NOT NULL,
          args TEXT NOT NULL,
          result TEXT,
          changes TEXT NOT NULL,
          summary TEXT NOT NULL,
          created_at TEXT NOT NULL,
          undone_at TEXT,
          undoes TEXT REFERENCES actions(id)
        );
        INSERT INTO actions_v4 (seq, id, request_id, source, tool, args, result, changes, summary, created_at, undone_at, undoes)
          SELECT seq, id, run_id, source, tool, args, result, inverse, summary, created_at, undone_at, undoes FROM actions ORDER BY seq;
        DROP TABLE actions;
        ALTER TABLE actions_v4 RENAME TO actions;
        CREATE INDEX actions_by_request ON actions(request_id, seq);
        CREATE INDEX actions_by_undoes ON actions(undoes);
      `);
      // The old index encoded the kind in its rowid (rowid * 4 + kind): room for four kinds only. The new
      // one maps (kind, id) to a document id; store/search-index.ts creates its triggers from the entity registry.
      db.exec(`
        DROP TRIGGER IF EXISTS tasks_search_insert; DROP TRIGGER IF EXISTS tasks_search_update; DROP TRIGGER IF EXISTS tasks_search_delete;
        DROP TRIGGER IF EXISTS projects_search_insert; DROP TRIGGER IF EXISTS projects_search_update; DROP TRIGGER IF EXISTS projects_search_delete;
        DROP TRIGGER IF EXISTS lists_search_insert; DROP TRIGGER IF EXISTS lists_search_update; DROP TRIGGER IF EXISTS lists_search_delete;
        DROP TRIGGER IF EXISTS list_items_search_insert; DROP TRIGGER IF EXISTS list_items_search_update; DROP TRIGGER IF EXISTS list_items_search_delete;
        DROP TABLE search_index;
        CREATE TABLE search_docs (docid INTEGER PRIMARY KEY, kind TEXT NOT NULL, ref TEXT NOT NULL, UNIQUE (kind, ref));
        CREATE VIRTUAL TABLE search_text USING fts5(text, tokenize = 'unicode61 remove_diacritics 2');
      `);
      // Which limit stopped a run (actions, time, loop), for programs; `message` says it in words.
      db.exec(`ALTER TABLE runs ADD COLUMN stop_reason TEXT`);
      // Prompt tokens the provider served from its cache, summed over the run.
      db.exec(`ALTER TABLE runs ADD COLUMN cached_tokens INTEGER NOT NULL DEFAULT 0`);
    },
  },
  {
    version: 5,
    description: 'what each endpoint and model refused (max_tokens, temperature, stream_options, streaming with tools), kept across runs',
    up(db) {
      // quirks: JSON, see src-main/core/llm/quirks.ts. base_url is in the normal form of src-shared/providers.ts.
      db.exec(`
        CREATE TABLE model_quirks (
          base_url TEXT NOT NULL,
          model TEXT NOT NULL,
          quirks TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          PRIMARY KEY (base_url, model)
        ) WITHOUT ROWID;
      `);
    },
  },
];
