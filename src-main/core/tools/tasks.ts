import { z } from 'zod';
import { DueDate, INBOX_ID, type Task } from '../../../src-shared/domain';
import { failure, type Failure } from '../../../src-shared/result';
import { getTask, listTasks, localDate } from '../domain/tasks';
import { addTask, completeTask, moveTask, updateTask } from '../domain/task-operations';
import { findTasks } from '../domain/filter';
import { asWritten } from '../../../src-shared/written';
import { nextDueOnCompletion } from '../../../src-shared/repeat-rules';
import { createProject, listProjects } from '../domain/projects';
import { quote } from '../domain/text';
import { fail } from '../fail';
import { capped, defineTool, mutation, read, READ_CAP } from './tool';

/**
 * A repeating task that was completed for good (its rule gives no later date): why it will not come
 * back, as the action's summary says it. A completed task that repeats again stays open (its new due).
 */
export function repeatEnded(t: Task): { note?: string } {
  if (t.status !== 'done' || !t.recurrence || !t.due) return {};
  const { clause } = nextDueOnCompletion(t.recurrence, t.due, localDate());
  return clause ? { note: clause } : {};
}

/**
 * A task as the model sees it: `{id, content, project}`, the creation date only when asked for, priority
 * and due date only when set. Every field is paid for again on every later step of a run (about 17 tokens
 * a task like this, 22 with the date): a 160-task inbox is read once, whole.
 */
function taskRow(t: Task, created = false): Record<string, unknown> {
  return {
    id: t.id,
    content: t.content,
    project: t.project,
    ...(created ? { created: t.createdAt.slice(0, 10) } : {}),
    ...(t.priority < 4 ? { priority: t.priority } : {}),
    ...(t.due ? { due: t.due } : {}),
    ...(t.recurrence ? { repeats: t.recurrence } : {}),
  };
}

/**
 * The fields of schema 12 as add_tasks takes them (snake_case like the other tool arguments). Bare types:
 * every character of a schema is paid on every step of every run; the domain checks the values.
 */
export const RICH_TOOL_FIELDS = {
  description: z.string().optional(),
  deadline: z.string().optional(),
  duration_min: z.number().optional(),
  labels: z.array(z.string()).optional(),
  section: z.string().optional(),
  parent_id: z.string().optional(),
};

/** The same fields as update_task takes them: null clears (labels: [] clears). */
const RICH_UPDATE_FIELDS = {
  description: z.string().nullable().optional(),
  deadline: z.string().nullable().optional(),
  duration_min: z.number().nullable().optional(),
  labels: z.array(z.string()).optional(),
  section: z.string().nullable().optional(),
  parent_id: z.string().nullable().optional(),
};

/** A task as update_task answers: the fields it can change, the rich ones only when set. */
function updatedRow(t: Task): Record<string, unknown> {
  return {
    id: t.id,
    content: t.content,
    project: t.project,
    priority: t.priority,
    due: t.due,
    status: t.status,
    ...(t.deadline ? { deadline: t.deadline } : {}),
    ...(t.durationMin ? { duration_min: t.durationMin } : {}),
    ...(t.labels?.length ? { labels: t.labels } : {}),
    ...(t.section ? { section: t.section } : {}),
    ...(t.parentId ? { parent_id: t.parentId } : {}),
    ...(t.description ? { description: t.description.length > 200 ? `${t.description.slice(0, 200)}…` : t.description } : {}),
  };
}

type RichToolInput = { description?: string | null; deadline?: string | null; duration_min?: number | null; labels?: string[]; section?: string | null; parent_id?: string | null };

/** The tool's fields as the domain takes them. */
export function richInput(r: RichToolInput) {
  return { description: r.description, deadline: r.deadline, durationMin: r.duration_min, labels: r.labels, section: r.section, parent: r.parent_id };
}

/**
 * The agent gives dates as ISO text (it knows today's date from the request): anything else is refused
 * here, so a model's "next week" is never read by the quick-add grammar against a clock it did not see.
 */
export function badDue(due: string | null | undefined): ({ ok: false } & Failure) | null {
  if (due === null || due === undefined || due === '' || DueDate.safeParse(due).success) return null;
  return {
    ok: false,
    ...failure(
      `due date ${JSON.stringify(due)} is not a date`,
      'use YYYY-MM-DD, or YYYY-MM-DDTHH:MM (local time) for a time, e.g. 2026-12-24 or 2026-12-24T15:00; null clears it',
    ),
  };
}

/** The fields find_tasks adds on request (DESIGN's JSON names). */
const FIND_FIELDS = ['priority', 'due', 'deadline', 'durationMin', 'labels', 'section', 'parentId', 'description', 'repeats', 'status', 'created'] as const;

function fieldOf(t: Task, f: (typeof FIND_FIELDS)[number]): unknown {
  switch (f) {
    case 'repeats':
      return t.recurrence;
    case 'created':
      return t.createdAt.slice(0, 10);
    default:
      return t[f] ?? null;
  }
}

