/**
 * `tidy import todoist FILE`: Todoist's CSV template export (one project) or its backup ZIP (one CSV per
 * project) into Tidy. Reading and planning (planTodoistImport) write nothing, so `--dry-run` and the UI's
 * preview show exactly what the import (applyTodoistImport) then creates, in one transaction, as one
 * request in the action log (source 'import'): `tidy undo --run <request>` takes the whole import back.
 *
 * How Todoist's rows map (TYPE column):
 * - `task` → a Tidy task. CONTENT is the text (labels such as `@errands` stay in it); PRIORITY is the CSV's
 *   1–4 where 1 = p1, which is Tidy's meaning too; DATE goes through todoistDate(): a date, a date-time, a
 *   phrase such as "tomorrow at 5pm", or a recurring one ("every monday") that becomes the task's
 *   recurrence; a phrase Tidy cannot read (fully) is kept in the task's text in brackets.
 * - INDENT > 1 (subtasks): Tidy has no subtasks; they become tasks of their own in the same project, in
 *   file order, and the summary counts them.
 * - `section`: Tidy has no sections; their tasks go into the project, and the summary names the sections.
 * - `note` (a comment on the task above) and DESCRIPTION: Tidy tasks have no notes yet; they are not
 *   imported, and the summary counts them so nobody is surprised.
 * - `meta` rows (view settings) and blank rows are skipped.
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { checkDate } from '../../../src-shared/dates';
import { basename, join } from 'node:path';
import { INBOX_ID } from '../../../src-shared/domain';
import { nextOccurrence, parseDue, parseQuickAdd } from '../../../src-shared/quickadd';
import { ChangeSet } from '../actions/changes';
import { recordAction, type ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { MAX_NAME, MAX_TEXT, nameKey } from '../domain/text';
import { backupDatabase, backupsDir, stamp } from './backup';
import { ImportError } from './import';
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
  content: string;
  priority: 1 | 2 | 3 | 4;
  due: string | null;
  /** An RRULE (FREQ=WEEKLY;BYDAY=MO) when Todoist's date repeats ("every monday"). */
  recurrence: string | null;
  /** Line in the CSV where the row starts (1-based, the header is line 1). */
  line: number;
  /** 1 for a top-level task, 2–5 for subtasks. */
  indent: number;
}

export interface PlannedProject {
  name: string;
  /** The file it comes from. */
  file: string;
  /** A live project of that name already exists: the tasks go into it. */
  existingId: string | null;
  tasks: PlannedTask[];
  sections: string[];
  /** note rows and non-empty DESCRIPTIONs, which Tidy does not import yet. */
  notes: number;
  descriptions: number;
  subtasks: number;
  /** Dates Tidy could not read (kept in the content). */
  unreadDates: number;
}

