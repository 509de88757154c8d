// The help lists every key the task lists and the Calendar handle: the handlers read their keys from
// src-renderer/ui/keymaps.ts and the help shows those tables; this fails when a handler compares a key
// of its own, or a table's key is missing from the help.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HELP_SECTIONS } from '../../../../src-renderer/app/HelpOverlay';
import { actionOf, CALENDAR_KEYS, keyLabels, TASK_EDITOR_KEYS, TASK_LIST_ALT_KEYS, TASK_LIST_KEYS, type KeyBinding } from '../../../../src-renderer/ui/keymaps';

const ROOT = join(__dirname, '../../../../src-renderer');
const VIEW_FILES = [
  ...['TaskList.tsx', 'QuickAdd.tsx', 'Reminders.tsx', 'CompletedView.tsx'].map((f) => join(ROOT, 'features/tasks', f)),
  ...readdirSync(join(ROOT, 'features/calendar')).map((f) => join(ROOT, 'features/calendar', f)),
].filter((f) => f.endsWith('.tsx'));

const TABLES: [string, readonly KeyBinding[], 'alt' | undefined][] = [
  ['In a task list', TASK_LIST_KEYS, undefined],
  ['In a task list', TASK_LIST_ALT_KEYS, 'alt'],
  ['In the task editor', TASK_EDITOR_KEYS, undefined],
  ['In the calendar', CALENDAR_KEYS, undefined],
];

describe('the keyboard help', () => {
  it('shows every key of every view table, in its section', () => {
    for (const [title, table, modifier] of TABLES) {
      const section = HELP_SECTIONS.find((s) => s.title === title)!;
      expect(section, title).toBeDefined();
      for (const b of table) {
        const row = section.rows.find((r) => r.what === b.what);
        expect(row, `${title}: ${b.what}`).toBeDefined();
        expect(row!.keys).toEqual(keyLabels(b, modifier));
        expect(row!.keys.length).toBeGreaterThan(0);
      }
    }
    const calendar = HELP_SECTIONS.find((s) => s.title === 'In the calendar')!.rows.flatMap((r) => r.keys.flat());
    expect(calendar).toEqual(expect.arrayContaining(['←', '→', 'Page Up', 'Page Down', 'T', 'W', 'D', 'Esc']));
    const list = HELP_SECTIONS.find((s) => s.title === 'In a task list')!.rows.flatMap((r) => r.keys.flat());
    expect(list).toEqual(expect.arrayContaining(['↑', '↓', 'J', 'K', 'Home', 'End', 'X', 'Space', 'Enter', 'E', 'D', 'R', 'P', 'M']));
  });

  it('no key means two things in one table', () => {
    for (const [title, table] of TABLES) {
      const keys = table.flatMap((b) => b.keys);
      expect(new Set(keys).size, title).toBe(keys.length);
      for (const b of table) for (const k of b.keys) expect(actionOf(table, k)).toBe(b.action);
    }
  });

  it('the task and calendar views compare no key outside the tables', () => {
    // A handler written as `e.key === 'x'` (or a switch on it) would bypass the help.
    const literal = /\.key\s*(?:===|!==|==)\s*['"`]|case\s+['"`](?:Arrow|Page|Escape|Enter|Home|End|[a-zA-Z]['"`])|\bkey\s*===\s*['"`]/;
    const offenders = VIEW_FILES.filter((f) => literal.test(readFileSync(f, 'utf8')));
    expect(offenders).toEqual([]);
    for (const f of ['features/tasks/TaskList.tsx', 'features/calendar/CalendarView.tsx']) expect(readFileSync(join(ROOT, f), 'utf8')).toMatch(/actionOf\(/);
  });
});
