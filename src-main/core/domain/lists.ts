import type { List, ListItem } from '../../../src-shared/domain';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { implement } from './operation';
import { assertLive, assertNameFree as assertNamed, named, resolveNamed } from './named';
import { cleanName, cleanText, nameKey, now, quote } from './text';

interface ListRow {
  id: string;
  name: string;
  name_key: string;
  archived_at: string | null;
  created_at: string;
}

interface ItemRow {
  id: string;
  list_id: string;
  text: string;
  checked: number;
  archived_at: string | null;
  position: number;
}

const toList = (r: ListRow): List => ({ id: r.id, name: r.name, archivedAt: r.archived_at, createdAt: r.created_at });
const toItem = (r: ItemRow): ListItem => ({
  id: r.id,
  listId: r.list_id,
  text: r.text,
  checked: r.checked === 1,
  archivedAt: r.archived_at,
  position: r.position,
});

export function listLists(db: Db, opts: { includeArchived?: boolean } = {}): List[] {
  const rows = cached(db, `SELECT * FROM lists WHERE ? OR archived_at IS NULL ORDER BY archived_at IS NOT NULL, name_key`).all(
    opts.includeArchived ? 1 : 0,
  ) as ListRow[];
  return rows.map(toList);
}

/** Finds a list by id, else by name (case-insensitive; a live one before an archived one). */
export function resolveList(db: Db, ref: string): List {
  return toList(resolveNamed<ListRow>(db, 'lists', ref));
}

function resolveLiveList(db: Db, ref: string): List {
  const row = resolveNamed<ListRow>(db, 'lists', ref);
  assertLive('lists', row);
  return toList(row);
}

export function listItems(db: Db, ref: string, opts: { includeArchived?: boolean } = {}): { list: List; items: ListItem[] } {
  const list = resolveList(db, ref);
  const rows = cached(db, `SELECT * FROM list_items WHERE list_id = ? AND (? OR archived_at IS NULL) ORDER BY position`).all(
    list.id,
    opts.includeArchived ? 1 : 0,
  ) as ItemRow[];
  return { list, items: rows.map(toItem) };
}

function getItem(db: Db, list: List, ref: string): ListItem {
  const id = String(ref ?? '').trim().toLowerCase();
  const row = cached(db, `SELECT * FROM list_items WHERE id = ?`).get(id) as ItemRow | undefined;
  if (!row) fail(`no item with id ${quote(String(ref ?? ''))}`, `get the items of ${quote(list.name)} to see valid item ids`);
  if (row.list_id !== list.id) fail(`item ${row.id} is not on ${quote(list.name)}`, `get the items of ${quote(list.name)} to see valid item ids`);
  return toItem(row);
}

const assertNameFree = (db: Db, name: string, exceptId?: string): void => assertNamed(db, 'lists', name, exceptId);

export const makeList = implement('lists.create', (cs, input, db) => {
  const name = cleanName(input.name, 'list');
  assertNameFree(db, name);
  const t = now();
  const row = cs.insert('lists', { id: nextId(db, 'l'), name, name_key: nameKey(name), archived_at: null, created_at: t, updated_at: t });
  return { value: { id: String(row['id']), name }, summary: `Made list ${quote(name)}` };
});

export const renameList = implement('lists.rename', (cs, input, db) => named.rename(cs, db, 'lists', input.list, input.name));
export const archiveList = implement('lists.archive', (cs, input, db) => named.archive(cs, db, 'lists', input.list));
export const unarchiveList = implement('lists.unarchive', (cs, input, db) => named.unarchive(cs, db, 'lists', input.list));

export const addListItem = implement('lists.addItem', (cs, input, db) => {
  const list = resolveLiveList(db, input.list);
  const text = cleanText(input.text, 'item');
  const last = cached(db, `SELECT max(position) AS p FROM list_items WHERE list_id = ?`).get(list.id) as { p: number | null };
  const t = now();
  const row = cs.insert('list_items', {
    id: nextId(db, 'i'),
    list_id: list.id,
    text,
    checked: 0,
    archived_at: null,
    position: (last.p ?? 0) + 1,
    created_at: t,
    updated_at: t,
  });
  return { value: toItem(row as unknown as ItemRow), summary: `Added ${quote(text)} to ${list.name}` };
});

export const editListItem = implement('lists.editItem', (cs, input, db) => {
  const list = resolveLiveList(db, input.list);
  const item = getItem(db, list, input.item);
  const text = cleanText(input.text, 'item');
  if (text === item.text) fail(`item ${item.id} already says that`, 'nothing to change');
  const row = cs.update('list_items', item.id, { text, updated_at: now() });
  return { value: toItem(row as unknown as ItemRow), summary: `Changed ${quote(item.text)} to ${quote(text)} on ${list.name}` };
});

export const checkListItem = implement('lists.checkItem', (cs, input, db) => {
  const list = resolveLiveList(db, input.list);
  const item = getItem(db, list, input.item);
  if (item.archivedAt) fail(`item ${item.id} is archived`, 'undo its archiving first');
  if (item.checked === input.checked) fail(`item ${item.id} is already ${input.checked ? 'checked' : 'unchecked'}`, 'nothing to change');
  const row = cs.update('list_items', item.id, { checked: input.checked ? 1 : 0, updated_at: now() });
  return { value: toItem(row as unknown as ItemRow), summary: `${input.checked ? 'Checked' : 'Unchecked'} ${quote(item.text)} on ${list.name}`, what: { verb: input.checked ? 'checked' : 'unchecked' } };
});

export const archiveListItem = implement('lists.archiveItem', (cs, input, db) => {
  const list = resolveLiveList(db, input.list);
  const item = getItem(db, list, input.item);
  if (item.archivedAt) fail(`item ${item.id} is already archived`, 'nothing to change');
  const row = cs.update('list_items', item.id, { archived_at: now(), updated_at: now() });
  return { value: toItem(row as unknown as ItemRow), summary: `Archived ${quote(item.text)} from ${list.name}` };
});

export const LIST_OPERATIONS = [makeList, renameList, archiveList, unarchiveList, addListItem, editListItem, checkListItem, archiveListItem];
