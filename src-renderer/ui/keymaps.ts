/**
 * The keys of the task lists and of the Calendar view: one table each, read by the view's key handler
 * (`actionOf`) and shown by the help overlay (HelpOverlay.tsx), so a key cannot be handled without being
 * listed. The app-wide shortcuts are in shortcuts.ts.
 */
import { ALT } from './shortcuts';

export interface KeyBinding<A extends string = string> {
  action: A;
  /** KeyboardEvent.key values that do it. */
  keys: readonly string[];
  what: string;
  /** Keys that do it natively (Space on a checkbox), shown but not handled. */
  native?: readonly string[];
}

const bind = <const A extends string>(table: readonly KeyBinding<A>[]) => table;

/** In a task list (TaskList.tsx), with the focus on a task; none with Ctrl, ⌘ or Shift. */
export const TASK_LIST_KEYS = bind([
  { action: 'next', keys: ['ArrowDown', 'j'], what: 'Next task' },
  { action: 'previous', keys: ['ArrowUp', 'k'], what: 'Previous task' },
  { action: 'first', keys: ['Home'], what: 'First task' },
  { action: 'last', keys: ['End'], what: 'Last task' },
  { action: 'complete', keys: ['x'], native: [' '], what: 'Complete the task (or reopen a done one)' },
  { action: 'content', keys: ['Enter', 'e'], what: 'Edit the task' },
  { action: 'due', keys: ['d'], what: 'Edit its due date' },
  { action: 'repeat', keys: ['r'], what: 'Edit how it repeats' },
  { action: 'priority', keys: ['p'], what: 'Edit its priority' },
  { action: 'project', keys: ['m'], what: 'Move it to a project' },
  { action: 'collapse', keys: ['ArrowLeft'], what: 'Hide its subtasks' },
  { action: 'expand', keys: ['ArrowRight'], what: 'Show its subtasks' },
  { action: 'tab', keys: ['Tab'], what: 'Next task, staying on the last one (Shift + Tab: the one before)' },
]);

/** In a task's inline editor (TaskList.tsx). */
export const TASK_EDITOR_KEYS = bind([
  // Enter in a text field submits the form natively; on a choice list (Priority, Project) it is handled, so it saves there too.
  { action: 'save', keys: ['Enter'], what: 'Save the changes (in a field or a choice list)' },
  { action: 'cancel', keys: ['Escape'], what: 'Leave the editor without saving' },
]);

/** The same, with Alt (⌥): in a project, where the order is the user's. */
export const TASK_LIST_ALT_KEYS = bind([
  { action: 'moveUp', keys: ['ArrowUp'], what: 'In a project: move the task up' },
  { action: 'moveDown', keys: ['ArrowDown'], what: 'In a project: move the task down' },
  { action: 'indent', keys: ['ArrowRight'], what: 'In a project: make it a subtask of the task above' },
  { action: 'outdent', keys: ['ArrowLeft'], what: 'In a project: move a subtask one level up' },
]);

/** In the Calendar view (CalendarView.tsx), outside text fields; none with a modifier. */
export const CALENDAR_KEYS = bind([
  { action: 'previous', keys: ['ArrowLeft', 'PageUp'], what: 'Previous week or day' },
  { action: 'next', keys: ['ArrowRight', 'PageDown'], what: 'Next week or day' },
  { action: 'today', keys: ['t', 'T'], what: 'Go to today' },
  { action: 'week', keys: ['w', 'W'], what: 'Show a week' },
  { action: 'day', keys: ['d', 'D'], what: 'Show a day' },
  { action: 'close', keys: ['Escape'], what: 'Close the event’s details' },
  { action: 'nextEvent', keys: ['n', 'N'], what: 'Go to the next event (after the shown week or day)' },
  { action: 'previousEvent', keys: ['p', 'P'], what: 'Go to the previous event (before the shown week or day)' },
]);

/** The action `key` does in `table`, if any. */
export function actionOf<A extends string>(table: readonly KeyBinding<A>[], key: string): A | undefined {
  return table.find((b) => b.keys.includes(key))?.action;
}

const NAMES: Record<string, string> = { ArrowDown: '↓', ArrowUp: '↑', ArrowLeft: '←', ArrowRight: '→', PageUp: 'Page Up', PageDown: 'Page Down', Escape: 'Esc', ' ': 'Space' };

/** A binding's keys as the help shows them: arrows as arrows, a letter once ("t", "T" → "T"). */
export function keyLabels(b: KeyBinding, modifier?: 'alt'): string[][] {
  const seen = new Set<string>();
  const out: string[][] = [];
  for (const k of [...b.keys, ...(b.native ?? [])]) {
    const name = NAMES[k] ?? (k.length === 1 ? k.toUpperCase() : k);
    if (seen.has(name)) continue;
    seen.add(name);
    out.push(modifier === 'alt' ? [ALT, name] : [name]);
  }
  return out;
}
