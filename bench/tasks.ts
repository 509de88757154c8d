// The Completed view's day groups (src-renderer/lib/days.ts): grouping the loaded page (1,000 tasks, the
// view's page size) and ten times that, done over a year, against sorting them alone, the floor of any
// newest-first list.
import type { Task } from '../src-shared/domain';
import { groupByDay } from '../src-renderer/lib/days';
import { median, report } from './util';

// The view's page size (TASK_PAGE in src-renderer/features/tasks/data-slice.ts, which the node build does not type).
const TASK_PAGE = 1000;

function doneTasks(count: number, now: number): Task[] {
  // Shuffled completion times over the last year, so the sort has work to do.
  return Array.from({ length: count }, (_, i) => {
    const at = new Date(now - ((i * 7919) % count) * ((365 * 86_400_000) / count)).toISOString();
    return { id: `t${i}`, content: `Task ${i}`, projectId: 'inbox', project: 'Inbox', priority: 4, due: null, recurrence: null, status: 'done', completedAt: at, createdAt: at, updatedAt: at };
  });
}

export async function benchTasks(): Promise<void> {
  console.log('tasks: Completed grouped by local day');
  const now = Date.now();
  for (const count of [TASK_PAGE, TASK_PAGE * 10]) {
    const tasks = doneTasks(count, now);
    const sortOnly = await median(21, () => {
      const keyed = tasks.map((t) => ({ t, ms: Date.parse(t.completedAt!) }));
      return keyed.sort((a, b) => b.ms - a.ms).map((k) => k.t);
    });
    let days = 0;
    const grouped = await median(21, () => {
      days = groupByDay(tasks, new Date(now)).groups.length;
    });
    report(`group ${count} tasks into ${days} days`, grouped, 'ms', { max: count === TASK_PAGE ? 16 : 160, label: count === TASK_PAGE ? 'one frame, 16 ms' : '160 ms' });
    report(`  ratio to sorting them alone`, grouped / sortOnly, '×');
  }
}
