import { DueDate, INBOX_ID, Priority, type Comment, type Task, type TaskStatus } from '../../../src-shared/domain';
import { nextOccurrence, parseDue as parseNaturalDue, parseQuickAdd, recurrenceWords, TASK_FREQS, validRecurrence } from '../../../src-shared/quickadd';
import { checkRule } from '../../../src-shared/recurrence';
import type { ChangeSet, Row } from '../actions/changes';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from '../fail';
import type { MutationBody } from './mutation';
import { implement, type OperationInput } from './operation';
import { cleanLabels, setTaskLabels } from './labels';
import { resolveLiveProject, resolveProject } from './projects';
import { resolveSection } from './sections';
import { cleanText, now, quote } from './text';
import { endPlanBlocks } from './plan-blocks';

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

/** The fields of schema 12, as add and update take them (the same in both schemas). */
export type RichInput = Pick<OperationInput<'tasks.update'>, 'description' | 'deadline' | 'durationMin' | 'labels' | 'parent' | 'section'>;

/**
 * Puts `taskId` under `parentRef` (or on top when null): refuses a cycle; a subtask takes its parent's
 * project and section, with its own subtree. Returns the words for the summary, or null when nothing changed.
 */
function setParent(cs: ChangeSet, db: Db, taskId: string, parentRef: string | null): string | null {
  const task = getTask(db, taskId);
  if (parentRef === null || parentRef === '' || /^\s*none\s*$/i.test(parentRef)) {
    if (task.parentId === null) return null;
    cs.update('tasks', task.id, { parent_id: null, updated_at: now() });
    return 'no parent';
  }
  const parent = getTask(db, parentRef);
  if (parent.id === task.parentId) return null;
  if (subtree(db, task.id).includes(parent.id))
    fail(`task ${task.id} cannot go under ${parent.id}: ${parent.id === task.id ? 'a task cannot be its own subtask' : `${parent.id} is one of its subtasks`}`, `pick a task outside ${task.id}'s subtasks`);
  const t = now();
  cs.update('tasks', task.id, { parent_id: parent.id, updated_at: t });
  if (parent.projectId !== task.projectId || parent.sectionId !== task.sectionId) {
    const position = lastPosition(db, parent.projectId);
    subtree(db, task.id).forEach((id, i) =>
      cs.update('tasks', id, { project_id: parent.projectId, section_id: parent.sectionId ?? null, ...(i === 0 ? { position } : {}), updated_at: t }),
    );
  }
  return `under ${quote(parent.content)}`;
}

/** Applies the schema-12 fields to a task (after add, or as part of an update); returns the words for the summary. */
function applyRich(cs: ChangeSet, db: Db, taskId: string, input: RichInput, fresh: boolean): string[] {
  const task = getTask(db, taskId);
  const patch: Row = {};
  const words: string[] = [];
  if (input.description !== undefined) {
    const description = parseDescription(input.description);
    if (description !== (task.description ?? null)) {
      patch['description'] = description;
      words.push(description ? 'description set' : 'description cleared');
    }
  }
  if (input.deadline !== undefined) {
    const deadline = parseDeadline(input.deadline);
    if (deadline !== (task.deadline ?? null)) {
      patch['deadline'] = deadline;
      words.push(deadline ? `deadline ${deadline}` : 'no deadline');
    }
  }
  if (input.durationMin !== undefined) {
    const duration = parseDuration(input.durationMin);
    if (duration !== (task.durationMin ?? null)) {
      patch['duration_min'] = duration;
      words.push(duration ? `takes ${duration} min` : 'no duration');
    }
  }
  if (Object.keys(patch).length > 0) cs.update('tasks', task.id, { ...patch, ...(fresh ? {} : { updated_at: now() }) });
  if (input.parent !== undefined) {
    const w = setParent(cs, db, task.id, input.parent);
    if (w) words.push(w);
  }
  if (input.section !== undefined) {
    const current = getTask(db, task.id);
    const section = input.section === null || input.section === '' || /^\s*none\s*$/i.test(input.section) ? null : resolveSection(db, current.projectId, input.section);
    if ((section?.id ?? null) !== (current.sectionId ?? null)) {
      if (current.parentId && !input.parent) cs.update('tasks', current.id, { parent_id: null });
      const t = now();
      for (const id of subtree(db, current.id)) cs.update('tasks', id, { section_id: section?.id ?? null, updated_at: t });
      words.push(section ? `in section ${quote(section.name)}` : 'out of its section');
    }
  }
  if (input.labels !== undefined) {
    const names = cleanLabels(input.labels);
    const { created, changed } = setTaskLabels(cs, db, task.id, names);
    if (changed) words.push(names.length ? `labels ${names.map((n) => `@${n}`).join(' ')}${created.length ? ` (new: ${created.join(', ')})` : ''}` : 'no labels');
  }
  return words;
}

