import type Database from 'better-sqlite3';

export interface Migration {
  version: number;
  description: string;
  /** Rebuilds a table that others refer to: run with foreign keys off, and checked before it commits. */
  foreignKeysOff?: boolean;
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
  {
    version: 6,
    foreignKeysOff: true,
    description: 'priority as people say it (1 = most urgent, 4 = normal), recurring tasks, manual order, completion time, reminders sent',
    up(db) {
      // Rebuilt rather than altered, so that the default priority (now 4, normal) and the checks are right.
      db.exec(`
        CREATE TABLE tasks_v6 (
          id TEXT PRIMARY KEY,
          content TEXT NOT NULL,
          project_id TEXT NOT NULL REFERENCES projects(id),
          priority INTEGER NOT NULL DEFAULT 4 CHECK (priority BETWEEN 1 AND 4),
          due TEXT,
          -- An RRULE value (FREQ=WEEKLY;BYDAY=MO): completing the task moves due to the next occurrence.
          recurrence TEXT,
          -- Manual order: smaller first. Fractional, so a reorder changes one row.
          position REAL NOT NULL DEFAULT 0,
          status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'done', 'archived')),
          completed_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        INSERT INTO tasks_v6 (rowid, id, content, project_id, priority, due, status, created_at, updated_at)
          SELECT rowid, id, content, project_id, priority, due, status, created_at, updated_at FROM tasks ORDER BY rowid;
        DROP TABLE tasks;
        ALTER TABLE tasks_v6 RENAME TO tasks;
        CREATE INDEX tasks_by_project ON tasks(project_id, status, position);
        CREATE INDEX tasks_by_due ON tasks(status, due);

        -- Which due time a reminder was shown for, so a restart does not show it again (not user data: not undone).
        CREATE TABLE reminders_sent (task_id TEXT PRIMARY KEY, due TEXT NOT NULL, sent_at TEXT NOT NULL) WITHOUT ROWID;
      `);
      upgradeTasksTo6(db);
    },
  },
  {
    version: 7,
    description: 'calendars (the local Personal one and imported iCalendar files) and their events',
    up(db) {
      // Times: `start`/`end` are wall-clock times ("YYYY-MM-DDTHH:MM:SS", or "YYYY-MM-DD" all day) in
      // `tz` (an IANA zone, 'UTC', or NULL: floating, read in the user's zone). start_ms/end_ms are the
      // first occurrence as UTC milliseconds and until_ms the end of the last one (NULL: it recurs
      // forever), so a range query finds candidates by index and only recurring ones are expanded
      // (src-main/core/calendar/expand.ts). Floating times are stored as if UTC; queries widen by 14 hours.
      db.exec(`
        CREATE TABLE calendars (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          name_key TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('local', 'imported')),
          person_name TEXT,
          person_email TEXT,
          colour TEXT NOT NULL,
          source TEXT,
          prodid TEXT,
          archived_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX calendars_live_name ON calendars(name_key) WHERE archived_at IS NULL;

        CREATE TABLE events (
          id TEXT PRIMARY KEY,
          calendar_id TEXT NOT NULL REFERENCES calendars(id),
          uid TEXT NOT NULL,
          recurrence_id TEXT,
          title TEXT NOT NULL,
          start TEXT NOT NULL,
          end TEXT NOT NULL,
          all_day INTEGER NOT NULL DEFAULT 0,
          tz TEXT,
          start_ms INTEGER NOT NULL,
          end_ms INTEGER NOT NULL,
          until_ms INTEGER,
          rrule TEXT,
          exdates TEXT,
          location TEXT,
          notes TEXT,
          attendees TEXT NOT NULL DEFAULT '[]',
          busy INTEGER NOT NULL DEFAULT 1,
          task_id TEXT,
          cancelled_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX events_by_calendar_time ON events(calendar_id, start_ms);
        -- Recurring or very long events: found by this index whatever range is asked; the rest by start time.
        CREATE INDEX events_spanning ON events(calendar_id) WHERE rrule IS NOT NULL OR end_ms - start_ms > 2678400000;
        CREATE INDEX events_by_uid ON events(calendar_id, uid, recurrence_id);
        CREATE INDEX events_by_task ON events(task_id) WHERE task_id IS NOT NULL;
      `);
      const now = new Date().toISOString();
      db.prepare(
        `INSERT INTO calendars (id, name, name_key, kind, colour, created_at, updated_at) VALUES ('personal', 'Personal', 'personal', 'local', '#2f6fde', ?, ?)`,
      ).run(now, now);
    },
  },
  {
    version: 8,
    description: 'MCP client sessions (named after the client, one request each in the action log) and the wikipedia tool\'s one-day cache',
    up(db) {
      db.exec(`
        -- One row per session of another AI app with \`tidy mcp\`: its actions are logged under this id.
        CREATE TABLE mcp_sessions (
          id TEXT PRIMARY KEY,
          client_name TEXT NOT NULL,
          client_version TEXT,
          started_at TEXT NOT NULL
        );

        -- Answers of the wikipedia tool by site and query, reused for a day (src-main/core/tools/wikipedia.ts).
        CREATE TABLE wikipedia_cache (
          site TEXT NOT NULL,
          query TEXT NOT NULL,
          result TEXT NOT NULL,
          fetched_at TEXT NOT NULL,
          PRIMARY KEY (site, query)
        ) WITHOUT ROWID;
      `);
    },
  },
  {
    version: 9,
    description: 'archived conversations: out of the list, kept with their runs and traces',
    up(db) {
      db.exec(`ALTER TABLE conversations ADD COLUMN archived_at TEXT`);
    },
  },
  {
    version: 10,
    description: 'tasks indexed by their place in a project and by when they were done: adding a task and paging Completed read only what they need',
    up(db) {
      // tasks_by_project (project_id, status, position) cannot answer max(position) for a project across
      // statuses without visiting every task in it: a new task cost time in proportion to its project.
      db.exec(`CREATE INDEX tasks_by_position ON tasks(project_id, position)`);
      // Completed lists the newest first: without this each page sorted every done task.
      db.exec(`CREATE INDEX tasks_by_completion ON tasks(status, completed_at)`);
    },
  },
  {
    version: 11,
    description: 'actions say what they did as data (actions.what: verb, kind, id, name, count, reverses), written for the rows logged before',
    up(db) {
      db.exec(`ALTER TABLE actions ADD COLUMN what TEXT`);
      backfillActionWhat(db);
    },
  },
  {
    version: 12,
    description: 'rich tasks: description, subtasks (parent), sections, labels, comments, deadline and duration; saved filters',
    up(db) {
      db.exec(`
        -- Sections inside a project (Todoist sections, Things headings), in their manual order.
        CREATE TABLE sections (
          id TEXT PRIMARY KEY,
          project_id TEXT NOT NULL REFERENCES projects(id),
          name TEXT NOT NULL,
          name_key TEXT NOT NULL,
          position REAL NOT NULL DEFAULT 0,
          archived_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX sections_live_name ON sections(project_id, name_key) WHERE archived_at IS NULL;

        -- Labels: one name (unique whatever its case), created on first use; the colour is optional.
        CREATE TABLE labels (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          name_key TEXT NOT NULL UNIQUE,
          colour TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );

        -- Which labels a task has. A row of its own (with an id) so that the action log records it like any other.
        CREATE TABLE task_labels (
          id TEXT PRIMARY KEY,
          task_id TEXT NOT NULL REFERENCES tasks(id),
          label_id TEXT NOT NULL REFERENCES labels(id),
          UNIQUE (task_id, label_id)
        );
        CREATE INDEX task_labels_by_label ON task_labels(label_id, task_id);

        -- Dated notes on a task (Todoist's "note" rows).
        CREATE TABLE comments (
          id TEXT PRIMARY KEY,
          task_id TEXT NOT NULL REFERENCES tasks(id),
          text TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE INDEX comments_by_task ON comments(task_id, created_at);

        -- Saved filters: a name and a query of the filter language (domain/filter.ts).
        CREATE TABLE filters (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          name_key TEXT NOT NULL UNIQUE,
          query TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );

        -- description: Markdown; parent_id: the task this one is a subtask of (any depth, never a cycle);
        -- deadline: a date (YYYY-MM-DD) it must be done by, beside the planned due; duration_min: how long it takes.
        ALTER TABLE tasks ADD COLUMN description TEXT;
        ALTER TABLE tasks ADD COLUMN parent_id TEXT REFERENCES tasks(id);
        ALTER TABLE tasks ADD COLUMN section_id TEXT REFERENCES sections(id);
        ALTER TABLE tasks ADD COLUMN deadline TEXT;
        ALTER TABLE tasks ADD COLUMN duration_min INTEGER;
        CREATE INDEX tasks_by_parent ON tasks(parent_id) WHERE parent_id IS NOT NULL;
        CREATE INDEX tasks_by_section ON tasks(section_id) WHERE section_id IS NOT NULL;
        CREATE INDEX tasks_by_deadline ON tasks(status, deadline) WHERE deadline IS NOT NULL;
      `);
      upgradeTaskImagesTo12(db);
    },
  },
  {
    version: 13,
    description: 'memories: short facts the user keeps for the agent (scope, where each came from); incognito conversations',
    up(db) {
      db.exec(`
        -- A memory: one short fact (at most 500 characters), for every request (project_id NULL) or for one
        -- project's. conversation_id and run_id say where it came from (NULL: the user wrote it by hand); plain
        -- references, as a memory outlives the conversation it came from and an export carries no conversations.
        -- archived_at: forgotten (undo brings it back).
        CREATE TABLE memories (
          id TEXT PRIMARY KEY,
          text TEXT NOT NULL,
          project_id TEXT REFERENCES projects(id),
          conversation_id TEXT,
          run_id TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL,
          archived_at TEXT
        );
        CREATE INDEX memories_live ON memories(archived_at, project_id);
        CREATE INDEX memories_by_conversation ON memories(conversation_id) WHERE conversation_id IS NOT NULL;

        -- When a memory was last put in a request's prompt. A table of its own, not a column of memories: the
        -- action log compares whole rows, and being read must not block undoing an edit.
        CREATE TABLE memory_uses (
          memory_id TEXT PRIMARY KEY,
          last_used_at TEXT NOT NULL
        ) WITHOUT ROWID;

        -- An incognito conversation neither reads nor writes memory.
        ALTER TABLE conversations ADD COLUMN incognito INTEGER NOT NULL DEFAULT 0;
      `);
    },
  },
  {
    version: 14,
    description: 'pending approvals kept as rows (answerable after a restart); routines: the agent on a schedule, with claims per occurrence',
    up(db) {
      db.exec(`
        -- An approval a run asked for. live: a run waits for it in the process owner_pid; detached: the run
        -- ended waiting (a routine's), and answering it continues the conversation in a new run.
        CREATE TABLE approvals (
          id TEXT PRIMARY KEY,
          run_id TEXT NOT NULL,
          conversation_id TEXT NOT NULL,
          call_id TEXT NOT NULL,
          tool TEXT NOT NULL,
          args TEXT NOT NULL,
          card TEXT NOT NULL,
          mode TEXT NOT NULL CHECK (mode IN ('live', 'detached')),
          owner_pid INTEGER,
          routine_id TEXT,
          created_at TEXT NOT NULL,
          decided_at TEXT,
          decision TEXT CHECK (decision IN ('approve', 'decline', 'always', 'expired')),
          decided_args TEXT,
          continued_run_id TEXT
        );
        CREATE INDEX approvals_pending ON approvals(created_at) WHERE decided_at IS NULL;
        CREATE INDEX approvals_by_run ON approvals(run_id);

        -- A routine: a request the agent runs on a schedule (rrule at time in tz, from the words in schedule).
        -- tools: a JSON array of tool names, NULL for the default (logged, undoable tools).
        CREATE TABLE routines (
          id TEXT PRIMARY KEY,
          name TEXT NOT NULL,
          name_key TEXT NOT NULL,
          request TEXT NOT NULL,
          schedule TEXT NOT NULL,
          rrule TEXT NOT NULL,
          start TEXT NOT NULL,
          tz TEXT NOT NULL,
          conversation TEXT NOT NULL CHECK (conversation IN ('routine', 'new')),
          tools TEXT,
          enabled INTEGER NOT NULL DEFAULT 1,
          catch_up TEXT NOT NULL CHECK (catch_up IN ('once', 'skip')),
          max_actions INTEGER,
          time_limit_sec INTEGER,
          archived_at TEXT,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        );
        CREATE UNIQUE INDEX routines_live_name ON routines(name_key) WHERE archived_at IS NULL;

        -- What the scheduler keeps about a routine (not undoable data): failures in a row, its conversation.
        CREATE TABLE routine_state (
          routine_id TEXT PRIMARY KEY,
          failures INTEGER NOT NULL DEFAULT 0,
          conversation_id TEXT,
          paused_note TEXT
        );

        -- One row per occurrence a process claimed (the primary key makes the claim: two processes never
        -- run the same occurrence), and the runs made by hand (occurrence 'manual:<time>').
        CREATE TABLE routine_runs (
          routine_id TEXT NOT NULL,
          occurrence TEXT NOT NULL,
          kind TEXT NOT NULL CHECK (kind IN ('scheduled', 'catch_up', 'skipped', 'manual', 'continued')),
          claimed_at TEXT NOT NULL,
          claimed_by TEXT NOT NULL,
          run_id TEXT,
          status TEXT NOT NULL CHECK (status IN ('running', 'done', 'error', 'cancelled', 'limit', 'waiting', 'skipped')),
          message TEXT,
          finished_at TEXT,
          PRIMARY KEY (routine_id, occurrence)
        );
        CREATE INDEX routine_runs_by_time ON routine_runs(routine_id, claimed_at);
      `);
    },
  },
  {
    version: 15,
    description: 'planning: events that are blocks of a plan (plan_id: the request that applied it) and pinned blocks',
    up(db) {
      db.exec(`
        -- A block of time planned for a task (tidy plan, plan_tasks): plan_id names the plan (the request that
        -- applied it); pinned blocks are never moved by a re-plan.
        ALTER TABLE events ADD COLUMN plan_id TEXT;
        ALTER TABLE events ADD COLUMN pinned INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX events_by_plan ON events(plan_id, start_ms) WHERE plan_id IS NOT NULL;
      `);
      upgradeEventImagesTo15(db);
    },
  },
  {
    version: 16,
    description: 'sync between devices: this device and its target, the clock of every synced cell, the outbox, cursors, devices, and messages kept for later',
    up(db) {
      db.exec(`
        -- One row while sync is on (none while it is off): this device, its clock, its next batch and its
        -- target. The derived key and a WebDAV password are in the OS keychain, never here. \`applying\` is
        -- 1 only inside the transaction that applies received messages, so the capture triggers skip them.
        CREATE TABLE sync_state (
          id INTEGER PRIMARY KEY CHECK (id = 1),
          device TEXT NOT NULL,
          id_part TEXT NOT NULL,
          name TEXT NOT NULL,
          clock TEXT NOT NULL,
          next_seq INTEGER NOT NULL DEFAULT 1,
          target_kind TEXT NOT NULL CHECK (target_kind IN ('folder', 'webdav')),
          target_url TEXT NOT NULL,
          target_user TEXT,
          applying INTEGER NOT NULL DEFAULT 0,
          last_synced_at TEXT,
          last_error TEXT,
          created_at TEXT NOT NULL
        );
        -- The clock stamp of every synced cell (values stay in the tables).
        CREATE TABLE sync_cells (
          tbl TEXT NOT NULL,
          row TEXT NOT NULL,
          col TEXT NOT NULL,
          hlc TEXT NOT NULL,
          PRIMARY KEY (tbl, row, col)
        ) WITHOUT ROWID;
        -- Local changes not yet in a batch on the target: captured by triggers (at: wall time in ms),
        -- stamped (hlc) before they are sent or anything received is merged.
        CREATE TABLE sync_outbox (
          seq INTEGER PRIMARY KEY AUTOINCREMENT,
          at INTEGER NOT NULL,
          hlc TEXT,
          tbl TEXT NOT NULL,
          row TEXT NOT NULL,
          col TEXT NOT NULL,
          value
        );
        CREATE INDEX sync_outbox_by_hlc ON sync_outbox(hlc);
        -- Per other device: the last of its batches merged here.
        CREATE TABLE sync_cursors (device TEXT PRIMARY KEY, seq INTEGER NOT NULL);
        CREATE TABLE sync_devices (device TEXT PRIMARY KEY, name TEXT, last_seen TEXT, forgotten INTEGER NOT NULL DEFAULT 0);
        -- Received messages that won but cannot be written yet: a table or column this schema does not have,
        -- or a row that cannot be written yet (its parent has not arrived). Applied when they can be.
        CREATE TABLE sync_pending (
          tbl TEXT NOT NULL,
          row TEXT NOT NULL,
          col TEXT NOT NULL,
          hlc TEXT NOT NULL,
          value,
          reason TEXT NOT NULL,
          PRIMARY KEY (tbl, row, col)
        ) WITHOUT ROWID;
      `);
    },
  },
];

