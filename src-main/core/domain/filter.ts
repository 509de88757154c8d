/**
 * The filter language (DESIGN "Priorities, due dates, quick add"), on Todoist's model:
 *
 *   today · overdue · no date · no deadline · no labels · subtask · p1…p4 · #Project · @label · /Section
 *   due before: DATE · due after: DATE · deadline before: DATE · deadline after: DATE · search: TEXT
 *   combined with & (and), | (or), ! (not) and parentheses; & binds tighter than |.
 *
 * A term's text runs to the next &, | or ) (a backslash takes the next character as it is: #R\&D). DATE
 * is anything quick add reads as a date ("today", "next friday", 2035-01-31). A query is compiled to ONE
 * parameterised SQL condition over `tasks t`: user text only ever travels as a parameter. A bad query fails
 * with one line naming the position (1-based) and what was expected there.
 */
import type { Task } from '../../../src-shared/domain';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { nextId } from '../store/ids';
import { mutate, type Mutated } from './mutation';
import type { ActionContext } from '../actions/log';
import { fail } from '../fail';
import { cleanLabel } from './labels';
import { addDaysToDate, localDate, normaliseDue, rowsToTasks, SELECT_TASK } from './tasks';
import { cleanName, nameKey, now as nowIso, quote } from './text';

/** Longer queries are refused: a filter is a line, not a program. */
export const MAX_FILTER_CHARS = 2000;
/** At most this many terms, and parentheses or ! this deep: the SQL stays far below SQLite's limits. */
export const MAX_FILTER_TERMS = 200;
export const MAX_FILTER_DEPTH = 50;

const EXPECTED_TERM = 'a term (today, overdue, no date, p1…p4, #Project, @label, /Section, due before: DATE, search: TEXT), ! or (';

export interface CompiledFilter {
  /** A condition over `tasks t`, with `?` for each parameter. */
  sql: string;
  params: (string | number)[];
  /**
   * The condition holds only for tasks of a set SQLite starts from (labels, a search through the index):
   * few matches, each found at the price of a lookup, so counting them and picking the page is one pass.
   */
  narrow: boolean;
}

class FilterError extends Error {}

/**
 * Tasks with any of `n` labels (their name keys are the parameters), as a set of task ids rather than a
 * subquery per task: SQLite can then start from the labels' few rows instead of testing every open task.
 */
const labelsTerm = (n: number): string =>
  `(t.id IN (SELECT tl.task_id FROM task_labels tl WHERE tl.label_id IN (SELECT id FROM labels WHERE name_key ${n === 1 ? '= ?' : `IN (${Array(n).fill('?').join(', ')})`})))`;
const LABEL_TERM = labelsTerm(1);

/** Fails with the one line a person reads: where, and what was expected. */
function bad(query: string, at: number, what: string): never {
  const near = query.slice(at, at + 20).replace(/\s+/g, ' ');
  throw new FilterError(`filter: expected ${what} at position ${at + 1}${near ? ` (near ${JSON.stringify(near)})` : ' (at the end)'}`);
}

/**
 * For a `search:` of plain words (ASCII letters and digits, between spaces), an FTS5 query that every task
 * whose content or description holds the text as it is typed must match, so the search index can hand over
 * the few candidates the substring test then checks, instead of the test reading every open task. The
 * text may start inside a word ("hing 42" is in "thing 42"), so its first word is left out; the words
 * between two spaces must be whole words of the text; the last one may go on ("42" in "420"). A single
 * word, or anything else (punctuation, other scripts), gets no prefilter and is found by the scan alone.
 */
export function ftsPrefilter(needle: string): string | null {
  if (!/^[a-z0-9]+(?: +[a-z0-9]+)+$/.test(needle)) return null;
  const words = needle.split(/ +/).slice(1);
  const last = words.pop()!;
  // Any subset of the required words is still a prefilter: a few are plenty.
  return [...words.slice(-4).map((w) => `"${w}"`), `"${last}"*`].join(' ');
}

