/**
 * A list of things on the left (create one, choose one) and the chosen one on the right: Projects and
 * Lists. The first is chosen when none is (or the chosen one is gone, e.g. undone). The two sides are
 * areas of F6 (src-renderer/app/panes.ts).
 */
import { useEffect, useState, type ReactNode } from 'react';
import type { Problem } from '../lib/problem';
import { AddForm, Loading, ProblemAlert, ViewHead } from './common';
import { FieldError } from './FieldError';
import { SyncHistory } from './SyncHistory';
import type { SyncHistoryTable } from '../../src-shared/ipc';

interface MasterItem {
  id: string;
  name: string;
  /** A number after the name (e.g. open tasks), and what it counts, for screen readers. */
  count?: { value: number; of: string };
}

interface MasterDetailProps<T extends MasterItem> {
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
  /** Rename, archive and unarchive by hand (each a logged, undoable operation). */
  manage?: Manage;
  /** The chosen item's side: its header extras and its body. */
  detail(item: T): { badge?: ReactNode; body: ReactNode };
}

interface Manage {
  rename(id: string, name: string): Promise<Problem | null>;
  archive(id: string): Promise<unknown>;
  /** The archived ones, null until loaded (when the user opens the archived section). */
  archived: { id: string; name: string }[] | null;
  loadArchived(): unknown;
  unarchive(id: string): Promise<unknown>;
  /** The table whose rows these are: the chosen one's sync history shows under its name, with Restore of a name (a rename). */
  history?: SyncHistoryTable;
}

const NAMED_LABELS: Record<string, string> = { name: 'Name', archived_at: 'Archived', description: 'Description' };
const NAME: ReadonlySet<string> = new Set(['name']);

export function MasterDetail<T extends MasterItem>({ title, noun, items, loading, problem, empty, create, selectedId, onSelect, manage, detail }: MasterDetailProps<T>) {
  const [renaming, setRenaming] = useState<string | null>(null);
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
          {manage && <ArchivedSection noun={noun} title={title} manage={manage} />}
        </div>
        <section className="detail" aria-label={selected ? `${Noun} ${selected.name}` : Noun} data-pane="main">
          {selected && shown ? (
            <>
              <header className="view-head">
                {manage && renaming === selected.id ? (
                  <RenameForm noun={noun} name={selected.name} onClose={() => setRenaming(null)} onRename={(name) => manage.rename(selected.id, name)} />
                ) : (
                  <>
                    <h2>{selected.name}</h2>
                    {shown.badge}
                    {manage && (
                      <span className="head-actions">
                        <button type="button" className="btn small" aria-label={`Rename ${noun} ${selected.name}`} onClick={() => setRenaming(selected.id)}>
                          Rename
                        </button>
                        <button type="button" className="btn small" aria-label={`Archive ${noun} ${selected.name}`} onClick={() => void manage.archive(selected.id)}>
                          Archive
                        </button>
                      </span>
                    )}
                  </>
                )}
              </header>
              <div className="view-body">
                {manage?.history && (
                  <SyncHistory
                    table={manage.history}
                    row={selected.id}
                    name={selected.name}
                    labels={NAMED_LABELS}
                    restore={{ columns: NAME, run: (c) => manage.rename(selected.id, String(c.lostValue ?? '')) }}
                  />
                )}
                {shown.body}
              </div>
            </>
          ) : (
            items && items.length > 0 && <p className="empty">Choose a {noun}.</p>
          )}
        </section>
      </div>
    </>
  );
}

/** The name as a field: Enter saves, Esc cancels; a refusal (a name taken) is said under it. */
function RenameForm({ noun, name, onRename, onClose }: { noun: string; name: string; onRename: (name: string) => Promise<Problem | null>; onClose: () => void }) {
  const [text, setText] = useState(name);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      className="rename-form"
      aria-label={`Rename ${noun} ${name}`}
      onSubmit={(e) => {
        e.preventDefault();
        const value = text.trim();
        if (!value || busy) return;
        if (value === name) return onClose();
        setBusy(true);
        void onRename(value).then((p) => {
          setBusy(false);
          if (p) setProblem(p);
          else onClose();
        });
      }}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.preventDefault();
          e.stopPropagation();
          onClose();
        }
      }}
    >
      <input className="input" aria-label={`New name of the ${noun}`} value={text} autoFocus onChange={(e) => setText(e.target.value)} aria-invalid={problem ? true : undefined} />
      <button type="submit" className="btn primary small" disabled={busy || !text.trim()}>
        Save
      </button>
      <button type="button" className="btn small" onClick={onClose}>
        Cancel
      </button>
      <FieldError problem={problem} />
    </form>
  );
}

/** The archived ones, folded away; opening the section loads them. */
function ArchivedSection({ noun, title, manage }: { noun: string; title: string; manage: Manage }) {
  const [open, setOpen] = useState(false);
  const { archived, loadArchived } = manage;
  useEffect(() => {
    if (open) void loadArchived();
  }, [open, loadArchived]);
  return (
    <details className="archived" onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>Archived {title.toLowerCase()}</summary>
      {archived === null ? (
        open && <Loading what={`archived ${title.toLowerCase()}`} />
      ) : archived.length === 0 ? (
        <p className="muted">No archived {title.toLowerCase()}.</p>
      ) : (
        <ul aria-label={`Archived ${title.toLowerCase()}`}>
          {archived.map((a) => (
            <li key={a.id}>
              <span className="grow">{a.name}</span>
              <button type="button" className="btn small" aria-label={`Unarchive ${noun} ${a.name}`} onClick={() => void manage.unarchive(a.id)}>
                Unarchive
              </button>
            </li>
          ))}
        </ul>
      )}
    </details>
  );
}
