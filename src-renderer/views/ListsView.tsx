import { useEffect } from 'react';
import { useApp } from '../store/react';
import { AddForm, Loading, ProblemAlert } from './common';
import { MasterDetail } from './MasterDetail';

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
                  <li key={i.id}>
                    <label>
                      <input type="checkbox" checked={i.checked} onChange={(e) => void checkListItem(selected.id, i.id, e.target.checked)} />
                      <span className={i.checked ? 'done grow' : 'grow'}>{i.text}</span>
                    </label>
                  </li>
                ))}
              </ul>
            )}
          </>
        ),
      })}
    />
  );
}
