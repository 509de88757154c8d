/**
 * `tidy import todoist FILE`: Todoist's CSV template export (one project) or its backup ZIP (one CSV per
 * project) into Tidy. Reading and planning (planTodoistImport) write nothing, so `--dry-run` and the UI's
 * preview show exactly what the import (applyTodoistImport) then creates, in one transaction, as one
 * request in the action log (source 'import'): `tidy undo --run <request>` takes the whole import back.
 *
 * How Todoist's rows map (TYPE column), losing nothing Tidy has a field for:
 * - `task` → a Tidy task. CONTENT is the text, with its `@labels` taken out as labels (created on first
 *   use); PRIORITY is the CSV's 1–4 where 1 = p1, which is Tidy's meaning too; DATE goes through
 *   todoistDate(): a date, a date-time, a phrase such as "tomorrow at 5pm", or a recurring one ("every
 *   monday") that becomes the task's recurrence; a phrase Tidy cannot read (fully) is kept in the task's
 *   text in brackets. DESCRIPTION is the task's description; DEADLINE its deadline; DURATION with
 *   DURATION_UNIT (minute or day) its duration (the newer exports' columns, when present). A value Tidy
 *   cannot store stays in the text in brackets, like an unread date.
 * - INDENT > 1: a subtask of the nearest task above with a smaller INDENT (any depth; a jump of more than
 *   one level hangs under that nearest task).
 * - `section`: a section of the project (one of an existing project's, by name, or a new one); the tasks
 *   below it are in it, until the next section.
 * - `note`: a comment on the task above, dated by its DATE when that is an ISO date or date-time; a note
 *   above every task (on the project itself) has nowhere to go and is counted in the preview.
 * - `meta` rows (view settings) and blank rows are skipped.
 *
 * What each cell means: todoist-cells.ts. Writing a project back as Todoist's CSV: todoist-export.ts.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { basename, join } from 'node:path';
import { INBOX_ID } from '../../../src-shared/domain';
import { ChangeSet } from '../actions/changes';
import { recordAction, type ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { hasVisibleText, MAX_NAME, MAX_TEXT, nameKey } from '../domain/text';
import { MAX_DESCRIPTION, MAX_COMMENTS } from '../domain/tasks';
import { labelId } from '../domain/labels';
import { backupDatabase, backupsDir, stamp } from './backup';
import { ImportError } from './import';
import { deadlineOf, durationOf, labelsOutOfText, noteDate, todoistDate } from './todoist-cells';
import { readZip, ZipError } from './zip';

/** Larger inputs are refused before parsing: a Todoist project is kilobytes; a whole account a few MB. */
export const MAX_TODOIST_BYTES = 64 * 1024 * 1024;
/** The most CSV files one ZIP may hold, and the most tasks one import may create. */
export const MAX_TODOIST_FILES = 2000;
export const MAX_TODOIST_TASKS = 200_000;

export interface TodoistFile {
  /** The file's name (a CSV's own, or its name inside the ZIP), for project names and error messages. */
  name: string;
  text: string;
}

export interface PlannedTask {
  /** The text, without the labels taken out of it. */
  content: string;
  priority: 1 | 2 | 3 | 4;
  due: string | null;
  /** An RRULE (FREQ=WEEKLY;BYDAY=MO) when Todoist's date repeats ("every monday"). */
  recurrence: string | null;
  /** Line in the CSV where the row starts (1-based, the header is line 1). */
  line: number;
  /** 1 for a top-level task, 2–5 for subtasks, as the CSV says. */
  indent: number;
  /** The task it is a subtask of: its index in the project's `tasks` (always an earlier one), or null. */
  parent: number | null;
  /** Its section: an index into the project's `sections`, or null. */
  section: number | null;
  labels: string[];
  description: string | null;
  deadline: string | null;
  durationMin: number | null;
  /** Its note rows, in file order; `at` is the note's date (ISO) when the row gave one. */
  comments: { text: string; at: string | null }[];
}

