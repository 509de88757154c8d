import { z } from 'zod';
import { DueDate, INBOX_ID, type Task } from '../../../src-shared/domain';
import { failure, type Failure } from '../../../src-shared/result';
import { addTask, completeTask, getTask, listTasks, moveTask, updateTask } from '../domain/tasks';
import { asWritten } from '../../../src-shared/written';
import { createProject, listProjects } from '../domain/projects';
import { quote } from '../domain/text';
import { capped, defineTool, mutation, read, READ_CAP } from './tool';

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

export const TASK_TOOLS = [
  defineTool({
    name: 'get_inbox_tasks',
    description: 'Open tasks in the Inbox (created: true adds each one\'s creation date).',
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
    description: 'Open tasks of every project, or of one project (project_id from get_all_projects).',
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
    description: 'Create a project. Fails if the name is taken: then use the existing project.',
    input: z.strictObject({ name: z.string() }),
    effect: 'write',
    changesExisting: () => 0,
    // Named as the user would write it (src-shared/written.ts): "birthday_celebration" → "Birthday celebration".
    run: ({ name }, { db, action }) => mutation(createProject(db, action, { name: asWritten(name) }), (p) => ({ id: p.id, name: p.name })),
  }),
  defineTool({
    name: 'move_task',
    idempotent: true,
    description: 'Move one task to a project (ids from get_inbox_tasks/get_all_tasks and get_all_projects); for several, use move_tasks.',
    input: z.strictObject({ task_id: z.string(), project_id: z.string() }),
    effect: 'write',
    run: ({ task_id, project_id }, { db, action }) =>
      mutation(moveTask(db, action, { task: task_id, project: project_id }), (t) => ({ ok: true, id: t.id, content: t.content, project: t.project })),
  }),
  defineTool({
    name: 'add_task',
    description: 'Add one task, to the Inbox unless project_id is given; for several, use add_tasks.',
    input: z.strictObject({ content: z.string(), project_id: z.string().optional() }),
    effect: 'write',
    changesExisting: () => 0,
    run: ({ content, project_id }, { db, action }) =>
      mutation(addTask(db, action, { content, project: project_id }), (t) => ({ id: t.id, content: t.content, project: t.project })),
  }),
  defineTool({
    name: 'update_task',
    idempotent: true,
    description:
      "Change a task's content, priority (1 most urgent…4 normal) or due date (YYYY-MM-DD or YYYY-MM-DDTHH:MM local; null clears).",
    input: z.strictObject({
      task_id: z.string(),
      content: z.string().optional(),
      priority: z.number().int().min(1).max(4).optional(),
      due: z.string().nullable().optional(),
    }),
    effect: 'write',
    run: ({ task_id, ...change }, { db, action }) =>
      badDue(change.due) ??
      mutation(updateTask(db, action, { task: task_id, ...change }), (t) => ({
        id: t.id,
        content: t.content,
        project: t.project,
        priority: t.priority,
        due: t.due,
        status: t.status,
      })),
  }),
  defineTool({
    name: 'complete_task',
    idempotent: true,
    description: 'Mark one task done; for several, use complete_tasks.',
    input: z.strictObject({ task_id: z.string() }),
    effect: 'write',
    approval: 'ask',
    confirm: ({ task_id }, { db }) => `Complete task ${quote(getTask(db, task_id).content)}?`,
    run: ({ task_id }, { db, action }) => mutation(completeTask(db, action, { task: task_id }), () => ({ ok: true })),
  }),
];