export interface TodoistPlan {
  projects: PlannedProject[];
  totals: { projects: number; newProjects: number; tasks: number; sections: number; notes: number; descriptions: number; subtasks: number; recurring: number; unreadDates: number };
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

const pad = (n: number): string => String(n).padStart(2, '0');
const dateOf = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
const ISO = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/**
 * Todoist's DATE column as Tidy's `due` (YYYY-MM-DD or a local YYYY-MM-DDTHH:MM) and, when it repeats, the
 * RRULE: read with the quick-add parser (src-shared/quickadd.ts), the same grammar `tidy add` reads.
 * `keep` is the phrase to keep in the task's text: a recurring one the parser read only in part ("every 3
 * weeks starting 1 mar"), or a date it could not read at all, so nothing Todoist had is lost.
 */
export function todoistDate(raw: string, now: Date): { due: string | null; recurrence: string | null; keep: string | null } {
  const text = raw.trim().replace(/\s+/g, ' ');
  if (!text) return { due: null, recurrence: null, keep: null };
  const iso = ISO.exec(text);
  if (iso) {
    // 2026-02-30, 2026-13-01, 0000-01-01, T25:61: not a date; kept in the text rather than stored shifted.
    if (!checkDate(iso[2] ? `${iso[1]}T${iso[2]}:${iso[3]}` : iso[1]).ok) return { due: null, recurrence: null, keep: text };
    if (!iso[2]) return { due: iso[1]!, recurrence: null, keep: null };
    if (!iso[4]) return { due: `${iso[1]}T${iso[2]}:${iso[3]}`, recurrence: null, keep: null };
    const d = new Date(text.replace(' ', 'T'));
    if (!Number.isNaN(d.getTime())) return { due: `${dateOf(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}`, recurrence: null, keep: null };
  }
  if (/^(every!?|ev!?|after)\b/i.test(text)) {
    // "every!" (Todoist: from completion) reads as "every"; the parser needs some content beside the phrase.
    const q = parseQuickAdd(`x ${text.replace(/^(every|ev)!?/i, 'every')}`, { projects: [], now });
    if (q.recurrence) {
      const due = q.due ?? nextOccurrence(q.recurrence, dateOf(now), dateOf(new Date(now.getTime() - 86_400_000)));
      return { due, recurrence: q.recurrence, keep: q.content === 'x' ? null : text };
    }
    return { due: null, recurrence: null, keep: text };
  }
  if (impossibleDay(text)) return { due: null, recurrence: null, keep: text };
  const parsed = parseDue(text, now);
  const due = parsed !== null && checkDate(parsed).ok ? parsed : null;
  return { due, recurrence: null, keep: due === null ? text : null };
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_DAYS = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * A month name with a day it does not have ("Dec 32", "31 April", "Feb 30th"): the date parser would read
 * the number as a year or roll it into the next month; such a date is kept in the text instead.
 */
function impossibleDay(text: string): boolean {
  const month = '(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\\.?';
  for (const m of text.matchAll(new RegExp(`\\b${month}\\s+(\\d{1,3})(?:st|nd|rd|th)?\\b|\\b(\\d{1,3})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${month}`, 'gi'))) {
    const name = (m[1] ?? m[4])!.toLowerCase();
    const day = Number(m[2] ?? m[3]);
    if (day < 1 || day > MONTH_DAYS[MONTHS.indexOf(name)]!) return true;
  }
  return false;
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
      project = { name, file: file.name, existingId: existing?.id ?? null, tasks: [], sections: [], notes: 0, descriptions: 0, subtasks: 0, unreadDates: 0 };
      projects.set(key, project);
    }
    const cell = (cells: string[], col: string): string => {
      const i = header[col];
      return i === undefined ? '' : (cells[i] ?? '').trim();
    };
    for (const { line, cells } of rows) {
      const type = cell(cells, 'TYPE').toLowerCase();
      const where = `${file.name}, line ${line}`;
      if (type === '' && cells.every((c) => c.trim() === '')) continue;
      if (type === 'meta') continue;
      if (type === 'section') {
        const s = cell(cells, 'CONTENT');
        if (s) project.sections.push(s.slice(0, MAX_NAME));
        continue;
      }
      if (type === 'note') {
        if (cell(cells, 'CONTENT')) project.notes++;
        continue;
      }
      if (type !== 'task') fail(`${where}: TYPE ${JSON.stringify(type.slice(0, 40))} is not task, section, note or meta; fix the row — nothing was imported`);
      const content = cell(cells, 'CONTENT').normalize('NFC');
      if (!content) fail(`${where}: the task has no CONTENT; fix the row — nothing was imported`);
      const p = cell(cells, 'PRIORITY');
      if (p && !PRIORITIES.has(p)) fail(`${where}: PRIORITY ${JSON.stringify(p.slice(0, 20))} is not 1, 2, 3 or 4; fix the row — nothing was imported`);
      const ind = cell(cells, 'INDENT');
      if (ind && !/^[1-5]$/.test(ind)) fail(`${where}: INDENT ${JSON.stringify(ind.slice(0, 20))} is not 1 to 5; fix the row — nothing was imported`);
      const date = dateOfCell(cell(cells, 'DATE'));
      const text = date.keep ? `${content} (${date.keep})` : content;
      if (text.length > MAX_TEXT) fail(`${where}: the task is ${text.length} characters long, more than Tidy's ${MAX_TEXT}; shorten it — nothing was imported`);
      if (cell(cells, 'DESCRIPTION')) project.descriptions++;
      const indent = ind ? Number(ind) : 1;
      if (indent > 1) project.subtasks++;
      if (date.keep && !date.recurrence) project.unreadDates++;
      project.tasks.push({ content: text, priority: (p ? Number(p) : 4) as PlannedTask['priority'], due: date.due, recurrence: date.recurrence, line, indent });
      if (++total > MAX_TODOIST_TASKS) fail(`${where}: more than ${MAX_TODOIST_TASKS} tasks in one import; import the projects one at a time — nothing was imported`);
    }
  }
  const list = [...projects.values()];
  const sum = (f: (p: PlannedProject) => number): number => list.reduce((n, p) => n + f(p), 0);
  return {
    projects: list,
    totals: {
      projects: list.length,
      newProjects: list.filter((p) => p.existingId === null).length,
      tasks: total,
      sections: sum((p) => p.sections.length),
      notes: sum((p) => p.notes),
      descriptions: sum((p) => p.descriptions),
      subtasks: sum((p) => p.subtasks),
      recurring: sum((p) => p.tasks.filter((t) => t.recurrence !== null).length),
      unreadDates: sum((p) => p.unreadDates),
    },
  };
}