export const TASK_TOOLS = [
  defineTool({
    name: 'get_inbox_tasks',
    description: 'Inbox tasks (created: true adds their creation dates).',
    input: z.strictObject({ created: z.boolean().optional() }),
    effect: 'read',
    run: ({ created }, { db }) =>
      read(() => {
        const { tasks, total } = listTasks(db, { project: INBOX_ID, limit: READ_CAP });
        return capped('tasks', tasks.map((t) => taskRow(t, created)), total, 'move or complete these, then call again for the rest');
      }),
  }),
  defineTool({
    name: 'get_all_tasks',
    description: 'Open tasks of every project, or of one (project_id).',
    input: z.strictObject({ project_id: z.string().optional(), created: z.boolean().optional() }),
    effect: 'read',
    run: ({ project_id, created }, { db }) =>
      read(() => {
        const { tasks, total } = listTasks(db, { project: project_id, limit: READ_CAP });
        return capped('tasks', tasks.map((t) => taskRow(t, created)), total, 'pass project_id, or use search, to narrow it');
      }),
  }),
  defineTool({
    name: 'get_all_projects',
    description: 'All projects, the Inbox included, with their ids.',
    input: z.strictObject({}),
    effect: 'read',
    run: (_, { db }) =>
      read(() => {
        const projects = listProjects(db);
        return capped('projects', projects.slice(0, READ_CAP).map((p) => ({ id: p.id, name: p.name })), projects.length, 'use search to find one by name');
      }),
  }),
  defineTool({
    name: 'create_project',
    description: 'Create a project; if the name is taken, use the existing one.',
    input: z.strictObject({ name: z.string() }),
    effect: 'write',
    changesExisting: () => 0,
    // Named as the user would write it (src-shared/written.ts): "birthday_celebration" → "Birthday celebration".
    run: ({ name }, { db, action }) => mutation(createProject(db, action, { name: asWritten(name) }), (p) => ({ id: p.id, name: p.name })),
  }),
  defineTool({
    name: 'move_task',
    idempotent: true,
    description: 'Move one task to a project; for several, use move_tasks.',
    input: z.strictObject({ task_id: z.string(), project_id: z.string() }),
    effect: 'write',
    run: ({ task_id, project_id }, { db, action }) =>
      mutation(moveTask(db, action, { task: task_id, project: project_id }), (t) => ({ ok: true, id: t.id, content: t.content, project: t.project })),
  }),
  defineTool({
    name: 'add_task',
    description: 'Add one task (to the Inbox unless project_id); for several, use add_tasks.',
    input: z.strictObject({ content: z.string(), project_id: z.string().optional() }),
    effect: 'write',
    changesExisting: () => 0,
    run: ({ content, project_id }, { db, action }) =>
      mutation(addTask(db, action, { content, project: project_id }), (t) => ({ id: t.id, content: t.content, project: t.project })),
  }),
  defineTool({
    name: 'update_task',
    idempotent: true,
    description: "Change a task's fields; priority 1 urgent…4 normal; due/deadline YYYY-MM-DD[THH:MM]; null clears; labels replace.",
    input: z.strictObject({
      task_id: z.string(),
      content: z.string().optional(),
      priority: z.number().int().min(1).max(4).optional(),
      due: z.string().nullable().optional(),
      ...RICH_UPDATE_FIELDS,
    }),
    effect: 'write',
    run: ({ task_id, content, priority, due, ...rich }, { db, action }) =>
      badDue(due) ?? badDue(rich.deadline) ?? mutation(updateTask(db, action, { task: task_id, content, priority, due, ...richInput(rich) }), updatedRow),
  }),
  defineTool({
    name: 'complete_task',
    idempotent: true,
    description: 'Mark one task done; for several, use complete_tasks.',
    input: z.strictObject({ task_id: z.string() }),
    effect: 'write',
    approval: 'ask',
    confirm: ({ task_id }, { db }) => `Complete task ${quote(getTask(db, task_id).content)}?`,
    run: ({ task_id }, { db, action }) => mutation(completeTask(db, action, { task: task_id }), (t) => ({ ok: true, ...repeatEnded(t) })),
  }),
];

/** `find_tasks` (DESIGN "Tools"): open tasks by a filter, with only the fields asked for. */
export const findTasksTool = defineTool({
    name: 'find_tasks',
    description: 'Open tasks by filter: today, overdue, p1, #Project, @label, /Section, due before: DATE, search: X, & | ! ()',
    input: z.strictObject({ filter: z.string(), limit: z.number().optional(), offset: z.number().optional(), fields: z.array(z.string()).optional() }),
    effect: 'read',
    run: ({ filter, limit, offset, fields }, { db, services }) =>
      read(() => {
        const unknown = (fields ?? []).find((f) => !(FIND_FIELDS as readonly string[]).includes(f));
        if (unknown !== undefined) fail(`no field ${JSON.stringify(unknown.slice(0, 40))}`, `fields are ${FIND_FIELDS.join(', ')}`);
        offset = Math.max(0, Math.floor(offset ?? 0));
        const { tasks, total } = findTasks(db, { filter, limit: Math.max(1, Math.min(Math.floor(limit ?? READ_CAP), READ_CAP)), offset, today: localDate(services.now()), now: services.now() });
        const extra = new Set((fields ?? []) as (typeof FIND_FIELDS)[number][]);
        const rows = tasks.map((t) => ({
          id: t.id,
          content: t.content,
          project: t.project,
          ...Object.fromEntries([...extra].map((f) => [f, fieldOf(t, f)])),
        }));
        const shown = offset + rows.length;
        return { tasks: rows, total, ...(shown < total ? { hint: `showing ${rows.length} of ${total}; pass offset ${shown} for more` } : {}) };
      }),
  });
