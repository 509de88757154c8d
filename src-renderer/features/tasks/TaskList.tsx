/// <reference types="vite/client" />
/**
 * Tasks as rows: a checkbox completes (with Undo on the notice), the text opens an inline editor (content,
 * due and repeat in quick-add words, priority, project), a flag shows the priority, the repeat is said in
 * words and the due relative to today, red when overdue. The list is one Tab stop; inside it (the keys
 * are in src-renderer/ui/keymaps.ts, which the help shows):
 *   ↑/↓ or k/j move, Enter or e edit, Space or x complete, d due, r repeat, p priority, m move to a project,
 *   Alt+↑/↓ move the task up or down (when the list can be reordered), Esc leaves the editor;
 *   Alt+→/← make it a subtask of the task above or move it a level up, ←/→ hide or show its subtasks.
 * Subtasks are indented under their parent with "2/5" (done of all its subtasks) and a toggle to hide them;
 * completing a parent with open subtasks asks first (they are completed with it, one undoable change).
 * A row also shows the task's labels as chips, its deadline (marked apart from an overdue plan) and its
 * duration; the editor adds the description (Markdown, shown as the chat shows answers), comments,
 * deadline, duration, labels and section.
 * A completed task leaves the list when the view refreshes: the focus then moves to the task that took its
 * place (or the one before it), never to the page body.
 */
import { Fragment, useEffect, useId, useLayoutEffect, useMemo, useRef, useState, type CSSProperties, type KeyboardEvent } from 'react';
import type { Task } from '../../../src-shared/domain';
import { Dialog } from '../../ui/Dialog';
import { durationText, progressText, taskTree } from './tree';
import type { DayGroup } from '../../lib/days';
import { dayPhrase, dueLabel, dueParts, isoDay } from '../../lib/due';
import { focusIfIdle, focusIsLost } from '../../lib/focus';
import { recurrenceWords } from '../../../src-shared/repeat-rules';
import { actionOf, TASK_LIST_ALT_KEYS, TASK_LIST_KEYS } from '../../ui/keymaps';
import { useApp } from '../../store/react';
import { TaskEditor, type EditField } from './TaskEditor';
import '../../styles/tasks-ui.css';
import '../../styles/tasks-polish.css';
import '../../styles/tasks-rich.css';


/** The priority as a coloured flag (p1 red, p2 orange, p3 blue); nothing for p4. */
function PriorityFlag({ priority }: { priority: number }) {
  if (priority < 1 || priority > 3) return null;
  return (
    <span className={`flag p${priority}`} role="img" aria-label={`Priority ${priority}`} title={`Priority ${priority}`}>
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true">
        <path d="M3 1.5v13M3 2h9l-2 3.5L12 9H3" fill="currentColor" stroke="currentColor" strokeWidth="1.4" strokeLinejoin="round" />
      </svg>
    </span>
  );
}

/** The due, relative to today; red when overdue. */
function DueBadge({ due, now }: { due: string | null; now: Date }) {
  const label = dueLabel(due, now);
  if (!label) return null;
  return (
    <span className={`due${label.overdue ? ' overdue' : label.today ? ' today' : ''}`} title={label.long}>
      <time dateTime={due!}>{label.text}</time>
      {label.overdue && <span className="visually-hidden"> (overdue)</span>}
    </span>
  );
}

/** The deadline (a date), relative to today; marked apart from an overdue plan once the day has passed. */
function DeadlineBadge({ deadline, now }: { deadline: string | null | undefined; now: Date }) {
  const p = dueParts(deadline ?? null);
  if (!deadline || !p) return null;
  const passed = deadline.slice(0, 10) < isoDay(now);
  const words = dayPhrase(p.day, now, true);
  return (
    <span className={`deadline${passed ? ' passed' : ''}`} title={`${passed ? 'Deadline passed' : 'Deadline'}: ${words}`}>
      <svg viewBox="0 0 16 16" width="12" height="12" aria-hidden="true">
        <circle cx="8" cy="8" r="6" fill="none" stroke="currentColor" strokeWidth="1.6" />
        <circle cx="8" cy="8" r="2" fill="currentColor" />
      </svg>
      <span className="visually-hidden">{passed ? 'Deadline passed: ' : 'Deadline: '}</span>
      <time dateTime={deadline}>{dueLabel(deadline, now)?.text ?? deadline}</time>
    </span>
  );
}