export interface PlannedProject {
  name: string;
  /** The file it comes from. */
  file: string;
  /** A live project of that name already exists: the tasks go into it. */
  existingId: string | null;
  tasks: PlannedTask[];
  /** Its sections, each name once, in file order. */
  sections: string[];
  /** note rows (comments) on its tasks, and non-empty DESCRIPTIONs. */
  notes: number;
  descriptions: number;
  subtasks: number;
  /** The deepest subtask level (0: none). */
  depth: number;
  /** Note rows above every task: on the project itself, which Tidy has no comments for. */
  projectNotes: number;
  /** Dates Tidy could not read (kept in the content). */
  unreadDates: number;
}

export interface TodoistPlan {
  projects: PlannedProject[];
  totals: {
    projects: number;
    newProjects: number;
    tasks: number;
    sections: number;
    notes: number;
    descriptions: number;
    subtasks: number;
    recurring: number;
    unreadDates: number;
    /** Distinct labels, and how many of them Tidy does not have yet. */
    labels: number;
    newLabels: number;
    deadlines: number;
    durations: number;
    projectNotes: number;
  };
  /** The distinct labels, first spelling, in file order. */
  labels: string[];
}

export interface TodoistResult extends TodoistPlan {
  requestId: string;
  /** The backup made before the import, or null for an in-memory database. */
  backup: string | null;
}

const fail = (msg: string): never => {
  throw new ImportError(msg);
};

const isZip = (bytes: Uint8Array): boolean => bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04;

/**
 * The CSV files in a Todoist upload: the CSV itself, or every .csv in a backup ZIP (folders ignored; the
 * sizes the ZIP declares are checked before anything is inflated, so a ZIP bomb is refused unopened).
 */
export function readTodoistFiles(name: string, bytes: Uint8Array): TodoistFile[] {
  if (bytes.length > MAX_TODOIST_BYTES) fail(`${name} is ${(bytes.length / 1048576).toFixed(0)} MB, more than the ${MAX_TODOIST_BYTES / 1048576} MB Tidy imports; nothing was imported`);
  if (!isZip(bytes)) {
    if (!/\.csv$/i.test(name) && bytes.includes(0)) fail(`${name} is neither a CSV nor a ZIP file; pass a Todoist CSV export or backup ZIP`);
    return [{ name: basename(name), text: new TextDecoder('utf-8').decode(bytes) }];
  }
  let files: Map<string, Uint8Array>;
  try {
    files = readZip(bytes, (path) => /\.csv$/i.test(path) && !basename(path).startsWith('.') && !path.startsWith('__MACOSX/'), {
      maxEntry: MAX_TODOIST_BYTES,
      maxTotal: MAX_TODOIST_BYTES,
      maxEntries: MAX_TODOIST_FILES,
      what: 'CSV files',
    });
  } catch (e) {
    if (e instanceof ImportError) throw e;
    if (e instanceof ZipError && e.kind === 'damaged') fail(`${name} is a damaged ZIP file (${e.message}); download the Todoist backup again`);
    if (e instanceof ZipError) fail(`${name}${e.kind === 'file' ? ' ' : ': '}${e.message}; nothing was imported`);
    fail(`${name} is a damaged ZIP file (${e instanceof Error ? e.message : String(e)}); download the Todoist backup again`);
  }
  const out = [...files!]
    .map(([path, data]) => ({ name: basename(path), text: new TextDecoder('utf-8').decode(data) }))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (out.length === 0) fail(`${name} holds no CSV files; pass a Todoist backup ZIP (Settings → Backups in Todoist)`);
  return out;
}

/**
 * The project a file stands for: its name without ".csv" and without the " [id]" Todoist's backups add
 * ("Home Renovation [2203306141].csv" → "Home Renovation").
 */
export function projectNameOf(file: string): string {
  const name = basename(file)
    .replace(/\.csv$/i, '')
    .replace(/\s*\[\d+\]$/, '')
    .normalize('NFC')
    .replace(/\s+/g, ' ')
    .trim();
  return (name || 'Imported from Todoist').slice(0, MAX_NAME);
}

type Columns = Record<string, number>;
const REQUIRED = ['TYPE', 'CONTENT'] as const;

