/**
 * The kinds of thing Tidy keeps, in words and letters, declared once: the noun and its plural (for every
 * sentence Tidy says about them), the id letter (t12 is a task) and the table. `IdKind` and `SearchKind`
 * are derived from this list; the main side's entity registry (src-main/core/store/entities.ts) takes
 * its words and letters from here.
 */
import { z } from 'zod';

interface KindDef {
  noun: string;
  plural: string;
  /** The id's letter: t12 is a task. */
  letter: string;
  table: string;
  /** Found by the search box (`search.query`). */
  searchable: boolean;
}

/** In the order search results are grouped. */
export const KINDS = {
  task: { noun: 'task', plural: 'tasks', letter: 't', table: 'tasks', searchable: true },
  project: { noun: 'project', plural: 'projects', letter: 'p', table: 'projects', searchable: true },
  list: { noun: 'list', plural: 'lists', letter: 'l', table: 'lists', searchable: true },
  item: { noun: 'item', plural: 'items', letter: 'i', table: 'list_items', searchable: true },
  event: { noun: 'event', plural: 'events', letter: 'e', table: 'events', searchable: true },
  conversation: { noun: 'conversation', plural: 'conversations', letter: 'c', table: 'conversations', searchable: true },
  calendar: { noun: 'calendar', plural: 'calendars', letter: 'k', table: 'calendars', searchable: false },
  section: { noun: 'section', plural: 'sections', letter: 's', table: 'sections', searchable: false },
  label: { noun: 'label', plural: 'labels', letter: 'g', table: 'labels', searchable: false },
  taskLabel: { noun: 'label of a task', plural: 'labels of tasks', letter: 'j', table: 'task_labels', searchable: false },
  comment: { noun: 'comment', plural: 'comments', letter: 'n', table: 'comments', searchable: false },
  filter: { noun: 'saved filter', plural: 'saved filters', letter: 'f', table: 'filters', searchable: false },
  memory: { noun: 'memory', plural: 'memories', letter: 'y', table: 'memories', searchable: true },
  routine: { noun: 'routine', plural: 'routines', letter: 'o', table: 'routines', searchable: false },
} as const satisfies Record<string, KindDef>;

export type EntityKind = keyof typeof KINDS;
export const ENTITY_KINDS = Object.keys(KINDS) as [EntityKind, ...EntityKind[]];
export const EntityKind = z.enum(ENTITY_KINDS);

/** Ids that name no thing of the user's: a41 an action, u3 a request by hand, r7 an agent run, m2 an MCP session, w4 an approval waiting for the user, x9 a message of a conversation. */
export const OTHER_ID_LETTERS = ['a', 'u', 'r', 'm', 'w', 'x'] as const;
export type IdKind = (typeof KINDS)[EntityKind]['letter'] | (typeof OTHER_ID_LETTERS)[number];

type Searchable = { [K in EntityKind]: (typeof KINDS)[K]['searchable'] extends true ? K : never }[EntityKind];
export const SEARCH_KINDS = ENTITY_KINDS.filter((k) => KINDS[k].searchable) as [Searchable, ...Searchable[]];
export const SearchKind = z.enum(SEARCH_KINDS);
export type SearchKind = z.infer<typeof SearchKind>;

/** The kind a table holds (`list_items` → item), or null for a table that is no kind. */
export function kindOfTable(table: string): EntityKind | null {
  return ENTITY_KINDS.find((k) => KINDS[k].table === table) ?? null;
}

/** The kind a word names, singular or plural (`tasks` → task), or null. */
export function kindOfWord(word: string): EntityKind | null {
  return ENTITY_KINDS.find((k) => KINDS[k].noun === word || KINDS[k].plural === word) ?? null;
}

/** "1 task", "3 tasks", "1,200 items"; a change of no kind counts as a change. */
export function countOf(n: number, kind: EntityKind | null): string {
  const [one, many] = kind ? [KINDS[kind].noun, KINDS[kind].plural] : ['change', 'changes'];
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}