/** Above this many documents the prefilter costs more than the scan it spares. */
const MAX_CANDIDATES = 5000;

/** Whether the search index names few enough documents for `match` to be worth starting from (a bounded count, a few ms at most). */
function fewCandidates(db: Db, match: string): boolean {
  try {
    const n = cached(db, `SELECT count(*) AS n FROM (SELECT 1 FROM search_text WHERE search_text MATCH ? LIMIT ${MAX_CANDIDATES + 1})`).get(match) as { n: number };
    return n.n <= MAX_CANDIDATES;
  } catch {
    return false;
  }
}

/** Compiles a query (`today` = the local date the date words count from). */
export function compileFilter(query: string, opts: { today?: string; now?: Date; db?: Db } = {}): CompiledFilter {
  const text = String(query ?? '');
  if (text.length > MAX_FILTER_CHARS) fail(`filter is ${text.length} characters long`, `use at most ${MAX_FILTER_CHARS} characters`);
  const today = opts.today ?? localDate(opts.now);
  const now = opts.now ?? new Date();
  const params: (string | number)[] = [];
  let i = 0;
  let terms = 0;
  /** Conditions (as their SQL) that only the tasks of a set can meet: see CompiledFilter.narrow. */
  const narrow = new Set<string>();
  const ws = () => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };

  const dateArg = (raw: string, at: number): string => {
    let d: string | null;
    try {
      d = normaliseDue(raw.trim(), now);
    } catch {
      d = null;
    }
    if (!d) bad(text, at, 'a date (YYYY-MM-DD, today, next friday…)');
    return d.slice(0, 10);
  };

  /** One term, from its raw text (escapes resolved) starting at `at`. */
  const term = (raw: string, at: number): string => {
    const t = raw.trim();
    const lower = t.toLowerCase();
    if (++terms > MAX_FILTER_TERMS) bad(text, at, `at most ${MAX_FILTER_TERMS} terms`);
    const word = lower.replace(/\s+/g, ' ');
    const p = (v: string | number) => {
      params.push(v);
      return '?';
    };
    // Dates as ranges of due itself (YYYY-MM-DD or YYYY-MM-DDTHH:MM sorts by its date part first), so the
    // (status, due) index answers them instead of a pass over every open task.
    if (word === 'today') return `(t.due >= ${p(today)} AND t.due < ${p(addDaysToDate(today, 1))})`;
    if (word === 'tomorrow') {
      const d = dateArg('tomorrow', at);
      return `(t.due >= ${p(d)} AND t.due < ${p(addDaysToDate(d, 1))})`;
    }
    if (word === 'overdue') return `(t.due < ${p(today)})`;
    if (word === 'no date' || word === 'no due date') return `(t.due IS NULL)`;
    if (word === 'no deadline') return `(t.deadline IS NULL)`;
    if (word === 'no labels') return `(NOT EXISTS (SELECT 1 FROM task_labels tl WHERE tl.task_id = t.id))`;
    if (word === 'subtask') return `(t.parent_id IS NOT NULL)`;
    if (word === 'recurring') return `(t.recurrence IS NOT NULL)`;
    const pri = /^p([1-4])$/.exec(word);
    if (pri) return `(t.priority = ${p(Number(pri[1]))})`;
    if (t.startsWith('#')) {
      const name = t.slice(1).replace(/\s+/g, ' ').trim();
      if (!name) bad(text, at + 1, 'a project name after #');
      return `(t.project_id IN (SELECT id FROM projects WHERE name_key = ${p(nameKey(name))} OR id = ${p(name.toLowerCase())}))`;
    }
    if (t.startsWith('@')) {
      let name: string;
      try {
        name = cleanLabel(t.slice(1));
      } catch {
        return bad(text, at + 1, 'a label name (one word) after @');
      }
      // The label's tasks as a set (an IN list), not a subquery per task: SQLite can then start from the
      // label's few rows instead of testing every open task.
      p(nameKey(name));
      narrow.add(LABEL_TERM);
      return LABEL_TERM;
    }
    if (t.startsWith('/')) {
      const name = t.slice(1).replace(/\s+/g, ' ').trim();
      if (!name) bad(text, at + 1, 'a section name after /');
      return `(t.section_id IN (SELECT id FROM sections WHERE name_key = ${p(nameKey(name))}))`;
    }
    const m = /^(due|deadline)\s+(before|after)\s*:\s*(.*)$/is.exec(t);
    if (m) {
      const column = m[1]!.toLowerCase() === 'due' ? 't.due' : 't.deadline';
      const argAt = at + raw.indexOf(':') + 1;
      if (!m[3]!.trim()) bad(text, argAt, 'a date after the colon');
      const d = dateArg(m[3]!, argAt);
      // Before D: any due below D's date; after D: from the next day on (a due with a time on D is not after it).
      return m[2]!.toLowerCase() === 'before' ? `(${column} < ${p(d)})` : `(${column} >= ${p(addDaysToDate(d, 1))})`;
    }
    const s = /^search\s*:\s*(.*)$/is.exec(t);
    if (s) {
      const needle = s[1]!.trim().toLowerCase();
      if (!needle) bad(text, at + raw.indexOf(':') + 1, 'some text after search:');
      // LIKE folds ASCII case only, as lower() did (the needle is lower case already): the same matches,
      // without a lowered copy of every text. Its wildcards in the needle are escaped, in SQL.
      const like = (n: string) => `'%' || replace(replace(replace(${n}, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' ESCAPE '\\'`;
      // Parameters are pushed in the order their ? appear in the SQL.
      const fts = opts.db ? ftsPrefilter(needle) : null;
      const candidates = fts && fewCandidates(opts.db!, fts)
        ? `t.id IN (SELECT d.ref FROM search_docs d WHERE d.kind IN ('tasks', 'task_descriptions') AND d.docid IN (SELECT rowid FROM search_text WHERE search_text MATCH ${p(fts)})) AND `
        : '';
      const sql = `(${candidates}(t.content LIKE ${like(p(needle))} OR coalesce(t.description, '') LIKE ${like(p(needle))}))`;
      if (candidates) narrow.add(sql);
      return sql;
    }
    return bad(text, at + (raw.length - raw.trimStart().length), EXPECTED_TERM);
  };

  const primary = (depth: number): string => {
    ws();
    if (depth > MAX_FILTER_DEPTH) bad(text, i, `parentheses and ! at most ${MAX_FILTER_DEPTH} deep`);
    const c = text[i];
    if (c === undefined) bad(text, i, EXPECTED_TERM);
    if (c === '!') {
      i++;
      return `(NOT ${primary(depth + 1)})`;
    }
    if (c === '(') {
      i++;
      const inner = or(depth + 1);
      ws();
      if (text[i] !== ')') bad(text, i, '& or | or a closing )');
      i++;
      return inner;
    }
    if (c === '&' || c === '|' || c === ')') bad(text, i, EXPECTED_TERM);
    const start = i;
    let raw = '';
    while (i < text.length && !'&|)'.includes(text[i]!)) {
      if (text[i] === '\\' && i + 1 < text.length) i++;
      raw += text[i]!;
      i++;
    }
    return term(raw, start);
  };

  const and = (depth: number): string => {
    const parts = [primary(depth)];
    ws();
    while (text[i] === '&') {
      i++;
      parts.push(primary(depth));
      ws();
    }
    if (parts.length === 1) return parts[0]!;
    const sql = `(${parts.join(' AND ')})`;
    if (parts.some((part) => narrow.has(part))) narrow.add(sql);
    return sql;
  };

  const or = (depth: number): string => {
    const parts = [and(depth)];
    ws();
    while (text[i] === '|') {
      i++;
      parts.push(and(depth));
      ws();
    }
    // Labels side by side (@a | @b) become one set of tasks: one IN list SQLite starts from, where two would
    // make it walk the open tasks. Their parameters are already in this order.
    const merged: string[] = [];
    for (let k = 0; k < parts.length; ) {
      let run = 0;
      while (parts[k + run] === LABEL_TERM) run++;
      if (run > 1) {
        merged.push(labelsTerm(run));
        narrow.add(labelsTerm(run));
        k += run;
      } else merged.push(parts[k++]!);
    }
    if (merged.length === 1) return merged[0]!;
    const sql = `(${merged.join(' OR ')})`;
    if (merged.every((part) => narrow.has(part))) narrow.add(sql);
    return sql;
  };

  try {
    if (!text.trim()) bad(text, 0, EXPECTED_TERM);
    const sql = or(0);
    ws();
    if (i < text.length) bad(text, i, text[i] === ')' ? 'no ) without its (' : '& or | or the end');
    return { sql, params, narrow: narrow.has(sql) };
  } catch (e) {
    if (e instanceof FilterError) fail(e.message, 'write terms like today, p1, #Project, @label, due before: friday, joined by & | ! and parentheses');
    throw e;
  }
}

