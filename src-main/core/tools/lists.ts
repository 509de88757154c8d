import { z } from 'zod';
import { asWritten } from '../../../src-shared/written';
import { addListItem, archiveListItem, checkListItem, editListItem, listItems, listLists, makeList } from '../domain/lists';
import { fail } from '../fail';
import { quote } from '../domain/text';
import { capped, defineTool, mutation, read, READ_CAP } from './tool';

/** `list` is a list's name or id: models remember names better than ids, and the domain resolves both. */
const list = z.string();

export const LIST_TOOLS = [
  defineTool({
    name: 'make_list',
    description: 'Make a new, empty list.',
    input: z.strictObject({ name: z.string() }),
    effect: 'write',
    changesExisting: () => 0,
    run: ({ name }, { db, action }) => mutation(makeList(db, action, { name: asWritten(name) }), (l) => ({ id: l.id, name: l.name })),
  }),
  defineTool({
    name: 'get_list_names',
    description: 'All lists with their ids.',
    input: z.strictObject({}),
    effect: 'read',
    run: (_, { db }) =>
      read(() => {
        const lists = listLists(db);
        return capped('lists', lists.slice(0, READ_CAP).map((l) => ({ id: l.id, name: l.name })), lists.length, 'use search to find one by name');
      }),
  }),
  defineTool({
    name: 'get_list_items',
    description: "A list's items (list: the list's name or id, here and in the other list tools).",
    input: z.strictObject({ list }),
    effect: 'read',
    run: ({ list }, { db }) =>
      read(() => {
        const { items } = listItems(db, list);
        return capped(
          'items',
          items.slice(0, READ_CAP).map((i) => ({ id: i.id, text: i.text, checked: i.checked })),
          items.length,
          'use search to find an item by its words',
        );
      }),
  }),
  defineTool({
    name: 'add_list_item',
    description: 'Add an item to a list.',
    input: z.strictObject({ list, text: z.string() }),
    effect: 'write',
    changesExisting: () => 0,
    run: ({ list, text }, { db, action }) => mutation(addListItem(db, action, { list, text }), (i) => ({ id: i.id, text: i.text })),
  }),
  defineTool({
    name: 'edit_list_item',
    idempotent: true,
    description: "Change an item's text (item_id from get_list_items).",
    input: z.strictObject({ list, item_id: z.string(), text: z.string() }),
    effect: 'write',
    run: ({ list, item_id, text }, { db, action }) =>
      mutation(editListItem(db, action, { list, item: item_id, text }), (i) => ({ id: i.id, text: i.text })),
  }),
  defineTool({
    name: 'check_list_item',
    idempotent: true,
    description: 'Check or uncheck an item (item_id from get_list_items).',
    input: z.strictObject({ list, item_id: z.string(), checked: z.boolean() }),
    effect: 'write',
    run: ({ list, item_id, checked }, { db, action }) =>
      mutation(checkListItem(db, action, { list, item: item_id, checked }), (i) => ({ id: i.id, checked: i.checked })),
  }),
  defineTool({
    name: 'archive_list_item',
    idempotent: true,
    description: 'Remove an item from a list (item_id from get_list_items); it is archived, not deleted.',
    input: z.strictObject({ list, item_id: z.string() }),
    effect: 'write',
    approval: 'ask',
    confirm: ({ list, item_id }, { db }) => {
      const found = listItems(db, list);
      const item = found.items.find((i) => i.id === item_id.trim().toLowerCase());
      if (!item) fail(`no item with id ${quote(item_id)} on ${quote(found.list.name)}`, `get the items of ${quote(found.list.name)} to see valid item ids`);
      return `Remove ${quote(item.text)} from ${found.list.name}?`;
    },
    run: ({ list, item_id }, { db, action }) => mutation(archiveListItem(db, action, { list, item: item_id }), () => ({ ok: true })),
  }),
];