interface Parsed {
  header: Columns;
  rows: { line: number; cells: string[] }[];
}

function parseFile(file: TodoistFile): Parsed {
  let records: { info: { lines: number }; record: string[] }[];
  try {
    records = parseCsv(file.text, { bom: true, info: true, relax_column_count: true, skip_empty_lines: true, max_record_size: 1 << 20 }) as unknown as typeof records;
  } catch (e) {
    const err = e as { lines?: number; message?: string };
    const why = (err.message ?? String(e)).split(':')[0]!.slice(0, 80);
    fail(`${file.name}: row at line ${err.lines ?? '?'} is malformed (${why}); fix or re-export the file — nothing was imported`);
  }
  const [head, ...rest] = records!;
  if (!head) fail(`${file.name} is empty; pass a Todoist CSV export`);
  const header: Columns = {};
  head!.record.forEach((h, i) => (header[h.trim().toUpperCase()] ??= i));
  for (const c of REQUIRED)
    if (header[c] === undefined) fail(`${file.name} has no ${c} column on its first line; it is not a Todoist CSV export (TYPE,CONTENT,DESCRIPTION,PRIORITY,…) — nothing was imported`);
  // info.lines is the line the record ENDS on; the start is what the previous one ended on, plus one.
  let prevEnd = head!.info.lines;
  const rows = rest.map((r) => {
    const row = { line: prevEnd + 1, cells: r.record };
    prevEnd = r.info.lines;
    return row;
  });
  return { header, rows };
}

const PRIORITIES = new Set(['1', '2', '3', '4']);

