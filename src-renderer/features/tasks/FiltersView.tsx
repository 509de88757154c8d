import { useEffect, useId, useState } from 'react';
import { useApp } from '../../store/react';
import { Loading, ViewHead } from '../../ui/common';
import { Icon } from '../../ui/Icon';
import { TaskList } from './TaskList';
import { FieldError } from '../../ui/FieldError';

const EXAMPLES = ['today | overdue', '@errands & !p4', '#Work & due before: friday', 'no date & !subtask', 'search: invoice'];

/**
 * The filter box: a query of the filter language (today, overdue, p1, #Project, @label, /Section,
 * due before: DATE, search: TEXT, & | ! and parentheses) over every task; a bad query shows its one line
 * naming the position. The query can be saved under a name: saved filters sit in the sidebar.
 */
export function FiltersView() {
  const filter = useApp((s) => s.filter);
  const runFilter = useApp((s) => s.runFilter);
  const saveFilter = useApp((s) => s.saveFilter);
  const [text, setText] = useState(filter.query);
  const [name, setName] = useState('');
  const [saveProblem, setSaveProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const id = useId();
  // A saved filter opened from the sidebar puts its query in the box.
  useEffect(() => setText(filter.query), [filter.query]);
  const page = filter.value;
  const ran = page !== null && filter.query.trim() !== '';

  return (
    <>
      <ViewHead title="Filters">{page && <span className="badge">{page.total} open</span>}</ViewHead>
      <div className="view-body">
        <form
          className="add-form-wrap filter-form"
          role="search"
          aria-label="Filter tasks"
          onSubmit={(e) => {
            e.preventDefault();
            void runFilter(text);
          }}
        >
          <div className="add-form">
            <input
              className="input"
              aria-label="Filter query"
              placeholder="today | overdue, @errands & p1, #Work & due before: friday…"
              value={text}
              spellCheck={false}
              onChange={(e) => setText(e.target.value)}
              aria-invalid={filter.problem ? true : undefined}
              aria-describedby={filter.problem ? `${id}-problem` : `${id}-help`}
            />
            <button type="submit" className="btn primary" disabled={!text.trim()}>
              Run
            </button>
          </div>
          {filter.problem ? (
            <FieldError id={`${id}-problem`} problem={filter.problem.message} />
          ) : (
            <p id={`${id}-help`} className="muted filter-help">
              Try{' '}
              {EXAMPLES.map((q, i) => (
                <span key={q}>
                  {i > 0 && ', '}
                  <button
                    type="button"
                    className="linklike"
                    onClick={() => {
                      setText(q);
                      void runFilter(q);
                    }}
                  >
                    {q}
                  </button>
                </span>
              ))}
              .
            </p>
          )}
        </form>
        {ran && (
          <form
            className="filter-save"
            aria-label="Save this filter"
            onSubmit={(e) => {
              e.preventDefault();
              if (!name.trim() || busy) return;
              setBusy(true);
              void saveFilter(name.trim(), filter.query).then((p) => {
                setBusy(false);
                setSaveProblem(p ? `${p.message} — ${p.hint}` : null);
                if (!p) setName('');
              });
            }}
          >
            <input className="input" aria-label="Filter name" placeholder="Name it to keep it in the sidebar" value={name} onChange={(e) => setName(e.target.value)} />
            <button type="submit" className="btn" disabled={busy || !name.trim()}>
              Save filter
            </button>
            <FieldError problem={saveProblem} />
          </form>
        )}
        {page === null ? (
          filter.loading && <Loading what="matching tasks" />
        ) : page.tasks.length === 0 ? (
          <p className="empty">No open task matches {filter.query}.</p>
        ) : (
          <>
            <TaskList tasks={page.tasks} label="Matching tasks" showProject />
            {page.total > page.tasks.length && <p className="muted">Showing the first {page.tasks.length} of {page.total} tasks.</p>}
          </>
        )}
      </div>
    </>
  );
}

/** The saved filters in the sidebar: open one (its tasks in the Filters view), or delete it (with Undo). */
export function SavedFilters() {
  const saved = useApp((s) => s.savedFilters.value);
  const load = useApp((s) => s.loadSavedFilters);
  const open = useApp((s) => s.openSavedFilter);
  const remove = useApp((s) => s.deleteFilter);
  const view = useApp((s) => s.view);
  const current = useApp((s) => s.filter.query);
  useEffect(() => {
    void load();
  }, [load]);
  if (!saved || saved.length === 0) return null;
  return (
    <section className="saved-filters" aria-label="Saved filters">
      <h2 className="nav-section nav-label">Saved filters</h2>
      <ul>
        {saved.map((f) => (
          <li key={f.id} className="saved-filter">
            <button
              type="button"
              className="nav-item"
              title={f.query}
              aria-current={view === 'filters' && current === f.query ? 'page' : undefined}
              onClick={() => void open(f)}
            >
              <span className="nav-icon">
                <Icon path="M3 5h18l-7 8v6l-4 2v-8z" />
              </span>
              <span className="nav-label">{f.name}</span>
            </button>
            <button type="button" className="icon-btn nav-label" aria-label={`Delete filter ${f.name}`} title={`Delete filter ${f.name}`} onClick={() => void remove(f)}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
