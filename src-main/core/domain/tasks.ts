import { DueDate, INBOX_ID, Priority, type Task, type TaskStatus } from '../../../src-shared/domain';
import type { ChangeSet, Row } from '../actions/changes';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from './fail';
import type { MutationBody } from './mutation';
import { implement } from './operation';
import { resolveLiveProject, resolveProject } from './projects';
import { cleanText, now, quote } from './text';

interface TaskRow {
  id: string;
  content: string;
  project_id: string;
  project: string;
  priority: number;
  due: string | null;
  status: TaskStatus;
  created_at: string;
  updated_at: string;
}

const SELECT_TASK = `SELECT t.*, p.name AS project FROM tasks t JOIN projects p ON p.id = t.project_id`;

const toTask = (r: TaskRow): Task => ({
  id: r.id,
  content: r.content,
  projectId: r.project_id,
  project: r.project,
  priority: r.priority,
  due: r.due,
  status: r.status,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export interface TaskQuery {
  /** A project id or name. */
  project?: string;
  status?: TaskStatus | 'all';
  limit?: number;
  offset?: number;
}

/** Tasks oldest first (the order they were captured in), with the total before paging. */
export function listTasks(db: Db, q: TaskQuery = {}): { tasks: Task[]; total: number } {
  const projectId = q.project ? resolveProject(db, q.project).id : null;
  const status = q.status ?? 'open';
  const where = `WHERE (? IS NULL OR t.project_id = ?) AND (? = 'all' OR t.status = ?)`;
  const params = [projectId, projectId, status, status];
  const total = (cached(db, `SELECT count(*) AS n FROM tasks t ${where}`).get(...params) as { n: number }).n;
  const rows = cached(db, `${SELECT_TASK} ${where} ORDER BY t.created_at, t.rowid LIMIT ? OFFSET ?`).all(
    ...params,
    q.limit ?? -1,
    q.offset ?? 0,
  ) as TaskRow[];
  return { tasks: rows.map(toTask), total };
}

export function getTask(db: Db, ref: string): Task {
  const id = String(ref ?? '').trim().toLowerCase();
  const row = cached(db, `${SELECT_TASK} WHERE t.id = ?`).get(id) as TaskRow | undefined;
  if (!row) fail(`no task with id ${quote(String(ref ?? ''))}`, 'list the tasks (inbox or all tasks) to see valid task ids');
  return toTask(row);
}

function parsePriority(raw: unknown): number {
  const n = typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  const r = Priority.safeParse(n);
  if (!r.success) fail(`priority ${JSON.stringify(raw)} is not allowed`, 'use a whole number from 1 (normal) to 4 (urgent)');
  return r.data;
}

function parseDue(raw: unknown): string | null {
  if (raw === null || raw === '') return null;
  const r = DueDate.safeParse(raw);
  if (!r.success) fail(`due date ${JSON.stringify(raw)} is not a date`, 'use YYYY-MM-DD (e.g. 2026-12-24), or an empty value to clear it');
  return r.data;
}

export interface AddTaskInput {
  content: string;
  project?: string;
  priority?: number | string;
  due?: string | null;
}

export const addTask = implement('tasks.add', (cs, input: AddTaskInput, db) => {
  const content = cleanText(input.content, 'task');
  const project = input.project ? resolveLiveProject(db, input.project) : resolveProject(db, INBOX_ID);
  const t = now();
  const row = cs.insert('tasks', {
    id: nextId(db, 't'),
    content,
    project_id: project.id,
    priority: input.priority === undefined ? 1 : parsePriority(input.priority),
    due: input.due === undefined ? null : parseDue(input.due),
    status: 'open',
    created_at: t,
    updated_at: t,
  });
  return { value: getTask(db, String(row['id'])), summary: `Added ${quote(content)} to ${project.name}` };
});

export interface UpdateTaskInput {
  task: string;
  content?: string;
  priority?: number | string;
  due?: string | null;
}

export const updateTask = implement('tasks.update', (cs, input: UpdateTaskInput, db) => {
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
    const due = parseDue(input.due);
    if (due !== task.due) {
      patch['due'] = due;
      words.push(due ? `due ${due}` : 'no due date');
    }
  }
  if (Object.keys(patch).length === 0) fail(`task ${task.id} already looks like that`, 'give a new content, priority or due date');
  cs.update('tasks', task.id, { ...patch, updated_at: now() });
  return { value: getTask(db, task.id), summary: `Updated ${quote(task.content)}: ${words.join(', ')}` };
});

export const moveTask = implement('tasks.move', (cs, input: { task: string; project: string }, db) => {
  const task = getTask(db, input.task);
  const project = resolveLiveProject(db, input.project);
  if (task.projectId === project.id) fail(`task ${task.id} is already in ${project.name}`, 'nothing to move');
  cs.update('tasks', task.id, { project_id: project.id, updated_at: now() });
  return { value: getTask(db, task.id), summary: `Moved ${quote(task.content)} to ${project.name}` };
});

/** A status change: complete, reopen, archive. */
function setStatus(cs: ChangeSet, db: Db, ref: string, to: TaskStatus, verb: string): MutationBody<Task> {
  const task = getTask(db, ref);
  if (task.status === to) fail(`task ${task.id} is already ${to}`, 'nothing to change');
  if (to === 'open') resolveLiveProject(db, task.projectId);
  cs.update('tasks', task.id, { status: to, updated_at: now() });
  return { value: getTask(db, task.id), summary: `${verb} ${quote(task.content)}` };
}

export const completeTask = implement('tasks.complete', (cs, input: { task: string }, db) => setStatus(cs, db, input.task, 'done', 'Completed'));
export const reopenTask = implement('tasks.reopen', (cs, input: { task: string }, db) => setStatus(cs, db, input.task, 'open', 'Reopened'));
export const archiveTask = implement('tasks.archive', (cs, input: { task: string }, db) => setStatus(cs, db, input.task, 'archived', 'Archived task'));

export const TASK_OPERATIONS = [addTask, updateTask, moveTask, completeTask, reopenTask, archiveTask];