/**
 * Creates what the plan says, in one transaction, as one request (source 'import'): one action per
 * project, holding the project (when new) and all its tasks, so the log stays short and undo is exact.
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
        let position = (cached(db, `SELECT max(position) AS p FROM tasks WHERE project_id = ?`).get(projectId) as { p: number | null }).p ?? 0;
        for (const task of p.tasks)
          cs.insert('tasks', {
            id: nextId(db, 't'),
            content: task.content,
            project_id: projectId,
            priority: task.priority,
            due: task.due,
            recurrence: task.recurrence,
            position: ++position,
            status: 'open',
            created_at: t,
            updated_at: t,
          });
        const summary = `Imported ${p.tasks.length} task${p.tasks.length === 1 ? '' : 's'} from ${source} into ${p.existingId === null ? 'new project ' : ''}'${p.name}'`;
        recordAction(db, ctx, { tool: 'import_todoist', args: { file: p.file, project: p.name }, summary, what: { verb: 'imported', kind: 'task', id: null, name: null, count: p.tasks.length, reverses: null }, result: { project: projectId, tasks: p.tasks.length } }, cs.changes);
      }
      return { requestId: ctx.requestId };
    })
    .immediate();
}

/** The plan in words, one line each (the CLI's output and the UI's preview say the same). */
export function describePlan(plan: TodoistPlan): string[] {
  const lines = plan.projects.map(
    (p) =>
      `${p.existingId === null ? 'new project' : 'into project'} '${p.name}': ${p.tasks.length} task${p.tasks.length === 1 ? '' : 's'}` +
      (p.sections.length ? `; sections flattened: ${p.sections.slice(0, 5).join(', ')}${p.sections.length > 5 ? ', …' : ''}` : ''),
  );
  const t = plan.totals;
  const notes: string[] = [];
  if (t.subtasks) notes.push(t.subtasks === 1 ? '1 subtask becomes a task of its own (Tidy has no subtasks)' : `${t.subtasks} subtasks become tasks of their own (Tidy has no subtasks)`);
  if (t.recurring) notes.push(`${t.recurring} recurring task${t.recurring === 1 ? '' : 's'}, due on the next occurrence`);
  if (t.unreadDates) notes.push(`${t.unreadDates} date${t.unreadDates === 1 ? '' : 's'} Tidy could not read, kept in the task text`);
  if (t.notes || t.descriptions)
    notes.push(`not imported: ${t.notes} comment${t.notes === 1 ? '' : 's'} and ${t.descriptions} description${t.descriptions === 1 ? '' : 's'} (Tidy tasks have no notes yet)`);
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
