/**
 * Adding a task from quick-add text (the capture box, `tidy add`): the shared grammar
 * (src-shared/quickadd.ts) read against the live projects, then the logged add_task.
 */
import type { Task } from '../../../src-shared/domain';
import { parseQuickAdd, type QuickAdd } from '../../../src-shared/quickadd';
import type { ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import type { Mutated } from './mutation';
import { listProjects } from './projects';
import { addTask, type RichInput } from './tasks';

/** The rich fields (RichInput) come apart from the text (`tidy add --description …`); labels add to the text's @labels. */
export interface QuickAddOptions extends RichInput {
  /** A project given apart from the text (`tidy add --project`); a #Project in the text wins over it. */
  project?: string;
  priority?: number | string;
  due?: string | null;
  now?: Date;
}

/** The add, and what the text held that was not understood (a #name that is no project), in words; null when nothing. */
export type QuickAdded = Mutated<Task> & { note: string | null; parsed: QuickAdd };

export function addFromText(db: Db, ctx: ActionContext, text: string, options: QuickAddOptions = {}): QuickAdded {
  const projects = listProjects(db).map((p) => ({ id: p.id, name: p.name }));
  const parsed = parseQuickAdd(text, { projects, now: options.now ?? new Date() });
  const r = addTask(db, ctx, {
    content: parsed.content,
    project: parsed.project?.id ?? options.project,
    priority: parsed.priority ?? options.priority,
    due: parsed.due ?? options.due,
    recurrence: parsed.recurrence,
    description: options.description,
    deadline: parsed.deadline ?? options.deadline,
    durationMin: parsed.durationMin ?? options.durationMin,
    labels: parsed.labels.length || options.labels?.length ? [...parsed.labels, ...(options.labels ?? [])] : undefined,
    parent: options.parent,
    section: options.section,
  });
  const notes = [
    parsed.unknownProject && !parsed.project
      ? `no project is named ${JSON.stringify(parsed.unknownProject)}, so "#${parsed.unknownProject}" stayed in the text; create it (tidy project add ${parsed.unknownProject}) and move the task there`
      : null,
    parsed.unread ? `"${parsed.unread}" is not a repeat Tidy reads, so it stayed in the text (try "every day", "every 2nd of the month", "every 3rd friday")` : null,
  ].filter((n): n is string => n !== null);
  const note = notes.length ? notes.join('; ') : null;
  return { ...r, note, parsed };
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

/** A due date as people say it, relative to `today` when near: "today", "tomorrow", "Friday", else the date; the time after. */
export function describeDue(due: string, now: Date = new Date()): string {
  const [y, m, d] = due.slice(0, 10).split('-').map(Number) as [number, number, number];
  const day = new Date(y, m - 1, d);
  const today = new Date(now.getFullYear(), now.getMonth(), now.getDate());
  const days = Math.round((day.getTime() - today.getTime()) / 86_400_000);
  const word =
    days === 0 ? 'today' : days === 1 ? 'tomorrow' : days === -1 ? 'yesterday' : days > 1 && days < 7 ? WEEKDAYS[day.getDay()]! : null;
  const time = due.length > 10 ? ` ${due.slice(11, 16)}` : '';
  return word ? `${word} (${due.slice(0, 10)}${time})` : `${due.slice(0, 10)}${time}`;
}
