// The Completed view's day groups (src-renderer/lib/days.ts): grouping the loaded page (1,000 tasks, the
// view's page size) and ten times that, done over a year, against sorting them alone, the floor of any
// newest-first list.
import type { Task } from '../src-shared/domain';
import { groupByDay } from '../src-renderer/lib/days';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newUserRequest, openDatabase } from '../src-main/core';
import { findTasks, resolveFilter, saveFilter } from '../src-main/core/domain/filter';
import { addDaysToDate, localDate, taskCounts } from '../src-main/core/domain/tasks';
import { median, report } from './util';

const okValue = <T>(r: { ok: true; value: T } | { ok: false; error: string }): T => {
  if (!r.ok) throw new Error(r.error);
  return r.value;
};

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
  console.log('');
  await benchFilters();
}

/**
 * A database of `count` tasks in 50 projects with labels, due dates spread over two years around `today`,
 * a tenth done: written with plain inserts (the domain's one-by-one logging would take minutes).
 */
function bigDatabase(count: number, today: string) {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-filter-'));
  const db = openDatabase(join(dir, 'tasks.db'));
  const t = new Date().toISOString();
  db.transaction(() => {
    const project = db.prepare(`INSERT INTO projects (id, name, name_key, builtin, archived_at, created_at, updated_at) VALUES (?, ?, ?, 0, NULL, ?, ?)`);
    for (let p = 1; p <= 50; p++) project.run(`p${p}`, `Project ${p}`, `project ${p}`, t, t);
    const label = db.prepare(`INSERT INTO labels (id, name, name_key, colour, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?)`);
    for (let l = 1; l <= 20; l++) label.run(`g${l}`, `label${l}`, `label${l}`, t, t);
    const task = db.prepare(
      `INSERT INTO tasks (id, content, project_id, priority, due, recurrence, position, status, created_at, updated_at, completed_at) VALUES (?, ?, ?, ?, ?, NULL, ?, ?, ?, ?, ?)`,
    );
    const tl = db.prepare(`INSERT INTO task_labels (id, task_id, label_id) VALUES (?, ?, ?)`);
    for (let i = 1; i <= count; i++) {
      const due = i % 3 === 0 ? null : addDaysToDate(today, (i % 730) - 365);
      const done = i % 10 === 0;
      task.run(`t${i}`, `Task ${i} about thing ${i % 997}`, i % 7 === 0 ? 'inbox' : `p${(i % 50) + 1}`, (i % 4) + 1, due, i, done ? 'done' : 'open', t, t, done ? t : null);
      if (i % 2 === 0) tl.run(`j${i}`, `t${i}`, `g${((i / 2) % 20) + 1}`);
    }
  })();
  return { db, close: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

/** A saved filter over 100,000 tasks (target: median < 20 ms), and the sidebar's counts on every change. */
export async function benchFilters(): Promise<void> {
  const now = new Date(2035, 2, 14, 12, 0);
  const today = localDate(now);
  const { db, close } = bigDatabase(100_000, today);
  try {
    console.log('tasks: saved filters and the sidebar counts over 100,000 tasks (90,000 open)');
    const queries = ['today | overdue', 'p1 & @label3', '#Project 7 & !no date', '(@label1 | @label2) & due before: +7 days', 'search: thing 42'];
    for (const q of queries) {
      okValue(saveFilter(db, newUserRequest(db), { name: q.slice(0, 40), query: q }));
      const saved = resolveFilter(db, q.slice(0, 40));
      let total = 0;
      const t = await median(21, () => {
        total = findTasks(db, { filter: saved.query, limit: 200, today, now }).total;
      });
      report(`filter ${JSON.stringify(q)} (${total.toLocaleString('en')} match, first 200)`, t, 'ms', { max: 20, label: '20 ms' });
    }
    const counts = await median(21, () => taskCounts(db, today));
    report('Today/Upcoming/Inbox counts (on every change)', counts, 'ms');
  } finally {
    close();
  }
}