/** Reads every file and works out what an import would create. Writes nothing; throws an ImportError of one line. */
export function planTodoistImport(db: Db, files: TodoistFile[], options: { project?: string; now?: Date } = {}): TodoistPlan {
  const now = options.now ?? new Date();
  if (options.project !== undefined && files.length > 1) fail('--project applies to a single CSV; a backup ZIP makes one project per CSV');
  const projects = new Map<string, PlannedProject>();
  const labels = new Map<string, string>();
  let total = 0;
  // Exports repeat the same few phrases ("every monday", "tomorrow") thousands of times; chrono is slow.
  const dates = new Map<string, ReturnType<typeof todoistDate>>();
  const dateOfCell = (raw: string): ReturnType<typeof todoistDate> => {
    let d = dates.get(raw);
    if (!d) dates.set(raw, (d = todoistDate(raw, now)));
    return d;
  };
  for (const file of files) {
    const { header, rows } = parseFile(file);
    const name = options.project !== undefined ? options.project.normalize('NFC').replace(/\s+/g, ' ').trim() : projectNameOf(file.name);
    if (!name) fail('--project is empty; give the project a name');
    if (name.length > MAX_NAME) fail(`--project is ${name.length} characters long; use at most ${MAX_NAME}`);
    const key = nameKey(name);
    let project = projects.get(key);
    if (!project) {
      const existing =
        key === nameKey('Inbox')
          ? { id: INBOX_ID }
          : (cached(db, `SELECT id FROM projects WHERE name_key = ? AND archived_at IS NULL`).get(key) as { id: string } | undefined);
      project = { name, file: file.name, existingId: existing?.id ?? null, tasks: [], sections: [], notes: 0, descriptions: 0, subtasks: 0, depth: 0, projectNotes: 0, unreadDates: 0 };
      projects.set(key, project);
    }
    const cell = (cells: string[], col: string): string => {
      const i = header[col];
      return i === undefined ? '' : (cells[i] ?? '').trim();
    };
    // The open branch of the subtask tree: the latest task at each depth, as indices into project.tasks.
    const branch: { indent: number; index: number; depth: number }[] = [];
    let section: number | null = null;
    let last: PlannedTask | null = null;
    for (const { line, cells } of rows) {
      const type = cell(cells, 'TYPE').toLowerCase();
      const where = `${file.name}, line ${line}`;
      if (type === '' && cells.every((c) => c.trim() === '')) continue;
      if (type === 'meta') continue;
      if (type === 'section') {
        const s = cell(cells, 'CONTENT').normalize('NFC').replace(/\s+/g, ' ').slice(0, MAX_NAME).trim();
        if (s && hasVisibleText(s)) {
          const at = project.sections.findIndex((x) => nameKey(x) === nameKey(s));
          section = at >= 0 ? at : project.sections.push(s) - 1;
        } else section = null;
        branch.length = 0;
        last = null;
        continue;
      }
      if (type === 'note') {
        const text = cell(cells, 'CONTENT');
        if (!text || !hasVisibleText(text)) continue;
        if (text.length > MAX_DESCRIPTION) fail(`${where}: the comment is ${text.length} characters long, more than Tidy's ${MAX_DESCRIPTION}; shorten it — nothing was imported`);
        if (!last) {
          project.projectNotes++;
          continue;
        }
        if (last.comments.length >= MAX_COMMENTS) fail(`${where}: more than ${MAX_COMMENTS} comments on one task; nothing was imported`);
        last.comments.push({ text, at: noteDate(cell(cells, 'DATE')) });
        project.notes++;
        continue;
      }
      if (type !== 'task') fail(`${where}: TYPE ${JSON.stringify(type.slice(0, 40))} is not task, section, note or meta; fix the row — nothing was imported`);
      const raw = cell(cells, 'CONTENT').normalize('NFC');
      if (!raw || !hasVisibleText(raw)) fail(`${where}: the task has no CONTENT; fix the row — nothing was imported`);
      const p = cell(cells, 'PRIORITY');
      if (p && !PRIORITIES.has(p)) fail(`${where}: PRIORITY ${JSON.stringify(p.slice(0, 20))} is not 1, 2, 3 or 4; fix the row — nothing was imported`);
      const ind = cell(cells, 'INDENT');
      if (ind && !/^[1-5]$/.test(ind)) fail(`${where}: INDENT ${JSON.stringify(ind.slice(0, 20))} is not 1 to 5; fix the row — nothing was imported`);
      const date = dateOfCell(cell(cells, 'DATE'));
      const deadline = deadlineOf(cell(cells, 'DEADLINE'), dateOfCell);
      const duration = durationOf(cell(cells, 'DURATION'), cell(cells, 'DURATION_UNIT'));
      const { content, labels: own } = labelsOutOfText(raw);
      const kept = [date.keep, deadline.keep, duration.keep].filter((k): k is string => k !== null);
      const text = kept.length ? `${content} (${kept.join('; ')})` : content;
      if (text.length > MAX_TEXT) fail(`${where}: the task is ${text.length} characters long, more than Tidy's ${MAX_TEXT}; shorten it — nothing was imported`);
      const description = cell(cells, 'DESCRIPTION').replace(/\r\n?/g, '\n');
      if (description.length > MAX_DESCRIPTION) fail(`${where}: the description is ${description.length} characters long, more than Tidy's ${MAX_DESCRIPTION}; shorten it — nothing was imported`);
      if (description) project.descriptions++;
      const indent = ind ? Number(ind) : 1;
      while (branch.length && branch[branch.length - 1]!.indent >= indent) branch.pop();
      const up = indent > 1 ? branch[branch.length - 1] : undefined;
      if (up) {
        project.subtasks++;
        project.depth = Math.max(project.depth, up.depth + 1);
      }
      if (date.keep && !date.recurrence) project.unreadDates++;
      for (const l of own) if (!labels.has(nameKey(l))) labels.set(nameKey(l), l);
      const task: PlannedTask = {
        content: text,
        priority: (p ? Number(p) : 4) as PlannedTask['priority'],
        due: date.due,
        recurrence: date.recurrence,
        line,
        indent,
        parent: up ? up.index : null,
        section,
        labels: own,
        description: description && hasVisibleText(description) ? description : null,
        deadline: deadline.deadline,
        durationMin: duration.minutes,
        comments: [],
      };
      branch.push({ indent, index: project.tasks.length, depth: up ? up.depth + 1 : 0 });
      project.tasks.push(task);
      last = task;
      if (++total > MAX_TODOIST_TASKS) fail(`${where}: more than ${MAX_TODOIST_TASKS} tasks in one import; import the projects one at a time — nothing was imported`);
    }
  }
  const list = [...projects.values()];
  const sum = (f: (p: PlannedProject) => number): number => list.reduce((n, p) => n + f(p), 0);
  const tasks = (f: (t: PlannedTask) => boolean): number => sum((p) => p.tasks.filter(f).length);
  const known = cached(db, `SELECT 1 FROM labels WHERE name_key = ?`);
  return {
    projects: list,
    labels: [...labels.values()],
    totals: {
      projects: list.length,
      newProjects: list.filter((p) => p.existingId === null).length,
      tasks: total,
      sections: sum((p) => p.sections.length),
      notes: sum((p) => p.notes),
      descriptions: sum((p) => p.descriptions),
      subtasks: sum((p) => p.subtasks),
      recurring: tasks((t) => t.recurrence !== null),
      unreadDates: sum((p) => p.unreadDates),
      labels: labels.size,
      newLabels: [...labels.keys()].filter((k) => !known.get(k)).length,
      deadlines: tasks((t) => t.deadline !== null),
      durations: tasks((t) => t.durationMin !== null),
      projectNotes: sum((p) => p.projectNotes),
    },
  };
}

