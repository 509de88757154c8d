import { useEffect } from 'react';
import { useApp } from '../store/react';
import { AddForm, Loading, ProblemAlert, ViewHead } from './common';

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
  useEffect(() => {
    if (!lists.value || lists.value.some((l) => l.id === list.id)) return;
    const first = lists.value[0]?.id ?? null;
    if (first !== list.id) void openList(first);
  }, [lists.value, list.id, openList]);

  const selected = lists.value?.find((l) => l.id === list.id) ?? null;
  const items = list.value?.items ?? [];

  return (
    <>
      <ViewHead title="Lists">{lists.value && <span className="badge">{lists.value.length}</span>}</ViewHead>
      <div className="split">
        <div className="picker">
          <AddForm label="New list name" button="Create" placeholder="New list" problem={createProblem} onAdd={createList} />
          {lists.problem && <ProblemAlert problem={lists.problem} title="Could not load lists" />}
          {lists.value === null && lists.loading && <Loading what="lists" />}
          {lists.value && lists.value.length === 0 && <p className="empty">No lists yet. Ask Tidy to make one, e.g. a packing list.</p>}
          <ul aria-label="Lists">
            {(lists.value ?? []).map((l) => (
              <li key={l.id}>
                <button type="button" className="picker-item" aria-current={l.id === list.id ? 'true' : undefined} onClick={() => void openList(l.id)}>
                  <span className="grow">{l.name}</span>
                </button>
              </li>
            ))}
          </ul>
        </div>
        <section className="detail" aria-label={selected ? `List ${selected.name}` : 'List'}>
          {selected && (
            <>
              <header className="view-head">
                <h2>{selected.name}</h2>
                {list.value && (
                  <span className="badge">
                    {items.filter((i) => i.checked).length}/{items.length} done
                  </span>
                )}
              </header>
              <div className="view-body">
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
              </div>
            </>
          )}
        </section>
      </div>
    </>
  );
}
