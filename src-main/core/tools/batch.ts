/**
 * Batch tools (DESIGN "Tools"): one call for many items, so a model clears a real inbox in a handful of
 * requests. Every valid item is applied through the same logged operation as the single-item tool (each
 * its own action, undoable alone or with the request); each failed item is reported with its own error
 * and hint, and does not sink the batch. A whole call counts as one action against max actions.
 */
import { z } from 'zod';
import { Priority, type Task } from '../../../src-shared/domain';
import { failure } from '../../../src-shared/result';
import { getTask } from '../domain/tasks';
import { addTask, completeTask, moveTask } from '../domain/task-operations';
import { resolveLiveProject } from '../domain/projects';
import { quote } from '../domain/text';
import { badDue, repeatEnded, richInput, RICH_TOOL_FIELDS } from './tasks';
import type { Mutated } from '../domain/mutation';
import { defineTool, type ToolOutcome } from './tool';

/** The most items one batch call takes; more is refused with a hint to split. */
const BATCH_MAX = 100;

const ids = z.array(z.string()).min(1).max(BATCH_MAX);

/**
 * Runs `apply` for every item, collecting what succeeded (shaped for the model) and what failed. The
 * outcome is ok when at least one item was applied or none was given; all-failed is a failure, so the
 * loop shows it as one.
 */
function batch<I, T>(
  items: readonly I[],
  apply: (item: I) => Mutated<T>,
  done: (value: T) => unknown,
  failedKey: (item: I) => Record<string, unknown>,
  names: { ok: string },
): ToolOutcome {
  const succeeded: unknown[] = [];
  const failed: Record<string, unknown>[] = [];
  const actionIds: string[] = [];
  for (const item of items) {
    const r = apply(item);
    if (r.ok) {
      succeeded.push(done(r.value));
      actionIds.push(r.actionId);
    } else failed.push({ ...failedKey(item), error: r.error, hint: r.hint });
  }
  return { ok: true, value: { [names.ok]: succeeded, failed }, actionIds };
}

const taskIdsOf = (input: { task_ids: string[] }): number => new Set(input.task_ids).size;

export const BATCH_TOOLS = [
  defineTool({
    name: 'move_tasks',
    idempotent: true,
    description: `Move up to ${BATCH_MAX} tasks to one project; reports each task not moved.`,
    input: z.strictObject({ task_ids: ids, project_id: z.string() }),
    effect: 'write',
    changesExisting: taskIdsOf,
    run: ({ task_ids, project_id }, { db, action }) => {
      // A bad project fails the whole call at once, with one error instead of one per task.
      const project = resolveLiveProject(db, project_id);
      return batch(
        [...new Set(task_ids)],
        (task) => moveTask(db, action, { task, project: project.id }),
        (t) => ({ id: t.id, content: t.content }),
        (task) => ({ task_id: task }),
        { ok: 'moved' },
      );
    },
  }),
  defineTool({
    name: 'add_tasks',
    description: `Add up to ${BATCH_MAX} tasks; priority 1 urgent…4 normal; due YYYY-MM-DD[THH:MM]; parent_id: a task id or $N (item N, from 1).`,
    input: z.strictObject({
      tasks: z
        .array(
          z.strictObject({
            content: z.string(),
            project_id: z.string().optional(),
            priority: Priority.optional(),
            due: z.string().nullable().optional(),
            ...RICH_TOOL_FIELDS,
          }),
        )
        .min(1)
        .max(BATCH_MAX),
    }),
    effect: 'write',
    changesExisting: () => 0,
    run: ({ tasks }, { db, action }) => {
      // A subtree in one call: parent_id "$2" is the task the 2nd item of this call became.
      const made: (string | null)[] = [];
      return batch(
        tasks,
        // A bad date fails this item only, like any other refusal.
        (t) => {
          const { content, project_id, priority, due, ...rich } = t;
          const ref = /^\$(\d{1,3})$/.exec(rich.parent_id?.trim() ?? '');
          const n = ref ? Number(ref[1]) : 0;
          const parent = ref ? made[n - 1] : rich.parent_id;
          const r: Mutated<Task> =
            ref && (n < 1 || n > made.length || !parent)
              ? { ok: false, ...failure(`parent_id ${rich.parent_id} is not an earlier item that was added`, 'use $N for the Nth item of this call (from 1), when it comes before and was added, or a task id') }
              : (badDue(due) ?? badDue(rich.deadline) ?? addTask(db, action, { content, project: project_id, priority, due, ...richInput({ ...rich, parent_id: parent ?? undefined }) }));
          made.push(r.ok ? r.value.id : null);
          return r;
        },
        (t) => ({ id: t.id, content: t.content, project: t.project, ...(t.parentId ? { parent_id: t.parentId } : {}) }),
        (t) => ({ content: t.content }),
        { ok: 'added' },
      );
    },
  }),
  defineTool({
    name: 'complete_tasks',
    idempotent: true,
    description: `Mark up to ${BATCH_MAX} tasks done; reports each task not completed.`,
    input: z.strictObject({ task_ids: ids }),
    effect: 'write',
    approval: 'ask',
    changesExisting: taskIdsOf,
    confirm: ({ task_ids }, { db }) => {
      const unique = [...new Set(task_ids)];
      const named = unique.map((id) => {
        try {
          return quote(getTask(db, id).content);
        } catch {
          return `${id.slice(0, 20)} (no such task)`;
        }
      });
      const shown = named.slice(0, 10).join(', ');
      return `Complete ${unique.length} task${unique.length === 1 ? '' : 's'}: ${shown}${named.length > 10 ? ` and ${named.length - 10} more` : ''}?`;
    },
    run: ({ task_ids }, { db, action }) =>
      batch(
        [...new Set(task_ids)],
        (task) => completeTask(db, action, { task }),
        (t) => ({ id: t.id, content: t.content, ...repeatEnded(t) }),
        (task) => ({ task_id: task }),
        { ok: 'completed' },
      ),
  }),
];
