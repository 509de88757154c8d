/// <reference types="vite/client" />
/**
 * Tasks as rows: a checkbox completes (with Undo on the notice), the text opens an inline editor (content,
 * due and repeat in quick-add words, priority, project), a flag shows the priority, the repeat is said in
 * words and the due relative to today, red when overdue. The list is one Tab stop; inside it (the keys
 * are in src-renderer/ui/keymaps.ts, which the help shows):
 *   ↑/↓ or k/j move, Enter or e edit, Space or x complete, d due, r repeat, p priority, m move to a project,
 *   Alt+↑/↓ move the task up or down (when the list can be reordered), Esc leaves the editor.
 * A completed task leaves the list when the view refreshes: the focus then moves to the task that took its
 * place (or the one before it), never to the page body.
 */
import { Fragment, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import type { Task } from '../../../src-shared/domain';
import type { DayGroup } from '../../lib/days';
import { dayPhrase, dueLabel, dueParts, isoDay } from '../../lib/due';
import { clockOf, dueFieldText } from '../../lib/when';
import { focusIfIdle, focusIsLost } from '../../lib/focus';
import type { Problem } from '../../lib/problem';
import { firstOccurrence, parseDue, readRepeat, recurrenceWords, type RepeatReading } from '../../../src-shared/quickadd';
import { actionOf, TASK_EDITOR_KEYS, TASK_LIST_ALT_KEYS, TASK_LIST_KEYS } from '../../ui/keymaps';
import { useApp } from '../../store/react';
import '../../styles/tasks-ui.css';
import '../../styles/tasks-polish.css';

/** The four priorities as people say them: p1 is the most urgent, p4 (normal) shows no flag. */
export const PRIORITIES = [
  { value: 1, label: 'p1 · urgent' },
  { value: 2, label: 'p2 · high' },
  { value: 3, label: 'p3 · medium' },
  { value: 4, label: 'p4 · normal' },
] as const;

/** The priority as a coloured flag (p1 red, p2 orange, p3 blue); nothing for p4. */
export function PriorityFlag({ priority }: { priority: number }) {
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
export function DueBadge({ due, now }: { due: string | null; now: Date }) {
  const label = dueLabel(due, now);
  if (!label) return null;
  return (
    <span className={`due${label.overdue ? ' overdue' : label.today ? ' today' : ''}`} title={label.long}>
      <time dateTime={due!}>{label.text}</time>
      {label.overdue && <span className="visually-hidden"> (overdue)</span>}
    </span>
  );
}

/** Which field of the editor gets the focus when it opens. */
export type EditField = 'content' | 'due' | 'repeat' | 'priority' | 'project';

export interface TaskListProps {
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
}

export function TaskList({ tasks, label, showProject = false, onReorder, now: fixedNow, groups, groupsPartial = false }: TaskListProps) {
  const heads = new Map(groups?.map((g, i) => [g.first, { ...g, partial: groupsPartial && i === groups.length - 1 }]));
  const setTaskDone = useApp((s) => s.setTaskDone);
  const [editing, setEditing] = useState<{ id: string; field: EditField } | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [dragging, setDragging] = useState<string | null>(null);
  const now = useNow(fixedNow);
  const listRef = useRef<HTMLUListElement>(null);
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
      if (move && onReorder) {
        const to = move === 'moveUp' ? index - 1 : index + 1;
        if (to < 0 || to >= tasks.length) return;
        e.preventDefault();
        const rest = tasks.filter((t) => t.id !== task.id);
        void onReorder(task, rest[to] ?? null);
      }
      return;
    }
    const action = e.shiftKey ? undefined : actionOf(TASK_LIST_KEYS, e.key);
    if (action === 'next') focusRow(index + 1);
    else if (action === 'previous') focusRow(index - 1);
    else if (action === 'first') focusRow(0);
    else if (action === 'last') focusRow(tasks.length - 1);
    else if (action === 'complete') void setTaskDone(task.id, task.status !== 'done');
    else if (action) setEditing({ id: task.id, field: action });
    else return;
    e.preventDefault();
  };

  return (
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
      {tasks.map((t, i) => (
        // Keyed by the task, so a reordered row (and the focus in it) moves rather than being made anew.
        <Fragment key={t.id}>
          {heads.has(t.id) && <DayHead group={heads.get(t.id)!} />}
          {editing?.id === t.id ? (
            <li key={t.id} data-task={t.id} className="task-row editing">
              <TaskEditor task={t} field={editing.field} now={now} onClose={() => closeEditor(t.id)} />
            </li>
          ) : (
            <li
              key={t.id}
              data-task={t.id}
              className={`task-row${t.id === current ? ' selected' : ''}${t.id === dragging ? ' dragging' : ''}`}
              draggable={onReorder ? true : undefined}
              onDragStart={(e) => {
                e.dataTransfer.effectAllowed = 'move';
                e.dataTransfer.setData('text/x-tidy-task', t.id);
                setDragging(t.id);
              }}
              onDragEnd={() => setDragging(null)}
              onDragOver={(e) => {
                if (dragging && dragging !== t.id) e.preventDefault();
              }}
              onDrop={(e) => {
                e.preventDefault();
                const moved = tasks.find((x) => x.id === dragging);
                setDragging(null);
                if (!moved || !onReorder || moved.id === t.id) return;
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
                onChange={(e) => void setTaskDone(t.id, e.target.checked)}
              />
              <button type="button" tabIndex={-1} className={`task-text${t.status === 'done' ? ' done' : ''}`} aria-label={`Edit: ${t.content}`} onClick={() => setEditing({ id: t.id, field: 'content' })}>
                {t.content}
              </button>
              <PriorityFlag priority={t.priority} />
              {t.recurrence && (
                <span className="repeat" role="img" aria-label={`Repeats ${recurrenceWords(t.recurrence)}`} title={`Repeats ${recurrenceWords(t.recurrence)}`}>
                  <span aria-hidden="true">↻ {recurrenceWords(t.recurrence)}</span>
                </span>
              )}
              <DueBadge due={t.due} now={now} />
              {showProject && <span className="badge">{t.project}</span>}
            </li>
          )}
        </Fragment>
      ))}
    </ul>
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

/**
 * What the due field will store, in words: "Fri Nov 27 15:00", "no due date", or why not. A task that
 * repeats (`rule`) needs a due to count its repeats from: left empty, it gets the first occurrence from
 * today, as the core gives one (src-main/core/domain/tasks.ts).
 */
export function duePreview(text: string, now: Date, rule: string | null = null): { due: string | null; words: string; ok: boolean } {
  const t = text.trim();
  if (!t && rule) {
    const first = firstOccurrence(rule, isoDay(now));
    if (first) return { due: first, words: `a repeating task needs a due date: ${dayPhrase(dueParts(first)!.day, now, true)}, its first repeat`, ok: true };
  }
  if (!t) return { due: null, words: 'no due date', ok: true };
  const due = parseDue(t, now);
  const p = dueParts(due);
  if (!due || !p) return { due: null, words: 'not a date I know — try "tomorrow", "fri 3pm" or 2026-12-24', ok: false };
  return { due, words: `${dayPhrase(p.day, now, true)}${p.time ? ` ${clockOf(p.time)}` : ''}`, ok: true };
}

/** The text the Repeats field starts with: the rule in words when they read back as the same rule, else the RRULE. */
export function repeatText(rule: string | null): string {
  if (!rule) return '';
  const words = recurrenceWords(rule);
  const back = readRepeat(words);
  return back.ok && back.rule === rule ? words : rule;
}

/** What the Repeats field will store, in words: "every Monday", "does not repeat", or why not. */
export function repeatPreview(reading: RepeatReading): { words: string; ok: boolean } {
  if (!reading.ok) return { words: `${reading.message} — ${reading.hint}`, ok: false };
  return { words: reading.rule ? `repeats ${recurrenceWords(reading.rule)}` : 'does not repeat', ok: true };
}

/** The inline editor of one task: Enter saves, Esc cancels. Each change is a logged, undoable operation. */
function TaskEditor({ task, field, now, onClose }: { task: Task; field: EditField; now: Date; onClose: () => void }) {
  const editTask = useApp((s) => s.editTask);
  const archiveTask = useApp((s) => s.archiveTask);
  const projects = useApp((s) => s.projects.value);
  const [content, setContent] = useState(task.content);
  // The due in words the Due field reads back (never 2026-12-01T10:00); unchanged, it saves as stored.
  const startDue = task.due ? dueFieldText(task.due) : '';
  const [due, setDue] = useState(startDue);
  const startRepeat = repeatText(task.recurrence);
  const [repeat, setRepeat] = useState(startRepeat);
  const [priority, setPriority] = useState(task.priority);
  const [project, setProject] = useState(task.projectId);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const id = useId();
  const repeatReading = readRepeat(repeat);
  const repeatChanged = repeat.trim() !== startRepeat;
  // The rule the task will have: the typed one, or (unchanged or unreadable) the one it has.
  const rule = repeatReading.ok && repeatChanged ? repeatReading.rule : task.recurrence;
  const repeatShown = repeatPreview(repeatReading);
  const preview = duePreview(due, now, rule);

  useEffect(() => {
    const el = formRef.current?.querySelector<HTMLElement>(`[data-field="${field}"]`);
    el?.focus();
    if (el instanceof HTMLInputElement) el.select();
  }, [field]);

  const save = async () => {
    if (busy) return;
    if (!content.trim()) return setProblem({ message: 'A task needs some text.', hint: 'type what is to be done, or press Esc to keep it as it was', code: 'client' });
    if (!preview.ok) return setProblem({ message: `"${due.trim()}" is not a date Tidy understands.`, hint: 'try "tomorrow", "next fri 3pm", "in 3 days" or 2026-12-24; empty clears it', code: 'client' });
    if (!repeatReading.ok) return setProblem({ message: repeatReading.message, hint: repeatReading.hint, code: 'client' });
    setBusy(true);
    // An unchanged due stays exactly as stored (a date-time typed as it was parses to itself).
    const nextDue = due.trim() === startDue && (task.due !== null || !rule) ? task.due : preview.due;
    const p = await editTask(task, { content: content.trim(), due: nextDue, priority, project, ...(repeatChanged ? { recurrence: repeatReading.rule } : {}) });
    setBusy(false);
    if (p) setProblem(p);
    else onClose();
  };

  const choices = projects ?? [{ id: task.projectId, name: task.project }];
  return (
    <form
      ref={formRef}
      className="task-edit"
      aria-label={`Edit task: ${task.content}`}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
      onKeyDown={(e) => {
        // A choice list would keep Enter to itself: there it saves as in a text field (where the form submits).
        if (actionOf(TASK_EDITOR_KEYS, e.key) === 'save' && e.target instanceof HTMLSelectElement) {
          e.preventDefault();
          void save();
        } else if (actionOf(TASK_EDITOR_KEYS, e.key) === 'cancel') {
          e.preventDefault();
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <input
        className="input task-edit-content"
        data-field="content"
        aria-label="Task"
        value={content}
        onChange={(e) => setContent(e.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
      />
      <div className="task-edit-fields">
        <label className="task-edit-field">
          <span>Due</span>
          <input
            className="input"
            data-field="due"
            aria-label="Due"
            value={due}
            placeholder="tomorrow, fri 3pm…"
            onChange={(e) => setDue(e.target.value)}
            aria-describedby={`${id}-due`}
            aria-invalid={preview.ok ? undefined : true}
          />
        </label>
        <span id={`${id}-due`} className={`task-edit-preview${preview.ok ? '' : ' bad'}`}>
          {preview.words}
        </span>
        <label className="task-edit-field">
          <span>Repeats</span>
          <input
            className="input"
            data-field="repeat"
            aria-label="Repeats"
            value={repeat}
            placeholder="every monday, every 2 weeks…"
            onChange={(e) => setRepeat(e.target.value)}
            aria-describedby={`${id}-repeat`}
            aria-invalid={repeatShown.ok ? undefined : true}
          />
        </label>
        <span id={`${id}-repeat`} className={`task-edit-preview${repeatShown.ok ? '' : ' bad'}`}>
          {repeatShown.words}
        </span>
        {repeat.trim() !== '' && (
          <button
            type="button"
            className="btn ghost small"
            onClick={() => {
              setRepeat('');
              // The button goes with the text: the focus stays on the field.
              formRef.current?.querySelector<HTMLElement>('[data-field="repeat"]')?.focus();
            }}
          >
            Stop repeating
          </button>
        )}
        <label className="task-edit-field">
          <span>Priority</span>
          <select className="input" data-field="priority" aria-label="Priority" value={priority} onChange={(e) => setPriority(Number(e.target.value))}>
            {PRIORITIES.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </label>
        <label className="task-edit-field">
          <span>Project</span>
          <select className="input" data-field="project" aria-label="Project" value={project} onChange={(e) => setProject(e.target.value)}>
            {choices.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <div className="task-edit-actions">
        <button type="submit" className="btn primary small" disabled={busy}>
          Save
        </button>
        <button type="button" className="btn small" onClick={onClose}>
          Cancel
        </button>
        <span className="grow" />
        <button
          type="button"
          className="btn ghost small"
          onClick={() => {
            void archiveTask(task);
          }}
        >
          Archive task
        </button>
      </div>
      {problem && (
        <p id={`${id}-problem`} className="field-error" role="alert">
          {problem.message} — {problem.hint}
        </p>
      )}
    </form>
  );
}