/** The columns schema 15 added to events, with the value an older event has. */
export const EVENT_COLUMNS_15 = { plan_id: null, pinned: 0 } as const;

/** The event images the action log keeps, written before schema 15, gain the new columns (as schema 12 did for tasks). */
export function upgradeEventImagesTo15(db: Database.Database): void {
  addColumnsToImages(db, 'events', EVENT_COLUMNS_15);
}

/** The columns schema 12 added to tasks, with the value an older task has. */
export const TASK_COLUMNS_12 = { description: null, parent_id: null, section_id: null, deadline: null, duration_min: null } as const;

/**
 * The task images the action log keeps, written before schema 12, gain the new columns (all null, as the
 * migration leaves the rows), so undo compares and restores them exactly as it did before (as schema 6 did).
 */
export function upgradeTaskImagesTo12(db: Database.Database): void {
  addColumnsToImages(db, 'tasks', TASK_COLUMNS_12);
}

/** Images of `table` in the action log gain `columns` (with those values) where they lack them. */
function addColumnsToImages(db: Database.Database, table: string, columns: Record<string, unknown>): void {
  const update = db.prepare(`UPDATE actions SET changes = ? WHERE seq = ?`);
  type Image = Record<string, unknown>;
  const isImage = (v: unknown): v is Image => v !== null && typeof v === 'object' && !Array.isArray(v);
  // Only an image that is an object gains the columns: a damaged row (no image, not JSON) is left as it is,
  // for undo to refuse in words, rather than stopping the migration and with it every open of the file.
  const upgrade = (image: unknown): unknown =>
    isImage(image) ? { ...image, ...Object.fromEntries(Object.entries(columns).filter(([k]) => !(k in image))) } : image;
  for (const row of db.prepare(`SELECT seq, changes FROM actions WHERE changes LIKE ?`).all(`%"table":"${table}"%`) as { seq: number; changes: string }[]) {
    let changes: unknown;
    try {
      changes = JSON.parse(row.changes);
    } catch {
      continue;
    }
    if (!Array.isArray(changes)) continue;
    let changed = false;
    for (const c of changes as unknown[]) {
      if (!isImage(c) || c['table'] !== table) continue;
      const before = upgrade(c['before']);
      const after = upgrade(c['after']);
      changed ||= before !== c['before'] || after !== c['after'];
      c['before'] = before;
      c['after'] = after;
    }
    if (changed) update.run(JSON.stringify(changes), row.seq);
  }
}