export interface FindQuery {
  filter: string;
  /** Open tasks (default), done ones, or all. */
  status?: 'open' | 'done' | 'all';
  limit?: number;
  offset?: number;
  today?: string;
  now?: Date;
}

/** findTasks' order: by due date (undated last), priority and manual order; the rowid last makes it total, so pages never overlap. */
const FIND_ORDER = 't.due IS NULL, t.due, t.priority, t.project_id, t.position, t.rowid';

/** Whole tasks by rowid (a JSON array), in findTasks' order: a page picked by `pick`. */
const PICKED_TASKS = `${SELECT_TASK} WHERE t.rowid IN (SELECT value FROM json_each(?)) ORDER BY ${FIND_ORDER}`;

/** The two statements of findTasks (how many match; the page, whole) with their parameters, for it and for looking at their plans. */
export function findStatements(
  db: Db,
  q: FindQuery,
): { count: string; page: string; pick: string; narrow: boolean; params: (string | number)[]; limit: number; offset: number } {
  const { sql, params, narrow } = compileFilter(q.filter, { today: q.today, now: q.now, db });
  const status = q.status ?? 'open';
  // The status as its own term (not `? = 'all' OR …`), so SQLite can use the (status, …) indexes. Tidy keeps
  // no statistics (ANALYZE), and without them SQLite takes `status = ?` for a needle (ten rows) and walks
  // every open task rather than a label's or a search's few; likelihood() tells it a status keeps about half.
  const where = status === 'all' ? `WHERE ${sql}` : `WHERE likelihood(t.status = ?, 0.5) AND ${sql}`;
  return {
    count: `SELECT count(*) AS n FROM tasks t ${where}`,
    // The page is chosen over the task rows alone, then only its rows are read whole (project, section and
    // labels): sorting every match together with its labels' JSON cost more than finding them.
    page: `${SELECT_TASK} WHERE t.rowid IN (SELECT t.rowid FROM tasks t ${where} ORDER BY ${FIND_ORDER} LIMIT ? OFFSET ?) ORDER BY ${FIND_ORDER}`,
    // Count and page in one pass, for a narrow filter: its matches cost a lookup each, and the count and the
    // page would look every one up twice. (For a broad one the count reads an index alone and is cheaper.)
    pick: `SELECT t.rowid AS r, count(*) OVER () AS n FROM tasks t ${where} ORDER BY ${FIND_ORDER} LIMIT ? OFFSET ?`,
    narrow,
    params: status === 'all' ? [...params] : [status, ...params],
    limit: Math.max(0, Math.min(q.limit ?? 200, 10_000)),
    offset: Math.max(0, q.offset ?? 0),
  };
}