/** The next manual position at the end of a project. */
function lastPosition(db: Db, projectId: string): number {
  return ((cached(db, `SELECT max(position) AS p FROM tasks WHERE project_id = ?`).get(projectId) as { p: number | null }).p ?? 0) + 1;
}

export const addTask = implement('tasks.add', (cs, input, db) => {
  const content = cleanText(input.content, 'task');
  const project = input.project ? resolveLiveProject(db, input.project) : resolveProject(db, INBOX_ID);
  const recurrence = input.recurrence === undefined ? null : parseRecurrence(input.recurrence);
  let due = input.due === undefined ? null : normaliseDue(input.due);
  // A repeating task without a date starts at its first occurrence from today.
  if (recurrence && !due) due = nextOccurrence(recurrence, localDate(), addDaysToDate(localDate(), -1));
  const t = now();
  const row = cs.insert('tasks', {
    id: nextId(db, 't'),
    content,
    project_id: project.id,
    priority: input.priority === undefined ? 4 : parsePriority(input.priority),
    due,
    recurrence,
    position: lastPosition(db, project.id),
    status: 'open',
    created_at: t,
    updated_at: t,
  });
  const id = String(row['id']);
  const words = applyRich(cs, db, id, input, true);
  const task = getTask(db, id);
  return { value: task, summary: `Added ${quote(content)} to ${task.project}${words.length ? ` (${words.join(', ')})` : ''}` };
});

export const updateTask = implement('tasks.update', (cs, input, db) => {
  const task = getTask(db, input.task);
  const patch: Row = {};
  const words: string[] = [];
  if (input.content !== undefined) {
    const content = cleanText(input.content, 'task');
    if (content !== task.content) {
      patch['content'] = content;
      words.push(`renamed to ${quote(content)}`);
    }
  }
  if (input.priority !== undefined) {
    const priority = parsePriority(input.priority);
    if (priority !== task.priority) {
      patch['priority'] = priority;
      words.push(`priority ${priority}`);
    }
  }
  if (input.due !== undefined) {
    const due = normaliseDue(input.due);
    if (due !== task.due) {
      patch['due'] = due;
      words.push(due ? `due ${due}` : 'no due date');
    }
  }
  if (input.recurrence !== undefined) {
    const recurrence = parseRecurrence(input.recurrence);
    if (recurrence !== task.recurrence) {
      patch['recurrence'] = recurrence;
      words.push(recurrence ? `repeats ${recurrenceWords(recurrence)}` : 'does not repeat');
      const due = patch['due'] !== undefined ? patch['due'] : task.due;
      if (recurrence && !due) {
        patch['due'] = nextOccurrence(recurrence, localDate(), addDaysToDate(localDate(), -1));
        words.push(`due ${String(patch['due'])}`);
      }
    }
  }
  if (Object.keys(patch).length > 0) cs.update('tasks', task.id, { ...patch, updated_at: now() });
  words.push(...applyRich(cs, db, task.id, input, false));
  if (words.length === 0) fail(`task ${task.id} already looks like that`, 'give a new content, priority, due date, repeat rule, description, deadline, duration, labels, parent or section');
  return { value: getTask(db, task.id), summary: `Updated ${quote(task.content)}: ${words.join(', ')}` };
});