/**
 * Writes `what` for the action rows that have none (logged before schema 11, in the database or in an
 * export file of an older Tidy), from what they hold: the operation (the tool column), the rows they
 * changed, and the chain of undoes. The table of operations is frozen here as schema 11 knew it, so
 * this stays true whatever the registries become. Summaries are not read.
 */
export function backfillActionWhat(db: Database.Database): void {
  type Image = Record<string, unknown> | null;
  type What = { verb: string; kind: string | null; id: string | null; name: string | null; count: number; reverses: string | null };
  const OPS: Record<string, [verb: string, kind: string]> = {
    add_task: ['added', 'task'], update_task: ['updated', 'task'], reorder_task: ['moved', 'task'], snooze_task: ['snoozed', 'task'],
    move_task: ['moved', 'task'], complete_task: ['completed', 'task'], reopen_task: ['reopened', 'task'], archive_task: ['archived', 'task'],
    create_project: ['created', 'project'], rename_project: ['renamed', 'project'], archive_project: ['archived', 'project'], unarchive_project: ['unarchived', 'project'],
    make_list: ['made', 'list'], rename_list: ['renamed', 'list'], archive_list: ['archived', 'list'], unarchive_list: ['unarchived', 'list'],
    add_list_item: ['added', 'item'], edit_list_item: ['changed', 'item'], check_list_item: ['checked', 'item'], archive_list_item: ['archived', 'item'],
    book_event: ['booked', 'event'], move_event: ['moved', 'event'], cancel_event: ['cancelled', 'event'],
    import_calendar: ['imported', 'calendar'], remove_calendar: ['removed', 'calendar'], import_todoist: ['imported', 'task'],
  };
  const TABLES: Record<string, [table: string, label: string]> = {
    task: ['tasks', 'content'], project: ['projects', 'name'], list: ['lists', 'name'], item: ['list_items', 'text'], event: ['events', 'title'], calendar: ['calendars', 'name'],
  };
  const KIND_OF_TABLE = new Map(Object.entries(TABLES).map(([kind, [table]]) => [table, kind]));
  const rows = db.prepare(`SELECT seq, id, tool, changes, undoes, what FROM actions ORDER BY seq`).all() as {
    seq: number; id: string; tool: string; changes: string; undoes: string | null; what: string | null;
  }[];
  const known = new Map<string, What>();
  const update = db.prepare(`UPDATE actions SET what = ? WHERE seq = ?`);
  for (const row of rows) {
    if (row.what !== null) {
      known.set(row.id, JSON.parse(row.what) as What);
      continue;
    }
    let changes: { table: string; id: string; before: Image; after: Image }[] = [];
    try {
      const parsed: unknown = JSON.parse(row.changes);
      if (Array.isArray(parsed)) changes = parsed.filter((c): c is (typeof changes)[number] => c !== null && typeof c === 'object' && typeof c.table === 'string');
    } catch {
      // an unreadable image list: what the operation says, with no id or name
    }
    let what: What;
    const reversed = row.undoes === null ? undefined : known.get(row.undoes);
    if (row.undoes !== null) {
      // Reversing an undo is a redo; reversing anything else (a change, a redo) is an undo.
      const base = reversed ?? { verb: 'changed', kind: null, id: null, name: null, count: 1, reverses: null };
      what = { ...base, verb: base.verb === 'undid' ? 'redid' : 'undid', reverses: row.undoes };
    } else if (row.changes === '[]') {
      const at = row.tool.indexOf('__');
      what = { verb: 'ran', kind: null, id: null, name: at === -1 ? row.tool : row.tool.slice(at + 2), count: 1, reverses: null };
    } else {
      const op = OPS[row.tool];
      const kind = op?.[1] ?? KIND_OF_TABLE.get(changes[0]?.table ?? '') ?? null;
      let verb = op?.[0] ?? 'changed';
      const [table, label] = kind ? TABLES[kind]! : ['', ''];
      const own = changes.filter((c) => c.table === table);
      const first = own[0];
      const image = first ? (first.after ?? first.before) : null;
      if (row.tool === 'check_list_item' && first?.after) verb = first.after['checked'] ? 'checked' : 'unchecked';
      if (row.tool === 'import_calendar' && (!first || first.before)) verb = 'reimported'; // a first import makes its calendar
      const todoist = row.tool === 'import_todoist';
      what = {
        verb,
        kind,
        id: todoist || !first ? null : first.id,
        name: todoist || !image || typeof image[label] !== 'string' ? null : (image[label] as string),
        count: todoist ? own.length : 1,
        reverses: null,
      };
    }
    known.set(row.id, what);
    update.run(JSON.stringify(what), row.seq);
  }
}