/** The tasks a filter matches (open ones unless asked), by due date (undated last), priority and manual order; with the total. */
export function findTasks(db: Db, q: FindQuery): { tasks: Task[]; total: number } {
  const s = findStatements(db, q);
  // Not in the statement cache: every query is different text, and preparing one costs microseconds.
  const count = (): number => (db.prepare(s.count).get(...s.params) as { n: number }).n;
  if (s.narrow) {
    const picked = db.prepare(s.pick).all(...s.params, s.limit, s.offset) as { r: number; n: number }[];
    // An empty page says nothing of the total only when it starts past the first match, or holds no task.
    const total = picked.length ? picked[0]!.n : s.offset > 0 || s.limit === 0 ? count() : 0;
    const rows = picked.length ? cached(db, PICKED_TASKS).all(JSON.stringify(picked.map((p) => p.r))) : [];
    return { tasks: rowsToTasks(rows), total };
  }
  const total = count();
  const rows = db.prepare(s.page).all(...s.params, s.limit, s.offset);
  return { tasks: rowsToTasks(rows), total };
}

// --- saved filters ------------------------------------------------------------------------------

export interface SavedFilter {
  id: string;
  name: string;
  query: string;
}

/** Saved filters, by name. */
export function listFilters(db: Db): SavedFilter[] {
  return cached(db, `SELECT id, name, query FROM filters ORDER BY name_key`).all() as SavedFilter[];
}

