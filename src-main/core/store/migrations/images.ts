/**
 * What the migrations do to rows already written: the change images the action log keeps gain the
 * columns a schema added (so undo restores a whole row), and actions logged before schema 11 get their
 * `what`. Also used by import (src-main/core/data/import.ts), which reads files of older schemas.
 */
import type Database from 'better-sqlite3';
/** The columns schema 15 added to events, with the value an older event has. */
export const EVENT_COLUMNS_15 = { plan_id: null, pinned: 0 } as const;

/** The event images the action log keeps, written before schema 15, gain the new columns (as schema 12 did for tasks). */
export function upgradeEventImagesTo15(db: Database.Database): void {
  addColumnsToImages(db, 'events', EVENT_COLUMNS_15);
}

/** The columns schema 12 added to tasks, with the value an older task has. */
export const TASK_COLUMNS_12 = { description: null, parent_id: null, section_id: null, deadline: null, duration_min: null } as const;

/**
 * The task images the action log keeps, written before schema 12, gain the new columns (all null, as the
 * migration leaves the rows), so undo compares and restores them exactly as it did before (as schema 6 did).
 */
export function upgradeTaskImagesTo12(db: Database.Database): void {
  addColumnsToImages(db, 'tasks', TASK_COLUMNS_12);
}

/** Images of `table` in the action log gain `columns` (with those values) where they lack them. */
function addColumnsToImages(db: Database.Database, table: string, columns: Record<string, unknown>): void {
  const update = db.prepare(`UPDATE actions SET changes = ? WHERE seq = ?`);
  type Image = Record<string, unknown>;
  const isImage = (v: unknown): v is Image => v !== null && typeof v === 'object' && !Array.isArray(v);
  // Only an image that is an object gains the columns: a damaged row (no image, not JSON) is left as it is,
  // for undo to refuse in words, rather than stopping the migration and with it every open of the file.
  const upgrade = (image: unknown): unknown =>
    isImage(image) ? { ...image, ...Object.fromEntries(Object.entries(columns).filter(([k]) => !(k in image))) } : image;
  for (const row of db.prepare(`SELECT seq, changes FROM actions WHERE changes LIKE ?`).all(`%"table":"${table}"%`) as { seq: number; changes: string }[]) {
    let changes: unknown;
    try {
      changes = JSON.parse(row.changes);
    } catch {
      continue;
    }
    if (!Array.isArray(changes)) continue;
    let changed = false;
    for (const c of changes as unknown[]) {
      if (!isImage(c) || c['table'] !== table) continue;
      const before = upgrade(c['before']);
      const after = upgrade(c['after']);
      changed ||= before !== c['before'] || after !== c['after'];
      c['before'] = before;
      c['after'] = after;
    }
    if (changed) update.run(JSON.stringify(changes), row.seq);
  }
}

/**
 * Writes `what` for the action rows that have none (logged before schema 11, in the database or in an
 * export file of an older Tidy), from what they hold: the operation (the tool column), the rows they
 * changed, and the chain of undoes. The table of operations is frozen here as schema 11 knew it, so
 * this stays true whatever the registries become. Summaries are not read.
 */