/**
 * Tasks written before schema 6 (in the database, or in an export file of an older Tidy) into its
 * meaning: priority inverted (4 was urgent, now 1 is), positions in creation order, done tasks completed
 * when last updated, and the same for the task images the action log keeps, so undo still compares and
 * restores them exactly.
 */
export function upgradeTasksTo6(db: Database.Database): void {
  db.exec(`
    UPDATE tasks SET priority = 5 - priority, recurrence = NULL, completed_at = CASE WHEN status = 'done' THEN updated_at END;
    WITH o AS (SELECT id, ROW_NUMBER() OVER (ORDER BY created_at, rowid) AS n FROM tasks)
      UPDATE tasks SET position = o.n FROM o WHERE o.id = tasks.id;
  `);
  const position = db.prepare(`SELECT position FROM tasks WHERE id = ?`).pluck();
  const update = db.prepare(`UPDATE actions SET changes = ? WHERE seq = ?`);
  type Image = Record<string, unknown> | null;
  const upgrade = (id: string, image: Image): Image => {
    if (image === null) return null;
    const p = typeof image['priority'] === 'number' ? 5 - image['priority'] : image['priority'];
    const { id: _id, content, project_id, due, status, created_at, updated_at } = image;
    return {
      id: _id,
      content,
      project_id,
      priority: p,
      due,
      recurrence: null,
      position: (position.get(id) as number | undefined) ?? 0,
      status,
      completed_at: status === 'done' ? updated_at : null,
      created_at,
      updated_at,
    };
  };
  for (const row of db.prepare(`SELECT seq, changes FROM actions WHERE changes LIKE '%"table":"tasks"%'`).all() as { seq: number; changes: string }[]) {
    const changes = JSON.parse(row.changes) as { table: string; id: string; before: Image; after: Image }[];
    for (const c of changes) {
      if (c.table !== 'tasks') continue;
      c.before = upgrade(c.id, c.before);
      c.after = upgrade(c.id, c.after);
    }
    update.run(JSON.stringify(changes), row.seq);
  }
}

export const LATEST_VERSION = migrations[migrations.length - 1]!.version;
