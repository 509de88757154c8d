/**
 * A list of things on the left (create one, choose one) and the chosen one on the right: Projects and
 * Lists. The first is chosen when none is (or the chosen one is gone, e.g. undone). The two sides are
 * areas of F6 (src-renderer/app/panes.ts).
 */
import { useEffect, type ReactNode } from 'react';
import type { Problem } from '../lib/problem';
import { AddForm, Loading, ProblemAlert, ViewHead } from './common';

export interface MasterItem {
  id: string;
  name: string;
  /** A number after the name (e.g. open tasks), and what it counts, for screen readers. */
  count?: { value: number; of: string };
}

export interface MasterDetailProps<T extends MasterItem> {
  /** The view's title, and what one item is called ("project"). */
  title: string;
  noun: string;
  /** Null until loaded. */
  items: T[] | null;
  loading: boolean;
  problem: Problem | null;
  /** Said when there are none yet. */
  empty: string;
  create: { label: string; placeholder: string; problem: Problem | undefined; onAdd: (name: string) => Promise<boolean> };
  selectedId: string | null;
  onSelect(id: string | null): unknown;
  /** The chosen item's side: its header extras and its body. */
  detail(item: T): { badge?: ReactNode; body: ReactNode };
}

export function MasterDetail<T extends MasterItem>({ title, noun, items, loading, problem, empty, create, selectedId, onSelect, detail }: MasterDetailProps<T>) {
  const selected = items?.find((i) => i.id === selectedId) ?? null;

  useEffect(() => {
    if (!items || items.some((i) => i.id === selectedId)) return;
    const first = items[0]?.id ?? null;
    if (first !== selectedId) onSelect(first);
  }, [items, selectedId, onSelect]);

  const shown = selected ? detail(selected) : null;
  const Noun = noun.charAt(0).toUpperCase() + noun.slice(1);
  return (
    <>
      <ViewHead title={title}>{items && <span className="badge">{items.length}</span>}</ViewHead>
      <div className="split">
        <div className="picker" data-pane="list">
          <AddForm label={create.label} button="Create" placeholder={create.placeholder} problem={create.problem} onAdd={create.onAdd} />
          {problem && <ProblemAlert problem={problem} title={`Could not load ${title.toLowerCase()}`} />}
          {items === null && loading && <Loading what={title.toLowerCase()} />}
          {items && items.length === 0 && <p className="empty">{empty}</p>}
          <ul aria-label={title}>
            {(items ?? []).map((i) => (
              <li key={i.id}>
                <button type="button" className="picker-item" aria-current={i.id === selectedId ? 'true' : undefined} onClick={() => onSelect(i.id)}>
                  <span className="grow">{i.name}</span>
                  {i.count && (
                    <span className="count">
                      {i.count.value}
                      <span className="visually-hidden"> {i.count.of}</span>
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
        </div>
        <section className="detail" aria-label={selected ? `${Noun} ${selected.name}` : Noun} data-pane="main">
          {selected && shown ? (
            <>
              <header className="view-head">
                <h2>{selected.name}</h2>
                {shown.badge}
              </header>
              <div className="view-body">{shown.body}</div>
            </>
          ) : (
            items && items.length > 0 && <p className="empty">Choose a {noun}.</p>
          )}
        </section>
      </div>
    </>
  );
}
