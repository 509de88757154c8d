/** Schema 6–11: priorities, repeats and order of tasks; calendars; MCP sessions; archived conversations; task indexes; actions as data. */
import type { Migration } from './migration';
import { backfillActionWhat, upgradeTasksTo6 } from './images';

export const SCHEMA_6_TO_11: Migration[] = [
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
];
