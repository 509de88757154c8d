/**
 * Tasks read: one by id, a project's in their order, the views (Today, Upcoming, Completed), the sidebar's
 * counts, comments and subtask progress; and a task's fields read from what people and models type
 * (priority, due date, repeat rule, description, deadline, duration). The logged operations that change
 * tasks: task-operations.ts.
 */
import { DueDate, INBOX_ID, Priority, type Comment, type Task, type TaskStatus } from '../../../src-shared/domain';
import { parseDue as parseNaturalDue } from '../../../src-shared/date-words';
import { parseQuickAdd } from '../../../src-shared/quickadd';
import { TASK_FREQS, validRecurrence } from '../../../src-shared/repeat-rules';
import { checkRule } from '../../../src-shared/recurrence';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { resolveProject } from './projects';
import { quote } from './text';

interface TaskRow {
  id: string;
  content: string;
  project_id: string;
  project: string;
  priority: number;
  due: string | null;
  recurrence: string | null;
  position: number;
  status: TaskStatus;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
  description: string | null;
  parent_id: string | null;
  section_id: string | null;
  section: string | null;
  deadline: string | null;
  duration_min: number | null;
  labels: string;
}

/** A task with its project's and section's names and its labels (a JSON array, by name). */
export const SELECT_TASK = `SELECT t.*, p.name AS project, s.name AS section,
  (SELECT json_group_array(name) FROM (SELECT l.name FROM task_labels tl JOIN labels l ON l.id = tl.label_id WHERE tl.task_id = t.id ORDER BY l.name_key)) AS labels
  FROM tasks t JOIN projects p ON p.id = t.project_id LEFT JOIN sections s ON s.id = t.section_id`;

const toTask = (r: TaskRow): Task => ({
  id: r.id,
  content: r.content,
  projectId: r.project_id,
  project: r.project,
  priority: r.priority,
  due: r.due,
  recurrence: r.recurrence,
  status: r.status,
  completedAt: r.completed_at,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  description: r.description,
  parentId: r.parent_id,
  section: r.section,
  sectionId: r.section_id,
  labels: JSON.parse(r.labels) as string[],
  deadline: r.deadline,
  durationMin: r.duration_min,
});

/** Rows as listTasks reads them, as tasks (the filter module reads with the same SELECT). */
export const rowsToTasks = (rows: unknown[]): Task[] => (rows as TaskRow[]).map(toTask);

/** The task views beyond a project: due today or before, the days ahead, the logbook. */
export type TaskView = 'today' | 'upcoming' | 'completed';

/** How many days Upcoming shows, today included. */
export const UPCOMING_DAYS = 7;

export interface TaskQuery {
  /** A project id or name. */
  project?: string;
  status?: TaskStatus | 'all';
  /**
   * today: open tasks due today or earlier (overdue first), by due date; upcoming: open tasks due from
   * today to the 7th day, by due date; completed: done tasks, the most recently completed first.
   * `status` is ignored with a view.
   */
  view?: TaskView;
  /** The local date the views count from (YYYY-MM-DD); the machine's today by default. */
  today?: string;
  limit?: number;
  offset?: number;
}