export const moveTask = implement('tasks.move', (cs, input, db) => {
  const task = getTask(db, input.task);
  const project = resolveLiveProject(db, input.project);
  if (task.projectId === project.id) fail(`task ${task.id} is already in ${project.name}`, 'nothing to move');
  // Its subtasks come along; it leaves its parent (which stays where it is) and its section (of the old project).
  const t = now();
  const ids = subtree(db, task.id);
  cs.update('tasks', task.id, { project_id: project.id, parent_id: null, section_id: null, position: lastPosition(db, project.id), updated_at: t });
  for (const id of ids.slice(1)) cs.update('tasks', id, { project_id: project.id, section_id: null, updated_at: t });
  const more = ids.length > 1 ? ` with ${ids.length - 1} subtask${ids.length === 2 ? '' : 's'}` : '';
  return { value: getTask(db, task.id), summary: `Moved ${quote(task.content)}${more} to ${project.name}` };
});

/** Positions closer than this are renumbered before a reorder: halving a gap works about 50 times in a row. */
const MIN_GAP = 1e-6;

export const reorderTask = implement('tasks.reorder', (cs, input, db) => {
  const task = getTask(db, input.task);
  const position = (id: string): number => (cached(db, `SELECT position FROM tasks WHERE id = ?`).get(id) as { position: number }).position;
  if (input.before === null) {
    const last = (cached(db, `SELECT id FROM tasks WHERE project_id = ? AND id != ? ORDER BY position DESC, rowid DESC LIMIT 1`).get(task.projectId, task.id) as
      | { id: string }
      | undefined)?.id;
    if (last === undefined || position(last) < position(task.id)) fail(`task ${task.id} is already last in ${task.project}`, 'nothing to move');
    cs.update('tasks', task.id, { position: position(last) + 1, updated_at: now() });
    return { value: getTask(db, task.id), summary: `Moved ${quote(task.content)} to the end of ${task.project}` };
  }
  const before = getTask(db, input.before);
  if (before.id === task.id) fail(`a task cannot go before itself`, 'give the id of another task of the same project, or null for the end');
  if (before.projectId !== task.projectId)
    fail(`task ${before.id} is in ${before.project}, not ${task.project}`, `move task ${task.id} to ${before.project} first, or pick a task of ${task.project}`);
  const previous = () =>
    cached(db, `SELECT id, position FROM tasks WHERE project_id = ? AND id != ? AND (position < ? OR (position = ? AND rowid < (SELECT rowid FROM tasks WHERE id = ?))) ORDER BY position DESC, rowid DESC LIMIT 1`).get(
      task.projectId,
      task.id,
      position(before.id),
      position(before.id),
      before.id,
    ) as { id: string; position: number } | undefined;
  let prev = previous();
  if (prev?.id === task.id) fail(`task ${task.id} is already just before ${before.id}`, 'nothing to move');
  if (prev && position(before.id) - prev.position < MIN_GAP) {
    // Renumber the project 1, 2, 3… (in the current order) so there is room between any two tasks.
    const ids = (cached(db, `SELECT id FROM tasks WHERE project_id = ? ORDER BY position, rowid`).all(task.projectId) as { id: string }[]).map((r) => r.id);
    ids.forEach((id, i) => {
      if (position(id) !== i + 1) cs.update('tasks', id, { position: i + 1 });
    });
    prev = previous();
  }
  const at = prev ? (prev.position + position(before.id)) / 2 : position(before.id) - 1;
  cs.update('tasks', task.id, { position: at, updated_at: now() });
  return { value: getTask(db, task.id), summary: `Moved ${quote(task.content)} before ${quote(before.content)}` };
});

