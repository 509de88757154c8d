/**
 * Adding a task from quick-add text (the capture box, `tidy add`): the shared grammar
 * (src-shared/quickadd.ts) read against the live projects, then the logged add_task.
 */
import type { Task } from '../../../src-shared/domain';
import type { QuickAddUnread } from '../../../src-shared/ipc';
import { parseQuickAdd, type QuickAdd } from '../../../src-shared/quickadd';
import type { ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import type { Mutated } from './mutation';
import { createProject, listProjects } from './projects';
import { attempt } from '../fail';
import { addTask, type RichInput } from './task-operations';
import { normaliseDue, parsePriority } from './tasks';

/** The rich fields (RichInput) come apart from the text (`tidy add --description …`); labels add to the text's @labels. */
interface QuickAddOptions extends RichInput {
  /** A project given apart from the text (`tidy add --project`); a #Project in the text wins over it. */
  project?: string;
  priority?: number | string;
  due?: string | null;
  now?: Date;
  /** A #name that is no project becomes one (`tidy add --create-project`, the preview's "Create project"), in the same request as the add. */
  createProject?: boolean;
}

/**
 * The add; what the text held that stayed in it, as data (`unread`: a #name that is no project with the
 * nearest project's name, a repeat not read) and in words for a terminal (`note`, null when nothing).
 */
type QuickAdded = Mutated<Task> & {
  note: string | null;
  unread: QuickAddUnread;
  parsed: QuickAdd;
  /** The project made for a #name (createProject), else null. */
  createdProject: string | null;
};

/** What `parsed` left in its text, as data. */
function unreadOf(parsed: QuickAdd): QuickAddUnread {
  return {
    project: parsed.unknownProject && !parsed.project ? { name: parsed.unknownProject, suggestion: parsed.projectSuggestion?.name ?? null } : null,
    repeat: parsed.unread ?? null,
  };
}

export function addFromText(db: Db, ctx: ActionContext, text: string, options: QuickAddOptions = {}): QuickAdded {
  let created: string | null = null;
  let projects = listProjects(db).map((p) => ({ id: p.id, name: p.name }));
  let parsed = parseQuickAdd(text, { projects, now: options.now ?? new Date() });
  // A priority and a due date given apart from the text are words too (`tidy add --priority p2 --due friday`):
  // read here, before anything is made, where the text does not say them itself.
  const given = attempt(() => ({
    priority: parsed.priority ?? (options.priority === undefined ? undefined : parsePriority(options.priority)),
    due: parsed.due ?? (options.due === undefined ? undefined : normaliseDue(options.due, options.now)),
  }));
  if (!given.ok) return { ...given, note: null, unread: unreadOf(parsed), parsed, createdProject: null };
  if (options.createProject && parsed.unknownProject && !parsed.project) {
    const made = createProject(db, ctx, { name: parsed.unknownProject });
    if (!made.ok) return { ...made, note: null, unread: unreadOf(parsed), parsed, createdProject: null };
    created = made.value.name;
    projects = listProjects(db).map((p) => ({ id: p.id, name: p.name }));
    parsed = parseQuickAdd(text, { projects, now: options.now ?? new Date() });
  }
  const r = addTask(db, ctx, {
    content: parsed.content,
    project: parsed.project?.id ?? options.project,
    priority: given.value.priority,
    due: given.value.due,
    recurrence: parsed.recurrence,
    description: options.description,
    deadline: parsed.deadline ?? options.deadline,
    durationMin: parsed.durationMin ?? options.durationMin,
    labels: parsed.labels.length || options.labels?.length ? [...parsed.labels, ...(options.labels ?? [])] : undefined,
    parent: options.parent,
    // The box's section belongs to the box's project: a #Project of another files the task outside it.
    section: parsed.project && !sameProject(parsed.project, options.project) ? undefined : options.section,
  });
  const notes = [
    parsed.unknownProject && !parsed.project
      ? parsed.projectSuggestion
        ? `no project is named ${JSON.stringify(parsed.unknownProject)}, so "#${parsed.unknownProject}" stayed in the text; did you mean ${parsed.projectSuggestion.name}? (#${parsed.projectSuggestion.name}, or --create-project to create ${parsed.unknownProject})`
        : `no project is named ${JSON.stringify(parsed.unknownProject)}, so "#${parsed.unknownProject}" stayed in the text; add it with --create-project to create the project and file the task there`
      : null,
    parsed.unread ? `"${parsed.unread}" is not a repeat Tidy reads, so it stayed in the text (try "every day", "every 2nd of the month", "every 3rd friday")` : null,
  ].filter((n): n is string => n !== null);
  const note = notes.length ? notes.join('; ') : null;
  return { ...r, note, unread: unreadOf(parsed), parsed, createdProject: created };
}

/** The text's #Project is the one given apart from it (by id or by name). */
function sameProject(project: { id: string; name: string }, given: string | undefined): boolean {
  return given === undefined || project.id === given || project.name.toLowerCase() === given.trim().toLowerCase();
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
