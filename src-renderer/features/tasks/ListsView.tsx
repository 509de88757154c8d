import { useEffect } from 'react';
import type { ListItem } from '../../../src-shared/domain';
import { useApp } from '../../store/react';
import { AddForm, Loading, ProblemAlert } from '../../ui/common';
import { InlineEdit, useInlineEdit } from '../../ui/InlineEdit';
import { MasterDetail } from '../../ui/MasterDetail';

/** Lists on the left, the chosen list's items (check / uncheck, add) on the right. */
export function ListsView() {
  const lists = useApp((s) => s.lists);
  const list = useApp((s) => s.list);
  const loadLists = useApp((s) => s.loadLists);
  const openList = useApp((s) => s.openList);
  const createList = useApp((s) => s.createList);
  const addListItem = useApp((s) => s.addListItem);
  const checkListItem = useApp((s) => s.checkListItem);
  const createProblem = useApp((s) => s.formProblems['lists.create']);
  const archived = useApp((s) => s.archivedLists.value);
  const loadArchived = useApp((s) => s.loadArchivedLists);
  const renameList = useApp((s) => s.renameList);
  const archiveList = useApp((s) => s.archiveList);
  const unarchiveList = useApp((s) => s.unarchiveList);
  const addProblem = useApp((s) => s.formProblems['list.add']);

  useEffect(() => {
    void loadLists();
  }, [loadLists]);

  const items = list.value?.items ?? [];

  return (
    <MasterDetail
      title="Lists"
      noun="list"
      items={lists.value}
      loading={lists.loading}
      problem={lists.problem}
      empty="No lists yet. Ask Tidy to make one, e.g. a packing list."
      create={{ label: 'New list name', placeholder: 'New list', problem: createProblem, onAdd: createList }}
      selectedId={list.id}
      onSelect={openList}
      manage={{ rename: renameList, archive: archiveList, unarchive: unarchiveList, archived, loadArchived, history: 'lists' }}
      detail={(selected) => ({
        badge: list.value && (
          <span className="badge">
            {items.filter((i) => i.checked).length}/{items.length} done
          </span>
        ),
        body: (
          <>
            <AddForm label={`New item in ${selected.name}`} button="Add" placeholder="Add an item" problem={addProblem} onAdd={(text) => addListItem(selected.id, text)} />
            {list.problem && <ProblemAlert problem={list.problem} title="Could not load the list" />}
            {list.value === null ? (
              list.loading && <Loading what="items" />
            ) : items.length === 0 ? (
              <p className="empty">This list is empty.</p>
            ) : (
              <ul className="item-list" aria-label={`Items of ${selected.name}`}>
                {items.map((i) => (
                  <ItemRow key={i.id} list={selected.id} item={i} onCheck={(checked) => void checkListItem(selected.id, i.id, checked)} />
                ))}
              </ul>
            )}
          </>
        ),
      })}
    />
  );
}

/** One item: a checkbox, its text, and Edit / Archive (both logged; archiving offers Undo). */
function ItemRow({ list, item, onCheck }: { list: string; item: ListItem; onCheck: (checked: boolean) => void }) {
  const editListItem = useApp((s) => s.editListItem);
  const archiveListItem = useApp((s) => s.archiveListItem);
  const edit = useInlineEdit();
  if (edit.editing)
    return (
      <li>
        <InlineEdit name={`Edit item ${item.text}`} field="Item text" text={item.text} save={(text) => editListItem(list, item.id, text)} close={edit.stop} />
      </li>
    );
  return (
    <li>
      <label>
        <input type="checkbox" checked={item.checked} onChange={(e) => onCheck(e.target.checked)} />
        <span className={item.checked ? 'done grow' : 'grow'}>{item.text}</span>
      </label>
      <span className="item-actions">
        <button
          type="button"
          className="btn ghost small"
          aria-label={`Edit item ${item.text}`}
          onClick={edit.start}
        >
          Edit
        </button>
        <button type="button" className="btn ghost small" aria-label={`Archive item ${item.text}`} onClick={() => void archiveListItem(list, item.id)}>
          Archive
        </button>
      </span>
    </li>
  );
}
