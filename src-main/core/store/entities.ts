/**
 * The entity registry: every table of user data, declared once. Change tracking (which tables the action
 * log records), undo (which rows depend on a parent, which restored rows need a live parent), the search
 * index and its triggers, naming rules and the test snapshot are all derived from this list.
 *
 * Adding an entity: its table (a migration in store/migrations.ts), one entry here, then its operations
 * and tools (docs/ARCHITECTURE.md, "Add an entity").
 */
import { KINDS, type IdKind } from '../../../src-shared/entities';

export type Row = Record<string, string | number | null>;

export interface EntityDef {
  /** The SQLite table; rows have a TEXT primary key `id`. */
  table: string;
  /** The id's letter (t12 is a task). */
  prefix: IdKind;
  /** The entity in words, for messages: "no task with id …". */
  word: string;
  /**
   * Rows of this table point at a parent row. An action that created the parent cannot be undone while
   * children point at it; and a restored row that is `live` must not land in an archived parent.
   */
  parent?: { table: string; column: string; live: (row: Row) => boolean };
  /**
   * Other rows these rows point at, besides the parent (a task's label link points at its label): an action
   * that created such a row cannot be undone while links point at it, and --cascade undoes what made them.
   */
  refs?: readonly { table: string; column: string }[];
  /** Searchable: the text column, indexed (FTS5) by triggers so that undo keeps the index right too. */
  search?: { column: string };
  /**
   * Named entities (projects, lists) have a unique name among live rows (column `name_key`), are found by
   * id or name, and can be renamed, archived and unarchived (`archived_at`).
   */
  named?: { hint: string };
}

export const ENTITIES = [
  {
    table: KINDS.project.table,
    prefix: KINDS.project.letter,
    word: KINDS.project.noun,
    search: { column: 'name' },
    named: { hint: 'list the projects to see their ids and names, or create the project first' },
  },
  {
    table: KINDS.task.table,
    prefix: KINDS.task.letter,
    word: KINDS.task.noun,
    parent: { table: 'projects', column: 'project_id', live: (row) => row['status'] === 'open' },
    search: { column: 'content' },
  },
  {
    table: KINDS.list.table,
    prefix: KINDS.list.letter,
    word: KINDS.list.noun,
    search: { column: 'name' },
    named: { hint: 'see the list names for the lists that exist, or make the list first' },
  },
  {
    table: KINDS.item.table,
    prefix: KINDS.item.letter,
    word: KINDS.item.noun,
    parent: { table: 'lists', column: 'list_id', live: (row) => row['archived_at'] === null },
    search: { column: 'text' },
  },
  {
    table: KINDS.calendar.table,
    prefix: KINDS.calendar.letter,
    word: KINDS.calendar.noun,
    named: { hint: 'list the calendars (tidy cal list) to see their ids and names' },
  },
  {
    table: KINDS.event.table,
    prefix: KINDS.event.letter,
    word: KINDS.event.noun,
    parent: { table: 'calendars', column: 'calendar_id', live: (row) => row['cancelled_at'] === null },
    search: { column: 'title' },
  },
  {
    table: KINDS.section.table,
    prefix: KINDS.section.letter,
    word: KINDS.section.noun,
    parent: { table: 'projects', column: 'project_id', live: (row) => row['archived_at'] === null },
  },
  {
    table: KINDS.label.table,
    prefix: KINDS.label.letter,
    word: KINDS.label.noun,
  },
  {
    table: KINDS.taskLabel.table,
    prefix: KINDS.taskLabel.letter,
    word: KINDS.taskLabel.noun,
    parent: { table: 'tasks', column: 'task_id', live: () => true },
    refs: [{ table: 'labels', column: 'label_id' }],
  },
  {
    table: KINDS.comment.table,
    prefix: KINDS.comment.letter,
    word: KINDS.comment.noun,
    parent: { table: 'tasks', column: 'task_id', live: () => true },
    search: { column: 'text' },
  },
  {
    table: KINDS.filter.table,
    prefix: KINDS.filter.letter,
    word: KINDS.filter.noun,
  },
  {
    table: KINDS.memory.table,
    prefix: KINDS.memory.letter,
    word: KINDS.memory.noun,
    parent: { table: 'projects', column: 'project_id', live: (row) => row['archived_at'] === null },
    search: { column: 'text' },
  },
  {
    table: KINDS.routine.table,
    prefix: KINDS.routine.letter,
    word: KINDS.routine.noun,
    named: { hint: 'list the routines (tidy routines list) to see their ids and names' },
  },
] as const satisfies readonly EntityDef[];

/** A table the action log tracks. Everything else (settings, the log itself, conversations) is not undoable data. */
export type Table = (typeof ENTITIES)[number]['table'];
export type NamedTable = Extract<(typeof ENTITIES)[number], { named: object }>['table'];

export const TRACKED_TABLES: readonly Table[] = ENTITIES.map((e) => e.table);

const byTable = new Map<string, EntityDef>(ENTITIES.map((e) => [e.table, e]));

export function entity(table: string): EntityDef {
  const def = byTable.get(table);
  if (!def) throw new Error(`unknown table ${table}`);
  return def;
}

/** The tables whose rows point at `table`, with the column that points. */
export function childrenOf(table: string): { table: Table; column: string }[] {
  return ENTITIES.flatMap((e) => [
    ...('parent' in e && e.parent.table === table ? [{ table: e.table, column: e.parent.column }] : []),
    ...('refs' in e ? e.refs.filter((r) => r.table === table).map((r) => ({ table: e.table, column: r.column })) : []),
  ]);
}
