/**
 * Subtasks as a tree in a task list: each task under its parent (when the parent is in the same list),
 * indented by depth, in the list's own order among siblings; a task whose parent is not shown (Today, a
 * filter) stands on its own. Collapsed tasks hide everything under them. Pure: no React, no store.
 */
import type { Task } from '../../../src-shared/domain';

interface TreeRow {
  task: Task;
  /** 0 for a task on top, 1 for its subtasks, … */
  depth: number;
  /** How many of its subtasks are in the list (direct ones). */
  children: number;
  /** Its open subtasks in the list, at any depth. */
  openBelow: number;
}

/** The rows to show, in order; `collapsed` hides the subtasks of those tasks. Any depth; a cycle cannot loop. */
export function taskTree(tasks: readonly Task[], collapsed: ReadonlySet<string> = new Set()): TreeRow[] {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const kids = new Map<string, Task[]>();
  const roots: Task[] = [];
  for (const t of tasks) {
    const parent = t.parentId ?? null;
    if (parent !== null && parent !== t.id && byId.has(parent)) {
      const list = kids.get(parent);
      if (list) list.push(t);
      else kids.set(parent, [t]);
    } else roots.push(t);
  }

  // Open tasks under each task, counted bottom-up without recursion (a chain of thousands stays flat).
  const openBelow = new Map<string, number>();
  const order: Task[] = [];
  const seen = new Set<string>();
  const walk = (start: readonly Task[]) => {
    const stack = [...start].reverse();
    while (stack.length) {
      const t = stack.pop()!;
      if (seen.has(t.id)) continue;
      seen.add(t.id);
      order.push(t);
      const c = kids.get(t.id);
      if (c) for (let i = c.length - 1; i >= 0; i--) stack.push(c[i]!);
    }
  };
  walk(roots);
  // Tasks only reachable through a cycle of parents (never made by Tidy): shown on top, not lost.
  for (const t of tasks) if (!seen.has(t.id)) walk([t]);
  for (let i = order.length - 1; i >= 0; i--) {
    const t = order[i]!;
    const below = (kids.get(t.id) ?? []).reduce((n, c) => n + (openBelow.get(c.id) ?? 0) + (c.status === 'open' ? 1 : 0), 0);
    openBelow.set(t.id, below);
  }

  const rows: TreeRow[] = [];
  const placed = new Set<string>();
  const stack: { task: Task; depth: number }[] = [...roots].reverse().map((task) => ({ task, depth: 0 }));
  const emit = () => {
    while (stack.length) {
      const { task, depth } = stack.pop()!;
      if (placed.has(task.id)) continue;
      placed.add(task.id);
      const c = kids.get(task.id) ?? [];
      rows.push({ task, depth, children: c.length, openBelow: openBelow.get(task.id) ?? 0 });
      if (collapsed.has(task.id)) {
        // Hidden, but not shown again elsewhere.
        const hide = [...c];
        while (hide.length) {
          const h = hide.pop()!;
          if (placed.has(h.id)) continue;
          placed.add(h.id);
          hide.push(...(kids.get(h.id) ?? []));
        }
        continue;
      }
      for (let i = c.length - 1; i >= 0; i--) stack.push({ task: c[i]!, depth: depth + 1 });
    }
  };
  emit();
  for (const t of tasks)
    if (!placed.has(t.id)) {
      stack.push({ task: t, depth: 0 });
      emit();
    }
  return rows;
}

/** "2/5": done of all direct subtasks, from the host's counts (done ones are not in an open list). */
export function progressText(p: { done: number; total: number } | undefined): string | null {
  return p && p.total > 0 ? `${p.done}/${p.total}` : null;
}

/** Minutes as people write them: 45m, 2h, 1h30m. */
export function durationText(min: number | null | undefined): string {
  if (!min || min < 1) return '';
  const h = Math.floor(min / 60);
  const m = min % 60;
  return h === 0 ? `${m}m` : m === 0 ? `${h}h` : `${h}h${m}m`;
}

/** Label names typed in a field ("@home errands, Work"): without @, no repeats (any case; the first spelling wins). */
export function readLabels(text: string): string[] {
  const seen = new Map<string, string>();
  for (const w of text.split(/[\s,]+/)) {
    const name = w.replace(/^@+/, '');
    if (name && !seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  }
  return [...seen.values()];
}

/** The same labels, whatever the case and order. */
export function sameLabels(a: readonly string[], b: readonly string[]): boolean {
  const k = (l: readonly string[]) => [...l].map((x) => x.toLowerCase()).sort().join('\n');
  return k(a) === k(b);
}
