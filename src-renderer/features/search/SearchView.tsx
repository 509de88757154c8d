/// <reference types="vite/client" />
/**
 * Search over tasks, projects, lists, list items, events and conversations (SQLite FTS5 on the main side),
 * results grouped by kind. Ctrl+F or / lands in the box (app/App.tsx); Enter opens the first result,
 * ↓ goes into the results, where ↑/↓ move and Enter opens one.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { INBOX_ID } from '../../../src-shared/domain';
import { focusWhenReady } from '../../lib/focus';
import { useApp, useAppStore } from '../../store/react';
import type { SearchResults } from '../tasks';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import '../../styles/tasks-ui.css';

type Hit = SearchResults['groups'][number]['hits'][number];

const GROUP_NAMES: Record<Hit['kind'], string> = { task: 'Tasks', project: 'Projects', list: 'Lists', item: 'List items', event: 'Events', memory: 'Memories', conversation: 'Conversations' };

/** The id of the search box, for Ctrl+F and /. */
export const SEARCH_BOX = 'search-box';

/** A snippet with its matches (between « and ») marked. */
function snippet(text: string): ReactNode[] {
  return text.split(/«([^»]*)»/g).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part));
}

const plain = (text: string): string => text.replace(/[«»]/g, '');

const WAIT_MS = 150;

export function SearchView() {
  const search = useApp((s) => s.search);
  const runSearch = useApp((s) => s.runSearch);
  const store = useAppStore();
  const [text, setText] = useState(search.query);
  const resultsRef = useRef<HTMLDivElement>(null);

  // Searched as you type, once the typing pauses.
  useEffect(() => {
    if (text === store.getState().search.query) return;
    const timer = setTimeout(() => void runSearch(text), WAIT_MS);
    return () => clearTimeout(timer);
  }, [text, runSearch, store]);

  const open = (hit: Hit) => {
    const s = store.getState();
    const focusTask = () => focusWhenReady(() => document.querySelector<HTMLElement>(`[data-task-box="${CSS.escape(hit.id)}"]`));
    switch (hit.kind) {
      case 'task':
        if (hit.done) s.show('completed');
        else if (hit.parentId === INBOX_ID || hit.parentId === null) s.show('inbox');
        else {
          s.show('projects');
          void s.openProject(hit.parentId);
        }
        focusTask();
        break;
      case 'project':
        if (hit.id === INBOX_ID) s.show('inbox');
        else {
          s.show('projects');
          void s.openProject(hit.id);
        }
        break;
      case 'list':
      case 'item':
        s.show('lists');
        void s.openList(hit.kind === 'list' ? hit.id : (hit.parentId ?? hit.id));
        break;
      case 'event':
        s.show('calendar');
        if (hit.start) void s.showCalendarAt(Date.parse(hit.start), 'week');
        break;
      case 'conversation':
        void s.openConversation(hit.id);
        s.show('chat');
        break;
    }
  };

  const hits = (): HTMLButtonElement[] => [...(resultsRef.current?.querySelectorAll<HTMLButtonElement>('button.hit') ?? [])];
  const first = search.value?.groups[0]?.hits[0];

  const onResultsKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const all = hits();
    const at = all.indexOf(e.target as HTMLButtonElement);
    if (at < 0) return;
    if (e.key === 'ArrowDown') all[at + 1]?.focus();
    else if (e.key === 'ArrowUp') (at === 0 ? document.getElementById(SEARCH_BOX) : all[at - 1])?.focus();
    else return;
    e.preventDefault();
  };

  const results = search.value;
  const searched = results !== null && search.query.trim() !== '';
  return (
    <>
      <ViewHead title="Search" />
      <div className="view-body">
        <form
          className="search-form"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            if (first) open(first);
          }}
        >
          <input
            id={SEARCH_BOX}
            className="input"
            type="search"
            aria-label="Search"
            placeholder="Search tasks, projects, lists, items, events and conversations"
            value={text}
            autoComplete="off"
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'ArrowDown' && hits()[0]) {
                e.preventDefault();
                hits()[0]!.focus();
              }
            }}
          />
        </form>
        <p className="muted search-status" role="status">
          {search.loading ? 'Searching…' : searched ? (results.total === 0 ? `Nothing found for “${search.query}”.` : `${results.total} found · Enter opens the first`) : ''}
        </p>
        {search.problem && <ProblemAlert problem={search.problem} title="The search failed" />}
        {results === null && search.loading && <Loading what="results" />}
        {searched && (
          <div ref={resultsRef} className="search-results" onKeyDown={onResultsKey}>
            {results.groups.map((g) => (
              <section key={g.kind} aria-labelledby={`found-${g.kind}`}>
                <h2 id={`found-${g.kind}`} className="group-head">
                  {GROUP_NAMES[g.kind]} <span className="count">{g.hits.length}</span>
                </h2>
                <ul aria-label={`${GROUP_NAMES[g.kind]} found`}>
                  {g.hits.map((h) => (
                    <li key={`${h.kind}:${h.id}`}>
                      <button type="button" className="hit" onClick={() => open(h)}>
                        {/* A snippet that is the whole title marks the matches in the title itself. */}
                        <span className={`hit-title${h.done ? ' done' : ''}`}>{plain(h.snippet) === h.title ? snippet(h.snippet) : h.title}</span>
                        {h.parent && <span className="badge">{h.parent}</span>}
                        {h.snippet && plain(h.snippet) !== h.title && <span className="hit-snippet muted">{snippet(h.snippet)}</span>}
                      </button>
                    </li>
                  ))}
                </ul>
              </section>
            ))}
          </div>
        )}
      </div>
    </>
  );
}
