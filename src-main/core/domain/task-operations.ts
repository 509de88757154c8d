/**
 * The logged operations on tasks: add, update (text, priority, due date, repeat rule and the rich fields:
 * description, deadline, duration, labels, parent, section), move, reorder, complete, reopen, archive,
 * snooze, indent, outdent, comment. Each is one action in the log; undo puts every row back. Reading tasks
 * and their fields from words: tasks.ts.
 */
import { INBOX_ID, type Comment, type Task, type TaskStatus } from '../../../src-shared/domain';
import { nextDueOnCompletion, nextOccurrence, recurrenceWords } from '../../../src-shared/repeat-rules';
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
import {
  addDaysToDate,
  getTask,
  localDate,
  MAX_COMMENTS,
  normaliseDue,
  parseDeadline,
  parseDescription,
  parseDuration,
  parsePriority,
  parseRecurrence,
  snoozeMinutes,
  subtree,
} from './tasks';

const pad2 = (n: number): string => String(n).padStart(2, '0');

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
    const { next, clause } = nextDueOnCompletion(task.recurrence, task.due, localDate());
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
    // No later date (a COUNT used up, an UNTIL past, a rule that never matches again, or a stored rule
    // that cannot be used): the task is completed all the same, and the summary says why it will not come back.
    const done = setStatus(cs, db, input.task, 'done', 'Completed');
    return { ...done, summary: `${done.summary}; ${clause}` };
  }
  return setStatus(cs, db, input.task, 'done', 'Completed');
});
export const reopenTask = implement('tasks.reopen', (cs, input, db) => setStatus(cs, db, input.task, 'open', 'Reopened'));
export const archiveTask = implement('tasks.archive', (cs, input, db) => setStatus(cs, db, input.task, 'archived', 'Archived task'));

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

export const TASK_OPERATIONS = [addTask, updateTask, moveTask, reorderTask, completeTask, reopenTask, archiveTask, snoozeTask, commentTask, indentTask, outdentTask];
