import type { List, ListItem } from '../../../src-shared/domain';
import type { ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from './fail';
import { mutate, type Mutated } from './mutation';
import { assertLive, assertNameFree as assertNamed, resolveNamed } from './named';
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

export function makeList(db: Db, ctx: ActionContext, input: { name: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'make_list', input, (cs) => {
    const name = cleanName(input.name, 'list');
    assertNameFree(db, name);
    const t = now();
    const row = cs.insert('lists', { id: nextId(db, 'l'), name, name_key: nameKey(name), archived_at: null, created_at: t, updated_at: t });
    return { value: { id: String(row['id']), name }, summary: `Made list ${quote(name)}` };
  });
}

export function renameList(db: Db, ctx: ActionContext, input: { list: string; name: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'rename_list', input, (cs) => {
    const list = resolveList(db, input.list);
    const name = cleanName(input.name, 'list');
    if (name === list.name) fail(`list ${list.id} is already called ${quote(name)}`, 'nothing to change');
    if (!list.archivedAt) assertNameFree(db, name, list.id);
    cs.update('lists', list.id, { name, name_key: nameKey(name), updated_at: now() });
    return { value: { id: list.id, name }, summary: `Renamed list ${quote(list.name)} to ${quote(name)}` };
  });
}

export function archiveList(db: Db, ctx: ActionContext, input: { list: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'archive_list', input, (cs) => {
    const list = resolveList(db, input.list);
    if (list.archivedAt) fail(`list ${quote(list.name)} is already archived`, 'nothing to change');
    cs.update('lists', list.id, { archived_at: now(), updated_at: now() });
    return { value: { id: list.id, name: list.name }, summary: `Archived list ${quote(list.name)}` };
  });
}

export function unarchiveList(db: Db, ctx: ActionContext, input: { list: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'unarchive_list', input, (cs) => {
    const list = resolveList(db, input.list);
    if (!list.archivedAt) fail(`list ${quote(list.name)} is not archived`, 'nothing to change');
    assertNameFree(db, list.name, list.id);
    cs.update('lists', list.id, { archived_at: null, updated_at: now() });
    return { value: { id: list.id, name: list.name }, summary: `Unarchived list ${quote(list.name)}` };
  });
}

export function addListItem(db: Db, ctx: ActionContext, input: { list: string; text: string }): Mutated<ListItem> {
  return mutate(db, ctx, 'add_list_item', input, (cs) => {
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
}

export function editListItem(db: Db, ctx: ActionContext, input: { list: string; item: string; text: string }): Mutated<ListItem> {
  return mutate(db, ctx, 'edit_list_item', input, (cs) => {
    const list = resolveLiveList(db, input.list);
    const item = getItem(db, list, input.item);
    const text = cleanText(input.text, 'item');
    if (text === item.text) fail(`item ${item.id} already says that`, 'nothing to change');
    const row = cs.update('list_items', item.id, { text, updated_at: now() });
    return { value: toItem(row as unknown as ItemRow), summary: `Changed ${quote(item.text)} to ${quote(text)} on ${list.name}` };
  });
}

export function checkListItem(db: Db, ctx: ActionContext, input: { list: string; item: string; checked: boolean }): Mutated<ListItem> {
  return mutate(db, ctx, 'check_list_item', input, (cs) => {
    const list = resolveLiveList(db, input.list);
    const item = getItem(db, list, input.item);
    if (item.archivedAt) fail(`item ${item.id} is archived`, 'undo its archiving first');
    if (item.checked === input.checked) fail(`item ${item.id} is already ${input.checked ? 'checked' : 'unchecked'}`, 'nothing to change');
    const row = cs.update('list_items', item.id, { checked: input.checked ? 1 : 0, updated_at: now() });
    return { value: toItem(row as unknown as ItemRow), summary: `${input.checked ? 'Checked' : 'Unchecked'} ${quote(item.text)} on ${list.name}` };
  });
}

export function archiveListItem(db: Db, ctx: ActionContext, input: { list: string; item: string }): Mutated<ListItem> {
  return mutate(db, ctx, 'archive_list_item', input, (cs) => {
    const list = resolveLiveList(db, input.list);
    const item = getItem(db, list, input.item);
    if (item.archivedAt) fail(`item ${item.id} is already archived`, 'nothing to change');
    const row = cs.update('list_items', item.id, { archived_at: now(), updated_at: now() });
    return { value: toItem(row as unknown as ItemRow), summary: `Archived ${quote(item.text)} from ${list.name}` };
  });
}