/** The local date of `d` as YYYY-MM-DD. */
export const localDate = (d: Date = new Date()): string =>
  `${String(d.getFullYear()).padStart(4, '0')}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** YYYY-MM-DD plus n days. */
export function addDaysToDate(date: string, n: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  return localDate(new Date(y, m - 1, d + n));
}

const VIEWS: Record<TaskView, { where: string; order: string }> = {
  // substr(due, 1, 10) is the date whether or not a time follows; ? is today, ?? the last day shown.
  today: { where: `t.status = 'open' AND t.due IS NOT NULL AND substr(t.due, 1, 10) <= @today`, order: 't.due, t.priority, t.position' },
  upcoming: { where: `t.status = 'open' AND t.due IS NOT NULL AND substr(t.due, 1, 10) BETWEEN @today AND @last`, order: 't.due, t.priority, t.position' },
  completed: { where: `t.status = 'done'`, order: 't.completed_at DESC, t.rowid DESC' },
};

/** A project's tasks in their manual order (capture order unless reordered), all tasks in capture order, with the total before paging; or a view. */
export function listTasks(db: Db, q: TaskQuery = {}): { tasks: Task[]; total: number } {
  const projectId = q.project ? resolveProject(db, q.project).id : null;
  const status = q.status ?? 'open';
  const today = q.today ?? localDate();
  const view = q.view ? VIEWS[q.view] : null;
  const where = view
    ? `WHERE (@project IS NULL OR t.project_id = @project) AND ${view.where}`
    : `WHERE (@project IS NULL OR t.project_id = @project) AND (@status = 'all' OR t.status = @status)`;
  const params = { project: projectId, status, today, last: addDaysToDate(today, UPCOMING_DAYS - 1) };
  const used = Object.fromEntries(Object.entries(params).filter(([k]) => where.includes(`@${k}`)));
  const total = (cached(db, `SELECT count(*) AS n FROM tasks t ${where}`).get(used) as { n: number }).n;
  // Manual order is kept per project; across projects the capture order is the one that means something.
  const order = view ? view.order : projectId ? 't.position, t.rowid' : 't.created_at, t.rowid';
  const rows = cached(db, `${SELECT_TASK} ${where} ORDER BY ${order} LIMIT @limit OFFSET @offset`).all({
    ...used,
    limit: q.limit ?? -1,
    offset: q.offset ?? 0,
  }) as TaskRow[];
  return { tasks: rows.map(toTask), total };
}

/** The numbers the sidebar shows: open tasks in the inbox, due today or before (today), before today (overdue), and in Upcoming. */
export function taskCounts(db: Db, today = localDate()): { inbox: number; today: number; overdue: number; upcoming: number } {
  // Ranges of the (status, due) and (project_id, status, …) indexes, not a pass over every open task: a due
  // is YYYY-MM-DD or YYYY-MM-DDTHH:MM, so "on or before today" is every due below the next day's date.
  return cached(
    db,
    `SELECT
       (SELECT count(*) FROM tasks WHERE project_id = @inbox AND status = 'open') AS inbox,
       (SELECT count(*) FROM tasks WHERE status = 'open' AND due < @tomorrow) AS today,
       (SELECT count(*) FROM tasks WHERE status = 'open' AND due < @today) AS overdue,
       (SELECT count(*) FROM tasks WHERE status = 'open' AND due >= @today AND due < @after) AS upcoming`,
  ).get({ inbox: INBOX_ID, today, tomorrow: addDaysToDate(today, 1), after: addDaysToDate(today, UPCOMING_DAYS) }) as { inbox: number; today: number; overdue: number; upcoming: number };
}

export function getTask(db: Db, ref: string): Task {
  const id = String(ref ?? '').trim().toLowerCase();
  const row = cached(db, `${SELECT_TASK} WHERE t.id = ?`).get(id) as TaskRow | undefined;
  if (!row) fail(`no task with id ${quote(String(ref ?? ''))}`, 'list the tasks (inbox or all tasks) to see valid task ids');
  return toTask(row);
}

/** A priority from a number or the words a person types ("1", "p1"); refused outside 1…4. */
export function parsePriority(raw: unknown): number {
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw.trim().replace(/^p/i, '')) : raw;
  const r = Priority.safeParse(n);
  if (!r.success) fail(`priority ${JSON.stringify(raw)} is not allowed`, 'use a whole number from 1 (p1, most urgent) to 4 (p4, normal)');
  return r.data;
}

const pad2 = (n: number): string => String(n).padStart(2, '0');

/**
 * A due date as stored: 'YYYY-MM-DD' or a local 'YYYY-MM-DDTHH:MM'. Takes ISO dates and date-times (an
 * offset or Z is turned into local time, seconds dropped), and the quick-add words ("next friday 3pm").
 */
export function normaliseDue(raw: unknown, now: Date = new Date()): string | null {
  if (raw === null || raw === '' || (typeof raw === 'string' && /^\s*(none|no date|clear)\s*$/i.test(raw))) return null;
  const text = typeof raw === 'string' ? raw.trim() : raw;
  const iso = DueDate.safeParse(text);
  if (iso.success) {
    const s = iso.data;
    if (s.length === 10) return s;
    if (/(Z|[+-]\d{2}:\d{2})$/.test(s)) {
      const d = new Date(s);
      return `${localDate(d)}T${pad2(d.getHours())}:${pad2(d.getMinutes())}`;
    }
    return s.slice(0, 16);
  }
  const natural = typeof text === 'string' ? parseNaturalDue(text, now) : null;
  if (natural === null)
    fail(`due date ${JSON.stringify(raw)} is not a date`, 'use YYYY-MM-DD or YYYY-MM-DDTHH:MM (e.g. 2026-12-24T15:00), words like "next friday 3pm", or none to clear it');
  return natural;
}

/** A recurrence as stored: an RRULE value, from an RRULE ("RRULE:" prefix allowed) or quick-add words ("every monday"). */
export function parseRecurrence(raw: unknown): string | null {
  if (raw === null || raw === '' || (typeof raw === 'string' && /^\s*(none|never|no)\s*$/i.test(raw))) return null;
  const text = String(raw).trim();
  const rule = text.replace(/^RRULE:/i, '').toUpperCase();
  if (validRecurrence(rule)) return rule;
  if (/^FREQ=/.test(rule) || /;\s*FREQ=/.test(rule)) {
    const check = checkRule(rule, { freqs: TASK_FREQS });
    fail(
      `repeat rule ${JSON.stringify(text.slice(0, 60))}: ${check.ok ? 'not a rule Tidy can repeat a task by' : check.error}`,
      'use words like "every monday", "every 2 weeks", or an RRULE such as FREQ=WEEKLY;BYDAY=MO',
    );
  }
  const words = /^every\b/i.test(text) ? text : `every ${text}`;
  const parsed = parseQuickAdd(`x ${words}`, { projects: [], now: new Date() });
  if (parsed.recurrence && parsed.content === 'x') return parsed.recurrence;
  return fail(`${JSON.stringify(text)} is not a repeat rule`, 'use words like "every monday", "every 2 weeks", "every weekday", or an RRULE such as FREQ=WEEKLY;BYDAY=MO');
}

/** Descriptions: Markdown, line breaks kept, up to this many characters. */
export const MAX_DESCRIPTION = 20_000;

/** A description as stored: trimmed, control characters other than tab and line breaks removed; empty or none clears it. */
export function parseDescription(raw: unknown): string | null {
  if (raw === null || raw === undefined) return null;
  const text = String(raw)
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .trim();
  if (text === '' || /^none$/i.test(text)) return null;
  if (text.length > MAX_DESCRIPTION) fail(`description is ${text.length} characters long`, `use at most ${MAX_DESCRIPTION} characters`);
  return text;
}

/** A deadline as stored: a date (YYYY-MM-DD) from ISO text or quick-add words; a time given is dropped. */
export function parseDeadline(raw: unknown, at: Date = new Date()): string | null {
  if (raw === null || raw === '' || (typeof raw === 'string' && /^\s*(none|no date|clear)\s*$/i.test(raw))) return null;
  try {
    const due = normaliseDue(raw, at);
    return due === null ? null : due.slice(0, 10);
  } catch {
    return fail(`deadline ${JSON.stringify(raw)} is not a date`, 'use YYYY-MM-DD (e.g. 2026-12-24), words like "friday", or none to clear it');
  }
}

/** The longest duration: a week. */
export const MAX_DURATION_MIN = 7 * 24 * 60;

/** A duration in minutes from a number or "45m", "2h", "1h30m", "1.5h", "90 min"; none clears. */
export function parseDuration(raw: unknown): number | null {
  if (raw === null || raw === '' || (typeof raw === 'string' && /^\s*(none|clear)\s*$/i.test(raw))) return null;
  let minutes: number | null = null;
  if (typeof raw === 'number') minutes = raw;
  else if (typeof raw === 'string') {
    const t = raw.trim().toLowerCase();
    const m = /^(?:(\d{1,4}(?:\.\d{1,2})?)\s*(?:h|hr|hrs|hours?))?\s*(?:(\d{1,5})\s*(?:m|min|mins|minutes?)?)?$/.exec(t);
    if (t !== '' && m && (m[1] !== undefined || m[2] !== undefined)) minutes = Math.round(Number(m[1] ?? 0) * 60) + Number(m[2] ?? 0);
  }
  if (minutes === null || !Number.isInteger(minutes) || minutes < 1 || minutes > MAX_DURATION_MIN)
    fail(`duration ${JSON.stringify(raw)} is not allowed`, `use whole minutes from 1 to ${MAX_DURATION_MIN}, or words like 45m, 2h, 1h30m; none clears it`);
  return minutes;
}

/** The task and every task under it, the task first, then by depth. */
export function subtree(db: Db, id: string): string[] {
  return (
    cached(
      db,
      `WITH RECURSIVE tree(id, depth) AS (SELECT ?, 0 UNION ALL SELECT t.id, tree.depth + 1 FROM tasks t JOIN tree ON t.parent_id = tree.id)
       SELECT id FROM tree ORDER BY depth`,
    ).all(id) as { id: string }[]
  ).map((r) => r.id);
}

/** Minutes to snooze by, from a number or the digits a person types; refused outside 1…20160 (two weeks). */
export function snoozeMinutes(raw: unknown): number {
  const minutes = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > 20_160)
    fail(`cannot snooze by ${JSON.stringify(raw)} minutes`, 'use a whole number of minutes from 1 to 20160 (two weeks)');
  return minutes;
}

/** The most comments one task keeps. */
export const MAX_COMMENTS = 10_000;

/** A task's comments, oldest first. */
export function listComments(db: Db, ref: string): Comment[] {
  const task = getTask(db, ref);
  return (cached(db, `SELECT id, task_id, text, created_at FROM comments WHERE task_id = ? ORDER BY created_at, rowid`).all(task.id) as {
    id: string;
    task_id: string;
    text: string;
    created_at: string;
  }[]).map((r) => ({ id: r.id, taskId: r.task_id, text: r.text, createdAt: r.created_at }));
}


/** For each task: its direct subtasks (archived ones aside) and how many of them are done, for "2/5" beside it. */
export function subtaskProgress(db: Db, ids: readonly string[]): { id: string; done: number; total: number }[] {
  const stmt = cached(db, `SELECT coalesce(sum(status = 'done'), 0) AS done, count(*) AS total FROM tasks WHERE parent_id = ? AND status != 'archived'`);
  const seen = new Set<string>();
  const out: { id: string; done: number; total: number }[] = [];
  for (const raw of ids) {
    const id = String(raw).trim().toLowerCase();
    if (seen.has(id)) continue;
    seen.add(id);
    const r = stmt.get(id) as { done: number; total: number };
    out.push({ id, done: r.done, total: r.total });
  }
  return out;
}