/** A status change: complete, reopen, archive. */
function setStatus(cs: ChangeSet, db: Db, ref: string, to: TaskStatus, verb: string): MutationBody<Task> {
  const task = getTask(db, ref);
  if (task.status === to) fail(`task ${task.id} is already ${to}`, 'nothing to change');
  if (to === 'open') resolveLiveProject(db, task.projectId);
  const t = now();
  cs.update('tasks', task.id, { status: to, ...(to === 'done' ? { completed_at: t } : to === 'open' ? { completed_at: null } : {}), updated_at: t });
  // Completing a parent completes its open subtasks (Todoist's way); archiving it archives them: one action.
  let more = 0;
  const closed = [task.id];
  if (to !== 'open')
    for (const id of subtree(db, task.id).slice(1)) {
      const status = (cached(db, `SELECT status FROM tasks WHERE id = ?`).get(id) as { status: TaskStatus }).status;
      if (status === 'open' || (to === 'archived' && status === 'done')) {
        cs.update('tasks', id, { status: to, ...(to === 'done' ? { completed_at: t } : {}), updated_at: t });
        if (status === 'open') closed.push(id);
        more++;
      }
    }
  // Its planned blocks still to come end with it, in the same action.
  const blocks = to === 'open' ? 0 : endPlanBlocks(cs, db, closed);
  return {
    value: getTask(db, task.id),
    summary: `${verb} ${quote(task.content)}${more ? ` and ${more} subtask${more === 1 ? '' : 's'}` : ''}${blocks ? `; ${blocks} planned block${blocks === 1 ? '' : 's'} ended` : ''}`,
  };
}

/**
 * Completing a repeating task moves its due date to the next occurrence after both its due date and
 * today (so an overdue daily task lands on tomorrow, not on a day already past), and it stays open. It is
 * one action: undo puts the date back.
 */
export const completeTask = implement('tasks.complete', (cs, input, db) => {
  const task = getTask(db, input.task);
  if (task.status === 'open' && task.recurrence && task.due) {
    const today = localDate();
    const from = task.due.slice(0, 10) > today ? task.due.slice(0, 10) : today;
    const next = nextOccurrence(task.recurrence, task.due, from);
    if (next) {
      const t = now();
      cs.update('tasks', task.id, { due: next, completed_at: t, updated_at: t });
      // The next round starts with its subtasks open again.
      let reopened = 0;
      for (const id of subtree(db, task.id).slice(1)) {
        if ((cached(db, `SELECT status FROM tasks WHERE id = ?`).get(id) as { status: TaskStatus }).status !== 'done') continue;
        cs.update('tasks', id, { status: 'open', completed_at: null, updated_at: t });
        reopened++;
      }
      const blocks = endPlanBlocks(cs, db, [task.id]);
      return {
        value: getTask(db, task.id),
        summary: `Completed ${quote(task.content)}; next due ${next}${reopened ? `; ${reopened} subtask${reopened === 1 ? '' : 's'} open again` : ''}${blocks ? `; ${blocks} planned block${blocks === 1 ? '' : 's'} ended` : ''}`,
      };
    }
    // A stored rule that cannot be walked (saved before rules were checked, or restored from a file):
    // the task is completed all the same, and the summary says why it did not move on.
    const check = checkRule(task.recurrence, { freqs: TASK_FREQS });
    if (!check.ok) {
      const done = setStatus(cs, db, input.task, 'done', 'Completed');
      return { ...done, summary: `${done.summary}; its repeat rule cannot be used (${check.error}), so it does not repeat` };
    }
  }
  return setStatus(cs, db, input.task, 'done', 'Completed');
});
export const reopenTask = implement('tasks.reopen', (cs, input, db) => setStatus(cs, db, input.task, 'open', 'Reopened'));
export const archiveTask = implement('tasks.archive', (cs, input, db) => setStatus(cs, db, input.task, 'archived', 'Archived task'));