export function backfillActionWhat(db: Database.Database): void {
  type Image = Record<string, unknown> | null;
  type What = { verb: string; kind: string | null; id: string | null; name: string | null; count: number; reverses: string | null };
  const OPS: Record<string, [verb: string, kind: string]> = {
    add_task: ['added', 'task'], update_task: ['updated', 'task'], reorder_task: ['moved', 'task'], snooze_task: ['snoozed', 'task'],
    move_task: ['moved', 'task'], complete_task: ['completed', 'task'], reopen_task: ['reopened', 'task'], archive_task: ['archived', 'task'],
    create_project: ['created', 'project'], rename_project: ['renamed', 'project'], archive_project: ['archived', 'project'], unarchive_project: ['unarchived', 'project'],
    make_list: ['made', 'list'], rename_list: ['renamed', 'list'], archive_list: ['archived', 'list'], unarchive_list: ['unarchived', 'list'],
    add_list_item: ['added', 'item'], edit_list_item: ['changed', 'item'], check_list_item: ['checked', 'item'], archive_list_item: ['archived', 'item'],
    book_event: ['booked', 'event'], move_event: ['moved', 'event'], cancel_event: ['cancelled', 'event'],
    import_calendar: ['imported', 'calendar'], remove_calendar: ['removed', 'calendar'], import_todoist: ['imported', 'task'],
  };
  const TABLES: Record<string, [table: string, label: string]> = {
    task: ['tasks', 'content'], project: ['projects', 'name'], list: ['lists', 'name'], item: ['list_items', 'text'], event: ['events', 'title'], calendar: ['calendars', 'name'],
  };
  const KIND_OF_TABLE = new Map(Object.entries(TABLES).map(([kind, [table]]) => [table, kind]));
  const rows = db.prepare(`SELECT seq, id, tool, changes, undoes, what FROM actions ORDER BY seq`).all() as {
    seq: number; id: string; tool: string; changes: string; undoes: string | null; what: string | null;
  }[];
  const known = new Map<string, What>();
  const update = db.prepare(`UPDATE actions SET what = ? WHERE seq = ?`);
  for (const row of rows) {
    if (row.what !== null) {
      known.set(row.id, JSON.parse(row.what) as What);
      continue;
    }
    let changes: { table: string; id: string; before: Image; after: Image }[] = [];
    try {
      const parsed: unknown = JSON.parse(row.changes);
      if (Array.isArray(parsed)) changes = parsed.filter((c): c is (typeof changes)[number] => c !== null && typeof c === 'object' && typeof c.table === 'string');
    } catch {
      // an unreadable image list: what the operation says, with no id or name
    }
    let what: What;
    const reversed = row.undoes === null ? undefined : known.get(row.undoes);
    if (row.undoes !== null) {
      // Reversing an undo is a redo; reversing anything else (a change, a redo) is an undo.
      const base = reversed ?? { verb: 'changed', kind: null, id: null, name: null, count: 1, reverses: null };
      what = { ...base, verb: base.verb === 'undid' ? 'redid' : 'undid', reverses: row.undoes };
    } else if (row.changes === '[]') {
      const at = row.tool.indexOf('__');
      what = { verb: 'ran', kind: null, id: null, name: at === -1 ? row.tool : row.tool.slice(at + 2), count: 1, reverses: null };
    } else {
      const op = OPS[row.tool];
      const kind = op?.[1] ?? KIND_OF_TABLE.get(changes[0]?.table ?? '') ?? null;
      let verb = op?.[0] ?? 'changed';
      const [table, label] = kind ? TABLES[kind]! : ['', ''];
      const own = changes.filter((c) => c.table === table);
      const first = own[0];
      const image = first ? (first.after ?? first.before) : null;
      if (row.tool === 'check_list_item' && first?.after) verb = first.after['checked'] ? 'checked' : 'unchecked';
      if (row.tool === 'import_calendar' && (!first || first.before)) verb = 'reimported'; // a first import makes its calendar
      const todoist = row.tool === 'import_todoist';
      what = {
        verb,
        kind,
        id: todoist || !first ? null : first.id,
        name: todoist || !image || typeof image[label] !== 'string' ? null : (image[label] as string),
        count: todoist ? own.length : 1,
        reverses: null,
      };
    }
    known.set(row.id, what);
    update.run(JSON.stringify(what), row.seq);
  }
}

/**
 * Tasks written before schema 6 (in the database, or in an export file of an older Tidy) into its
 * meaning: priority inverted (4 was urgent, now 1 is), positions in creation order, done tasks completed
 * when last updated, and the same for the task images the action log keeps, so undo still compares and
 * restores them exactly.
 */
export function upgradeTasksTo6(db: Database.Database): void {
  db.exec(`
    UPDATE tasks SET priority = 5 - priority, recurrence = NULL, completed_at = CASE WHEN status = 'done' THEN updated_at END;
    WITH o AS (SELECT id, ROW_NUMBER() OVER (ORDER BY created_at, rowid) AS n FROM tasks)
      UPDATE tasks SET position = o.n FROM o WHERE o.id = tasks.id;
  `);
  const position = db.prepare(`SELECT position FROM tasks WHERE id = ?`).pluck();
  const update = db.prepare(`UPDATE actions SET changes = ? WHERE seq = ?`);
  type Image = Record<string, unknown> | null;
  const upgrade = (id: string, image: Image): Image => {
    if (image === null) return null;
    const p = typeof image['priority'] === 'number' ? 5 - image['priority'] : image['priority'];
    const { id: _id, content, project_id, due, status, created_at, updated_at } = image;
    return {
      id: _id,
      content,
      project_id,
      priority: p,
      due,
      recurrence: null,
      position: (position.get(id) as number | undefined) ?? 0,
      status,
      completed_at: status === 'done' ? updated_at : null,
      created_at,
      updated_at,
    };
  };
  for (const row of db.prepare(`SELECT seq, changes FROM actions WHERE changes LIKE '%"table":"tasks"%'`).all() as { seq: number; changes: string }[]) {
    const changes = JSON.parse(row.changes) as { table: string; id: string; before: Image; after: Image }[];
    for (const c of changes) {
      if (c.table !== 'tasks') continue;
      c.before = upgrade(c.id, c.before);
      c.after = upgrade(c.id, c.after);
    }
    update.run(JSON.stringify(changes), row.seq);
  }
}