/**
 * Creates what the plan says, in one transaction, as one request (source 'import'): one action per
 * project, holding the project (when new), its sections, its tasks with their labels and comments (and the
 * labels it creates), so the log stays short and undo is exact.
 */
export function applyTodoistImport(db: Db, plan: TodoistPlan, source = 'Todoist'): { requestId: string } {
  return db
    .transaction(() => {
      const ctx: ActionContext = { requestId: nextId(db, 'u'), source: 'import' };
      for (const p of plan.projects) {
        const cs = new ChangeSet(db);
        const t = new Date().toISOString();
        let projectId = p.existingId;
        // The project may have been archived or renamed since the preview: look again inside the transaction.
        if (projectId !== null && !cached(db, `SELECT 1 FROM projects WHERE id = ? AND archived_at IS NULL`).get(projectId)) projectId = null;
        if (projectId === null) {
          const taken = cached(db, `SELECT id, archived_at FROM projects WHERE name_key = ?`).get(nameKey(p.name)) as { id: string; archived_at: string | null } | undefined;
          // Another import (run at the same time, after this one's preview) may have created it: use it.
          if (taken && taken.archived_at === null) projectId = taken.id;
          else if (taken) fail(`a project named ${JSON.stringify(p.name)} exists but is archived; unarchive it or pass --project with another name — nothing was imported`);
          else {
            projectId = nextId(db, 'p');
            cs.insert('projects', { id: projectId, name: p.name, name_key: nameKey(p.name), builtin: 0, archived_at: null, created_at: t, updated_at: t });
          }
        }
        // Sections by name: one the project already has (live), else a new one at the end.
        let sectionPosition = (cached(db, `SELECT max(position) AS p FROM sections WHERE project_id = ?`).get(projectId) as { p: number | null }).p ?? 0;
        const sectionIds = p.sections.map((name) => {
          const found = cached(db, `SELECT id FROM sections WHERE project_id = ? AND name_key = ? AND archived_at IS NULL`).get(projectId, nameKey(name)) as { id: string } | undefined;
          if (found) return found.id;
          const id = nextId(db, 's');
          cs.insert('sections', { id, project_id: projectId, name, name_key: nameKey(name), position: ++sectionPosition, archived_at: null, created_at: t, updated_at: t });
          return id;
        });
        let position = (cached(db, `SELECT max(position) AS p FROM tasks WHERE project_id = ?`).get(projectId) as { p: number | null }).p ?? 0;
        const taskIds: string[] = [];
        const createdLabels: string[] = [];
        for (const task of p.tasks) {
          const id = nextId(db, 't');
          taskIds.push(id);
          cs.insert('tasks', {
            id,
            content: task.content,
            project_id: projectId,
            priority: task.priority,
            due: task.due,
            recurrence: task.recurrence,
            position: ++position,
            status: 'open',
            created_at: t,
            updated_at: t,
            description: task.description,
            parent_id: task.parent === null ? null : taskIds[task.parent]!,
            section_id: task.section === null ? null : sectionIds[task.section]!,
            deadline: task.deadline,
            duration_min: task.durationMin,
          });
          for (const name of task.labels) cs.insert('task_labels', { id: nextId(db, 'j'), task_id: id, label_id: labelId(cs, db, name, createdLabels) });
          for (const c of task.comments) cs.insert('comments', { id: nextId(db, 'n'), task_id: id, text: c.text, created_at: c.at ?? t, updated_at: t });
        }
        const summary = `Imported ${p.tasks.length} task${p.tasks.length === 1 ? '' : 's'} from ${source} into ${p.existingId === null ? 'new project ' : ''}'${p.name}'`;
        recordAction(db, ctx, { tool: 'import_todoist', args: { file: p.file, project: p.name }, summary, what: { verb: 'imported', kind: 'task', id: null, name: null, count: p.tasks.length, reverses: null }, result: { project: projectId, tasks: p.tasks.length } }, cs.changes, cs.spill);
      }
      return { requestId: ctx.requestId };
    })
    .immediate();
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;
const some = (names: readonly string[], n = 5): string => `${names.slice(0, n).join(', ')}${names.length > n ? ', …' : ''}`;

/** The plan in words, one line each (the CLI's output and the UI's preview say the same). */
export function describePlan(plan: TodoistPlan): string[] {
  const lines = plan.projects.map(
    (p) =>
      `${p.existingId === null ? 'new project' : 'into project'} '${p.name}': ${plural(p.tasks.length, 'task')}` +
      (p.sections.length ? ` in ${plural(p.sections.length, 'section')} (${some(p.sections)})` : ''),
  );
  const t = plan.totals;
  const notes: string[] = [];
  const depth = Math.max(0, ...plan.projects.map((p) => p.depth));
  if (t.subtasks) notes.push(`${plural(t.subtasks, 'subtask')}, ${depth === 1 ? 'one level' : `up to ${depth} levels`} deep`);
  if (t.labels) notes.push(`${plural(t.labels, 'label')}: ${some(plan.labels.map((l) => `@${l}`), 8)}${t.newLabels ? ` (${t.newLabels} new)` : ''}`);
  if (t.descriptions || t.notes) notes.push(`${plural(t.descriptions, 'description')} and ${plural(t.notes, 'comment')}`);
  if (t.deadlines || t.durations) notes.push(`${plural(t.deadlines, 'deadline')} and ${plural(t.durations, 'duration')}`);
  if (t.recurring) notes.push(`${plural(t.recurring, 'recurring task')}, due on the next occurrence`);
  if (t.unreadDates) notes.push(`${t.unreadDates} date${t.unreadDates === 1 ? '' : 's'} Tidy could not read, kept in the task text`);
  if (t.projectNotes) notes.push(`not imported: ${plural(t.projectNotes, 'comment')} on a project itself (Tidy keeps comments on tasks)`);
  return [...lines, ...notes];
}

/**
 * The whole import: plan (refusing a malformed file before anything is written), a backup of the database
 * beside it (backups/tidy-before-import-<time>.db), then the one transaction.
 */
export async function importTodoist(
  db: Db,
  dbPath: string,
  files: TodoistFile[],
  options: { project?: string; now?: Date } = {},
): Promise<TodoistResult> {
  const plan = planTodoistImport(db, files, options);
  if (plan.totals.tasks === 0 && plan.totals.newProjects === 0) fail(`${files[0]?.name ?? 'the file'} has no tasks to import; nothing was imported`);
  let backup: string | null = null;
  if (dbPath !== ':memory:') backup = (await backupDatabase(db, join(backupsDir(dbPath), `tidy-before-import-${stamp(options.now ?? new Date())}.db`))).path;
  const { requestId } = applyTodoistImport(db, plan);
  return { ...plan, requestId, backup };
}