interface TaskListProps {
  tasks: Task[];
  label: string;
  /** Shows each task's project (views across projects). */
  showProject?: boolean;
  /** Moves a task up or down (Alt+↑/↓ and drag) to just before `next` (last when null), when the list is one project in its own order. */
  onReorder?: (task: Task, next: Task | null) => unknown;
  /** "now" for the relative dates; the wall clock by default. */
  now?: Date;
  /** Day headings (src-renderer/lib/days.ts), each before its first task; the tasks in the groups' order. */
  groups?: readonly DayGroup[];
  /** The last group may go on past the loaded tasks: its count is a lower bound. */
  groupsPartial?: boolean;
  /** Alt+→/← indent and outdent (in a project's own order); by default where the list can be reordered. */
  canIndent?: boolean;
}

export function TaskList({ tasks: given, label, showProject = false, onReorder, now: fixedNow, groups, groupsPartial = false, canIndent = onReorder !== undefined }: TaskListProps) {
  const heads = new Map(groups?.map((g, i) => [g.first, { ...g, partial: groupsPartial && i === groups.length - 1 }]));
  const setTaskDone = useApp((s) => s.setTaskDone);
  const indentTask = useApp((s) => s.indentTask);
  const outdentTask = useApp((s) => s.outdentTask);
  const nestTask = useApp((s) => s.nestTask);
  const labelColours = useLabelColours(given);
  const loadProgress = useApp((s) => s.loadProgress);
  const progress = useApp((s) => s.progress);
  const [collapsed, setCollapsed] = useState<ReadonlySet<string>>(() => new Set());
  /** The parent whose completion waits for the user's answer (it has open subtasks). */
  const [asking, setAsking] = useState<{ task: Task; open: number } | null>(null);
  // Subtasks under their parents (a list grouped by day stays in its order).
  const rows = useMemo(() => (groups ? given.map((task) => ({ task, depth: 0, children: 0, openBelow: 0 })) : taskTree(given, collapsed)), [given, groups, collapsed]);
  const tasks = useMemo(() => rows.map((r) => r.task), [rows]);
  const rowOf = useMemo(() => new Map(rows.map((r) => [r.task.id, r])), [rows]);
  // Asked again when the open tasks shown change, or any task changed (a done subtask is in no open list).
  const tasksVersion = useApp((s) => s.tasksVersion);
  const openIds = given
    .filter((t) => t.status === 'open')
    .map((t) => t.id)
    .join(' ');
  useEffect(() => {
    void loadProgress(openIds ? openIds.split(' ') : []);
  }, [openIds, tasksVersion, loadProgress]);
  /** Open subtasks: those in the list, or (hidden, or not loaded here) what the host counts. */
  const openSubtasks = (t: Task): number => {
    const p = progress[t.id];
    return Math.max(rowOf.get(t.id)?.openBelow ?? 0, p ? p.total - p.done : 0);
  };
  const complete = (t: Task, done: boolean) => {
    const open = done ? openSubtasks(t) : 0;
    if (open > 0) setAsking({ task: t, open });
    else void setTaskDone(t.id, done);
  };
  const toggle = (id: string, hide: boolean) =>
    setCollapsed((c) => {
      const next = new Set(c);
      if (hide) next.add(id);
      else next.delete(id);
      return next;
    });
  const [editing, setEditing] = useState<{ id: string; field: EditField } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [dragging, setDragging] = useState<string | null>(null);
  /** Where the drag started (x): dropped 40 px or more to the right nests, to the left outdents. */
  const dragX = useRef(0);
  const now = useNow(fixedNow);
  const listRef = useRef<HTMLUListElement>(null);
  const announce = useApp((s) => s.announce);
  /** The row the focus was on, while it is in the list. */
  const focusedRow = useRef<number | null>(null);

  const boxes = () => [...(listRef.current?.querySelectorAll<HTMLInputElement>('input[data-task-box]') ?? [])];

  useLayoutEffect(() => {
    const at = focusedRow.current;
    const list = listRef.current;
    if (at === null || !list || list.contains(document.activeElement)) return;
    if (!focusIsLost()) {
      focusedRow.current = null;
      return;
    }
    const all = boxes();
    all[Math.min(at, all.length - 1)]?.focus();
  }, [tasks]);
  useLayoutEffect(
    () => () => {
      // The last task went and the list with it: the view's heading has the focus next.
      if (focusedRow.current !== null) setTimeout(() => focusIfIdle(document.querySelector<HTMLElement>('main [data-view-heading]')), 0);
    },
    [],
  );

  // One Tab stop: the selected row (the first when none is, or the selected one left).
  const current = tasks.some((t) => t.id === selected) ? selected : (tasks[0]?.id ?? null);

  const focusRow = (index: number) => {
    const t = tasks[Math.max(0, Math.min(index, tasks.length - 1))];
    if (!t) return;
    setSelected(t.id);
    boxes()
      .find((b) => b.dataset.taskBox === t.id)
      ?.focus();
  };

  const closeEditor = (id: string) => {
    setEditing(null);
    // Back to the row's checkbox once the editor is gone.
    setTimeout(() => boxes().find((b) => b.dataset.taskBox === id)?.focus(), 0);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLUListElement>) => {
    const target = e.target as HTMLElement;
    if (target.closest('form') || e.ctrlKey || e.metaKey) return;
    const row = target.closest<HTMLElement>('li[data-task]');
    const index = row ? tasks.findIndex((t) => t.id === row.dataset.task) : -1;
    const task = tasks[index];
    if (!task) return;
    if (e.altKey) {
      const move = actionOf(TASK_LIST_ALT_KEYS, e.key);
      if ((move === 'indent' || move === 'outdent') && canIndent) {
        e.preventDefault();
        void (move === 'indent' ? indentTask(task) : outdentTask(task));
        return;
      }
      if ((move === 'moveUp' || move === 'moveDown') && onReorder) {
        const to = move === 'moveUp' ? index - 1 : index + 1;
        if (to < 0 || to >= tasks.length) return;
        e.preventDefault();
        const rest = tasks.filter((t) => t.id !== task.id);
        void onReorder(task, rest[to] ?? null);
      }
      return;
    }
    // Tab goes from task to task and stays in the list past the last one (F6 or Alt+number leave it);
    // Shift+Tab on the first task goes back out of the list as usual.
    if (actionOf(TASK_LIST_KEYS, e.key) === 'tab') {
      if (!e.shiftKey) {
        e.preventDefault();
        if (index + 1 < tasks.length) focusRow(index + 1);
        else announce('Last task. F6 goes to the next part of the window.');
      } else if (index > 0) {
        e.preventDefault();
        focusRow(index - 1);
      }
      return;
    }
    const action = e.shiftKey ? undefined : actionOf(TASK_LIST_KEYS, e.key);
    if (action === 'next') focusRow(index + 1);
    else if (action === 'previous') focusRow(index - 1);
    else if (action === 'first') focusRow(0);
    else if (action === 'last') focusRow(tasks.length - 1);
    else if (action === 'complete') complete(task, task.status !== 'done');
    else if (action === 'collapse' || action === 'expand') {
      if (!rowOf.get(task.id)?.children) return;
      toggle(task.id, action === 'collapse');
    } else if (action && action !== 'tab') setEditing({ id: task.id, field: action });
    else return;
    e.preventDefault();
  };

  return (
    <>
    <ul
      ref={listRef}
      className="task-list"
      aria-label={label}
      onKeyDown={onKeyDown}
      onFocus={(e) => {
        const row = e.target.closest('li');
        // Counted among the task rows (day headings are rows too, but no stops).
        focusedRow.current = row ? [...e.currentTarget.querySelectorAll(':scope > li[data-task]')].indexOf(row) : null;
        const id = row?.getAttribute('data-task');
        if (id) setSelected(id);
      }}
      onBlur={(e) => {
        // Gone to another control: forget the row. (To nothing: the row was removed, keep it.)
        if (e.relatedTarget && !e.currentTarget.contains(e.relatedTarget)) focusedRow.current = null;
      }}
    >
      {tasks.map((t, i) => {
        const r = rowOf.get(t.id)!;
        const done = progressText(progress[t.id]);
        const depthStyle = r.depth > 0 ? ({ '--depth': Math.min(r.depth, 12) } as CSSProperties) : undefined;
        return (
        // Keyed by the task, so a reordered row (and the focus in it) moves rather than being made anew.
        <Fragment key={t.id}>
          {heads.has(t.id) && <DayHead group={heads.get(t.id)!} />}
          {editing?.id === t.id ? (
            <li key={t.id} data-task={t.id} className={`task-row editing${r.depth > 0 ? ' subtask' : ''}`} style={depthStyle}>
              <TaskEditor task={t} field={editing.field} now={now} onClose={() => closeEditor(t.id)} />
            </li>
          ) : (
            <li
              key={t.id}
              data-task={t.id}
              className={`task-row${t.id === current ? ' selected' : ''}${t.id === dragging ? ' dragging' : ''}${r.depth > 0 ? ' subtask' : ''}`}
              style={depthStyle}
              draggable={onReorder || canIndent ? true : undefined}
              onDragStart={(e) => {
                e.dataTransfer.effectAllowed = 'move';
                e.dataTransfer.setData('text/x-tidy-task', t.id);
                dragX.current = e.clientX;
                setDragging(t.id);
              }}
              onDragEnd={() => setDragging(null)}
              onDragOver={(e) => {
                if (dragging && (dragging !== t.id || canIndent)) e.preventDefault();
              }}
              onDrop={(e) => {
                e.preventDefault();
                const moved = tasks.find((x) => x.id === dragging);
                setDragging(null);
                if (!moved) return;
                // Sideways, as Alt+→/←: to the right onto another task nests under it (onto itself: under
                // the one above); to the left takes a subtask a level up.
                const dx = e.clientX - dragX.current;
                if (canIndent && dx >= NEST_PX) return void (moved.id === t.id ? indentTask(moved) : nestTask(moved, t));
                if (canIndent && dx <= -NEST_PX && rowOf.get(moved.id)!.depth > 0) return void outdentTask(moved);
                if (!onReorder || moved.id === t.id) return;
                // Dropped on a row: the task takes that row's place (above it going up, below it going down).
                const from = tasks.indexOf(moved);
                const rest = tasks.filter((x) => x.id !== moved.id);
                const at = rest.indexOf(t) + (from < i ? 1 : 0);
                void onReorder(moved, rest[at] ?? null);
              }}
            >
              <input
                type="checkbox"
                data-task-box={t.id}
                aria-label={t.content}
                tabIndex={t.id === current ? 0 : -1}
                checked={t.status === 'done'}
                onChange={(e) => complete(t, e.target.checked)}
              />
              {r.children > 0 && (
                <button
                  type="button"
                  tabIndex={-1}
                  className="subtask-toggle"
                  aria-expanded={!collapsed.has(t.id)}
                  aria-label={`${collapsed.has(t.id) ? 'Show' : 'Hide'} the subtasks of ${t.content}`}
                  onClick={() => toggle(t.id, !collapsed.has(t.id))}
                >
                  <span aria-hidden="true">{collapsed.has(t.id) ? '▸' : '▾'}</span>
                </button>
              )}
              <button type="button" tabIndex={-1} className={`task-text${t.status === 'done' ? ' done' : ''}`} aria-label={`Edit: ${t.content}`} onClick={() => setEditing({ id: t.id, field: 'content' })}>
                {t.content}
              </button>
              <PriorityFlag priority={t.priority} />
              {t.recurrence && (
                <span className="repeat" role="img" aria-label={`Repeats ${recurrenceWords(t.recurrence)}`} title={`Repeats ${recurrenceWords(t.recurrence)}`}>
                  <span aria-hidden="true">↻ {recurrenceWords(t.recurrence)}</span>
                </span>
              )}
              {done && (
                <span className="subtask-progress" role="img" aria-label={`${progress[t.id]!.done} of ${progress[t.id]!.total} subtasks done`} title="Subtasks done">
                  <span aria-hidden="true">{done}</span>
                </span>
              )}
              {t.description && (
                <span className="has-notes" role="img" aria-label="Has a description" title="Has a description">
                  <span aria-hidden="true">≡</span>
                </span>
              )}
              {(t.labels ?? []).map((l) => {
                const colour = labelColours.get(l.toLowerCase());
                return (
                  <span key={l} className={colour ? 'label-chip coloured' : 'label-chip'} style={colour ? ({ '--label-colour': colour } as CSSProperties) : undefined}>
                    @{l}
                  </span>
                );
              })}
              {t.durationMin ? (
                <span className="duration" title={`Takes ${durationText(t.durationMin)}`}>
                  <span className="visually-hidden">takes </span>
                  {durationText(t.durationMin)}
                </span>
              ) : null}
              <DeadlineBadge deadline={t.deadline} now={now} />
              <DueBadge due={t.due} now={now} />
              {showProject && <span className="badge">{t.project}</span>}
            </li>
          )}
        </Fragment>
        );
      })}
    </ul>
    {asking && (
      <CompleteParent
        task={asking.task}
        open={asking.open}
        onClose={() => setAsking(null)}
        onComplete={() => {
          setAsking(null);
          void setTaskDone(asking.task.id, true);
        }}
      />
    )}
    </>
  );
}