/** A saved filter by id or name (case-insensitive). */
export function resolveFilter(db: Db, ref: string): SavedFilter {
  const key = String(ref ?? '').trim();
  const row = (cached(db, `SELECT id, name, query FROM filters WHERE id = ?`).get(key.toLowerCase()) ??
    cached(db, `SELECT id, name, query FROM filters WHERE name_key = ?`).get(nameKey(key.replace(/\s+/g, ' ')))) as SavedFilter | undefined;
  if (!row) fail(`no saved filter ${quote(key)}`, 'see the saved filters with `tidy filter list`, or save one with `tidy filter save NAME QUERY`');
  return row;
}

/** Saves (or replaces the query of) a named filter; the query must compile. Logged and undoable. */
export function saveFilter(db: Db, ctx: ActionContext, input: { name: string; query: string }): Mutated<SavedFilter> {
  return mutate(db, ctx, 'save_filter', { verb: 'saved', kind: 'filter' }, input, (cs) => {
    const name = cleanName(input.name, 'filter');
    const query = String(input.query ?? '').trim();
    compileFilter(query);
    const t = nowIso();
    const existing = cached(db, `SELECT id, query FROM filters WHERE name_key = ?`).get(nameKey(name)) as { id: string; query: string } | undefined;
    if (existing) {
      if (existing.query === query) fail(`filter ${quote(name)} already reads ${JSON.stringify(query)}`, 'nothing to change');
      cs.update('filters', existing.id, { name, query, updated_at: t });
      return { value: { id: existing.id, name, query }, summary: `Changed filter ${quote(name)} to ${JSON.stringify(query)}` };
    }
    const row = cs.insert('filters', { id: nextId(db, 'f'), name, name_key: nameKey(name), query, created_at: t, updated_at: t });
    return { value: { id: String(row['id']), name, query }, summary: `Saved filter ${quote(name)}: ${JSON.stringify(query)}` };
  });
}

/** Deletes a saved filter. Logged and undoable. */
export function deleteFilter(db: Db, ctx: ActionContext, input: { filter: string }): Mutated<SavedFilter> {
  return mutate(db, ctx, 'delete_filter', { verb: 'removed', kind: 'filter' }, input, (cs) => {
    const f = resolveFilter(db, input.filter);
    cs.remove('filters', f.id);
    return { value: f, summary: `Deleted filter ${quote(f.name)}` };
  });
}
