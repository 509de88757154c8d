/** Schema 12–15: rich tasks, memories, approvals and routines, planning. */
import type { Migration } from './migration';
import { upgradeEventImagesTo15, upgradeTaskImagesTo12 } from './images';

export const SCHEMA_12_TO_15: Migration[] = [
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
];
