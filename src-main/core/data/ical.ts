/**
 * `tidy export --format ical`: tasks with a due date as iCalendar VTODOs (RFC 5545), for calendar and
 * reminder apps. Open tasks are NEEDS-ACTION, completed ones COMPLETED; archived ones are left out.
 *
 * - UID is `<task id>@tidy`, stable across exports, so importing again updates rather than duplicates.
 * - DUE: a date is `DUE;VALUE=DATE:20261205`; a date-time is local ("floating") time, as Tidy stores it.
 * - PRIORITY follows the convention mail and reminder apps use for RFC 5545's 1–9 scale (1 highest,
 *   5 medium, 9 lowest, 0 or absent = none): p1 → 1, p2 → 5, p3 → 9, p4 (normal) → no PRIORITY.
 * - RRULE: a recurring task's rule (the `recurrence` column, an RRULE such as FREQ=WEEKLY;BYDAY=MO) when
 *   the database has one.
 * - CATEGORIES: the project's name, then the task's labels (schema 12).
 * - DESCRIPTION: the task's description (Markdown, as text); RELATED-TO: the parent's UID for a subtask;
 *   a task with a deadline and no planned date is exported with DUE on the deadline (schema 12).
 */
import ICAL from 'ical.js';
import { checkRule } from '../../../src-shared/recurrence';
import { icsText } from '../calendar/ics-export';
import type { Db } from '../store/db';
import type { Sink } from './export';

/** Tidy's priority (1 = p1 most urgent … 4 = normal) as iCalendar's PRIORITY, or null for none. */
export function icalPriority(priority: number): number | null {
  return priority === 1 ? 1 : priority === 2 ? 5 : priority === 3 ? 9 : null;
}

interface Row {
  id: string;
  content: string;
  priority: number;
  due: string;
  status: string;
  created_at: string;
  updated_at: string;
  project: string;
  recurrence?: string | null;
  description?: string | null;
  parent_id?: string | null;
  deadline?: string | null;
  labels?: string | null;
}

const DUE = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}))?/;

function dueTime(due: string): ICAL.Time | null {
  const m = DUE.exec(due);
  if (!m) return null;
  const [, y, mo, d, h, mi] = m;
  const data = { year: Number(y), month: Number(mo), day: Number(d) };
  return h === undefined ? ICAL.Time.fromData({ ...data, isDate: true }) : ICAL.Time.fromData({ ...data, hour: Number(h), minute: Number(mi), second: 0, isDate: false });
}

const utc = (iso: string): ICAL.Time => ICAL.Time.fromJSDate(new Date(iso), true);

/** Writes a VCALENDAR with one VTODO per task that has a due date (oldest first). */
export function exportIcal(db: Db, sink: Sink, now: Date = new Date()): { todos: number } {
  const cal = new ICAL.Component('vcalendar');
  cal.addPropertyWithValue('prodid', '-//Tidy//Tidy tasks//EN');
  cal.addPropertyWithValue('version', '2.0');
  cal.addPropertyWithValue('calscale', 'GREGORIAN');
  const hasRecurrence = (db.prepare(`SELECT 1 FROM pragma_table_info('tasks') WHERE name = 'recurrence'`).get() ?? null) !== null;
  const rich = (db.prepare(`SELECT 1 FROM pragma_table_info('tasks') WHERE name = 'deadline'`).get() ?? null) !== null;
  const rows = db
    .prepare(
      rich
        ? `SELECT t.*, p.name AS project, (SELECT json_group_array(name) FROM (SELECT l.name FROM task_labels tl JOIN labels l ON l.id = tl.label_id WHERE tl.task_id = t.id ORDER BY l.name_key)) AS labels
             FROM tasks t JOIN projects p ON p.id = t.project_id
            WHERE ((t.due IS NOT NULL AND t.due <> '') OR t.deadline IS NOT NULL) AND t.status <> 'archived' ORDER BY t.created_at, t.rowid`
        : `SELECT t.*, p.name AS project FROM tasks t JOIN projects p ON p.id = t.project_id
       WHERE t.due IS NOT NULL AND t.due <> '' AND t.status <> 'archived' ORDER BY t.created_at, t.rowid`,
    )
    .iterate() as IterableIterator<Row>;
  let todos = 0;
  const stamp = ICAL.Time.fromJSDate(now, true);
  for (const r of rows) {
    const due = dueTime(r.due || r.deadline || '');
    if (!due) continue;
    const todo = new ICAL.Component('vtodo');
    todo.addPropertyWithValue('uid', `${r.id}@tidy`);
    todo.addPropertyWithValue('dtstamp', stamp);
    todo.addPropertyWithValue('created', utc(r.created_at));
    todo.addPropertyWithValue('last-modified', utc(r.updated_at));
    todo.addPropertyWithValue('summary', icsText(r.content));
    todo.addPropertyWithValue('due', due);
    const priority = icalPriority(r.priority);
    if (priority !== null) todo.addPropertyWithValue('priority', priority);
    const labels = r.labels ? (JSON.parse(r.labels) as string[]) : [];
    const categories = todo.addPropertyWithValue('categories', icsText(r.project));
    if (labels.length) categories.setValues([icsText(r.project), ...labels.map(icsText)]);
    if (r.description) todo.addPropertyWithValue('description', icsText(r.description));
    if (r.parent_id) todo.addPropertyWithValue('related-to', `${r.parent_id}@tidy`);
    if (r.status === 'done') {
      todo.addPropertyWithValue('status', 'COMPLETED');
      todo.addPropertyWithValue('completed', utc(r.updated_at));
    } else todo.addPropertyWithValue('status', 'NEEDS-ACTION');
    if (hasRecurrence && r.recurrence && checkRule(r.recurrence).ok) {
      try {
        todo.addPropertyWithValue('rrule', ICAL.Recur.fromString(r.recurrence.replace(/^RRULE:/i, '')));
      } catch {
        // A rule ical.js cannot read is left out rather than written broken; the task still exports.
      }
    }
    cal.addSubcomponent(todo);
    todos++;
  }
  sink.write(cal.toString() + '\r\n');
  return { todos };
}
