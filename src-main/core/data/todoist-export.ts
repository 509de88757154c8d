/**
 * A project's open tasks as Todoist's CSV template, the file `tidy export todoist` writes and
 * planTodoistImport (todoist.ts) reads back into the same tree.
 */
import { recurrenceWords } from '../../../src-shared/repeat-rules';
import type { Db } from '../store/db';

/** The columns of Todoist's CSV template, as its newest exports write them. */
export const TODOIST_COLUMNS = ['TYPE', 'CONTENT', 'DESCRIPTION', 'PRIORITY', 'INDENT', 'AUTHOR', 'RESPONSIBLE', 'DATE', 'DATE_LANG', 'TIMEZONE', 'DURATION', 'DURATION_UNIT', 'DEADLINE', 'DEADLINE_LANG'] as const;

const csvCell = (v: string): string => (/[",\r\n]/.test(v) || /^\s|\s$/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/**
 * A project's open tasks as Todoist's CSV template (what planTodoistImport reads): tasks outside any
 * section first, then each live section with its tasks; subtasks below their parent with INDENT one
 * deeper (capped at Todoist's 5); labels written into the text as `@label`; a repeating task's DATE is
 * its rule in words; comments as note rows dated by their creation. Importing it gives the same tree.
 */
export function exportTodoistCsv(db: Db, projectId: string): string {
  type Row = { id: string; content: string; priority: number; due: string | null; recurrence: string | null; parent_id: string | null; section_id: string | null; description: string | null; deadline: string | null; duration_min: number | null };
  const tasks = db
    .prepare(`SELECT id, content, priority, due, recurrence, parent_id, section_id, description, deadline, duration_min FROM tasks WHERE project_id = ? AND status = 'open' ORDER BY position, id`)
    .all(projectId) as Row[];
  const sections = db.prepare(`SELECT id, name FROM sections WHERE project_id = ? AND archived_at IS NULL ORDER BY position, id`).all(projectId) as { id: string; name: string }[];
  const labelsOf = db.prepare(`SELECT l.name FROM task_labels tl JOIN labels l ON l.id = tl.label_id WHERE tl.task_id = ? ORDER BY tl.id`).pluck();
  const commentsOf = db.prepare(`SELECT text, created_at FROM comments WHERE task_id = ? ORDER BY created_at, rowid`);
  const open = new Set(tasks.map((t) => t.id));
  const children = new Map<string | null, Row[]>();
  for (const t of tasks) {
    // A subtask whose parent is done or archived is written at the top, as Todoist shows it.
    const parent = t.parent_id !== null && open.has(t.parent_id) ? t.parent_id : null;
    const list = children.get(parent) ?? [];
    list.push(t);
    children.set(parent, list);
  }
  const live = new Set(sections.map((s) => s.id));
  const lines: string[] = [TODOIST_COLUMNS.join(',')];
  const row = (values: Partial<Record<(typeof TODOIST_COLUMNS)[number], string>>) => lines.push(TODOIST_COLUMNS.map((c) => csvCell(values[c] ?? '')).join(','));
  const write = (t: Row, depth: number) => {
    const labels = (labelsOf.all(t.id) as string[]).map((l) => ` @${l}`).join('');
    const date = t.recurrence ? recurrenceWords(t.recurrence) : (t.due ?? '');
    row({
      TYPE: 'task',
      CONTENT: `${t.content}${labels}`,
      DESCRIPTION: t.description ?? '',
      PRIORITY: String(t.priority),
      INDENT: String(Math.min(depth, 5)),
      DATE: date,
      DATE_LANG: date ? 'en' : '',
      DURATION: t.duration_min === null ? '' : String(t.duration_min),
      DURATION_UNIT: t.duration_min === null ? '' : 'minute',
      DEADLINE: t.deadline ?? '',
      DEADLINE_LANG: t.deadline ? 'en' : '',
    });
    for (const c of commentsOf.all(t.id) as { text: string; created_at: string }[]) row({ TYPE: 'note', CONTENT: c.text, DATE: c.created_at });
    for (const child of children.get(t.id) ?? []) write(child, depth + 1);
  };
  const top = children.get(null) ?? [];
  for (const t of top) if (t.section_id === null || !live.has(t.section_id)) write(t, 1);
  for (const s of sections) {
    lines.push('');
    row({ TYPE: 'section', CONTENT: s.name });
    for (const t of top) if (t.section_id === s.id) write(t, 1);
  }
  return `${lines.join('\n')}\n`;
}