/** Minutes to snooze by, from a number or the digits a person types; refused outside 1…20160 (two weeks). */
export function snoozeMinutes(raw: unknown): number {
  const minutes = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
  if (typeof minutes !== 'number' || !Number.isInteger(minutes) || minutes < 1 || minutes > 20_160)
    fail(`cannot snooze by ${JSON.stringify(raw)} minutes`, 'use a whole number of minutes from 1 to 20160 (two weeks)');
  return minutes;
}

/** Moves the due time `minutes` later, from now when it has passed; a task due on a day gets a time. */
export const snoozeTask = implement('tasks.snooze', (cs, input, db) => {
  const task = getTask(db, input.task);
  const minutes = snoozeMinutes(input.minutes);
  if (task.status !== 'open') fail(`task ${task.id} is ${task.status}`, 'reopen it first');
  const nowDate = new Date();
  const due = task.due && task.due.length > 10 ? new Date(`${task.due}:00`) : null;
  const base = due && due > nowDate ? due : nowDate;
  const at = new Date(base.getTime() + minutes * 60_000);
  const next = `${localDate(at)}T${pad2(at.getHours())}:${pad2(at.getMinutes())}`;
  cs.update('tasks', task.id, { due: next, updated_at: now() });
  return { value: getTask(db, task.id), summary: `Snoozed ${quote(task.content)} to ${next}` };
});

/** Makes the task a subtask of the task just above it among its siblings (same project, section and parent). */
export const indentTask = implement('tasks.indent', (cs, input, db) => {
  const task = getTask(db, input.task);
  const above = cached(
    db,
    `SELECT id FROM tasks WHERE project_id = @project AND parent_id IS @parent AND section_id IS @section AND status = 'open' AND id != @id
       AND (position < @position OR (position = @position AND rowid < (SELECT rowid FROM tasks WHERE id = @id)))
     ORDER BY position DESC, rowid DESC LIMIT 1`,
  ).get({ project: task.projectId, parent: task.parentId ?? null, section: task.sectionId ?? null, id: task.id, position: (cached(db, `SELECT position FROM tasks WHERE id = ?`).get(task.id) as { position: number }).position }) as
    | { id: string }
    | undefined;
  if (!above) fail(`task ${task.id} has no task above it to go under`, 'put it below another task first, or set its parent by id');
  const words = setParent(cs, db, task.id, above.id);
  return { value: getTask(db, task.id), summary: `Indented ${quote(task.content)} ${words ?? ''}`.trim() };
});

/** Moves a subtask one level up: beside its parent, under its grandparent (or on top). */
export const outdentTask = implement('tasks.outdent', (cs, input, db) => {
  const task = getTask(db, input.task);
  if (!task.parentId) fail(`task ${task.id} is not a subtask`, 'only a subtask can move up a level');
  const parent = getTask(db, task.parentId);
  setParent(cs, db, task.id, parent.parentId ?? null);
  return { value: getTask(db, task.id), summary: `Outdented ${quote(task.content)} beside ${quote(parent.content)}` };
});

/** The most comments one task keeps. */
export const MAX_COMMENTS = 10_000;

/** Adds a dated note to a task. */
export const commentTask = implement('tasks.comment', (cs, input, db) => {
  const task = getTask(db, input.task);
  const text = parseDescription(input.text);
  if (text === null) fail('comment is empty', 'write what the comment should say');
  const count = (cached(db, `SELECT count(*) AS n FROM comments WHERE task_id = ?`).get(task.id) as { n: number }).n;
  if (count >= MAX_COMMENTS) fail(`task ${task.id} has ${count} comments`, 'that is as many as a task keeps');
  const t = now();
  const row = cs.insert('comments', { id: nextId(db, 'n'), task_id: task.id, text, created_at: t, updated_at: t });
  const comment: Comment = { id: String(row['id']), taskId: task.id, text, createdAt: String(row['created_at']) };
  return { value: comment, summary: `Commented on ${quote(task.content)}` };
});

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

export const TASK_OPERATIONS = [addTask, updateTask, moveTask, reorderTask, completeTask, reopenTask, archiveTask, snoozeTask, commentTask, indentTask, outdentTask];

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