/** Completing a parent with open subtasks: all of them with it (one undoable change), or nothing. */
/** How far sideways (px) a dropped task must have moved to nest or outdent instead of reordering. */
const NEST_PX = 40;

/** The colours of the labels the tasks carry (by lower-case name), loading the labels once when needed. */
function useLabelColours(tasks: readonly Task[]): Map<string, string> {
  const labels = useApp((s) => s.labels);
  const loadLabels = useApp((s) => s.loadLabels);
  const any = tasks.some((t) => (t.labels?.length ?? 0) > 0);
  const idle = labels.value === null && !labels.loading && labels.problem === null;
  useEffect(() => {
    if (any && idle) void loadLabels();
  }, [any, idle, loadLabels]);
  return useMemo(() => new Map((labels.value ?? []).flatMap((l) => (l.colour ? [[l.name.toLowerCase(), l.colour] as [string, string]] : []))), [labels.value]);
}

function CompleteParent({ task, open, onClose, onComplete }: { task: Task; open: number; onClose: () => void; onComplete: () => void }) {
  const id = useId();
  return (
    <Dialog labelledBy={`${id}-title`} onClose={onClose}>
      <h2 id={`${id}-title`}>Complete “{task.content}”?</h2>
      <p>
        It has {open} open subtask{open === 1 ? '' : 's'}. Completing it completes {open === 1 ? 'that one' : 'them all'} too, as one change you can undo.
      </p>
      <div className="actions row">
        <button type="button" className="btn primary" onClick={onComplete}>
          Complete all
        </button>
        <button type="button" className="btn" onClick={onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}

/** A day's heading in the list: "Yesterday 3 done". */
function DayHead({ group }: { group: DayGroup & { partial: boolean } }) {
  return (
    <li className="task-day">
      <h3>
        {group.heading}
        <span className="task-day-count">
          {group.count}
          {group.partial ? '+' : ''} done
        </span>
      </h3>
    </li>
  );
}

/** The wall clock, ticking each minute (so "today" turns into "yesterday" at midnight), or a fixed time. */
function useNow(fixed?: Date): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    if (fixed) return;
    const timer = setInterval(() => setNow(new Date()), 60_000);
    return () => clearInterval(timer);
  }, [fixed]);
  return fixed ?? now;
}

// The editor and its previews moved to TaskEditor.tsx; their old import path keeps working.
export { deadlinePreview, duePreview, PRIORITIES, repeatPreview, repeatText, type EditField } from './TaskEditor';
