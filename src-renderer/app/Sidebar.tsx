import { INBOX_ID } from '../../src-shared/domain';
import { Icon } from '../ui/Icon';
import { traceVisible } from '../store/nav';
import { useApp } from '../store/react';
import { VIEW_DEFS } from '../store/views';
import { SavedFilters } from '../features/tasks';
import { SyncStatusLine } from '../features/sync';

/** The main navigation: the views (store/views.ts), the inbox count, and what the agent is doing. */
export function Sidebar() {
  const view = useApp((s) => s.view);
  const show = useApp((s) => s.show);
  const inboxCount = useApp((s) => s.projects.value?.find((p) => p.id === INBOX_ID)?.openTasks ?? null);
  const counts = useApp((s) => s.counts);
  /** The number beside a view's name, what it counts, and whether some of it is overdue. */
  const countOf = (id: string): { value: number; of: string; overdue?: boolean } | null => {
    if (id === 'inbox' && inboxCount !== null) return { value: inboxCount, of: 'open' };
    if (id === 'today' && counts) return { value: counts.today, of: counts.overdue > 0 ? `due, ${counts.overdue} overdue` : 'due', overdue: counts.overdue > 0 };
    if (id === 'upcoming' && counts) return { value: counts.upcoming, of: 'due in the next 7 days' };
    return null;
  };
  const running = useApp((s) => Object.values(s.runs).filter((r) => r.status === 'running').length);
  const toggleHelp = useApp((s) => s.toggleHelp);
  const toggleTrace = useApp((s) => s.toggleTraceHere);
  const traceOpen = useApp(traceVisible);

  return (
    <nav className="sidebar" aria-label="Main" data-pane="sidebar">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="nav-label">Tidy</span>
      </div>
      <ul>
        {VIEW_DEFS.map((v) => (
          <li key={v.id}>
            <button type="button" className="nav-item" aria-current={view === v.id ? 'page' : undefined} onClick={() => show(v.id)} title={v.label}>
              <span className="nav-icon">
                <Icon path={v.icon} />
              </span>
              <span className="nav-label">{v.label}</span>
              {(() => {
                const c = countOf(v.id);
                return (
                  c && (
                    <span className={c.overdue ? 'count overdue' : 'count'}>
                      {c.value}
                      <span className="visually-hidden"> {c.of}</span>
                    </span>
                  )
                );
              })()}
            </button>
          </li>
        ))}
      </ul>
      <SavedFilters />
      <div className="sidebar-foot">
        <SyncStatusLine
          open={() => {
            show('settings');
            // once Settings has drawn its sections
            requestAnimationFrame(() => document.getElementById('set-sync')?.scrollIntoView({ block: 'start' }));
          }}
        />
        {running > 0 && (
          <p className="run-indicator" role="status">
            <span className="dot" aria-hidden="true" />
            <span className="nav-label">Tidy is working…</span>
          </p>
        )}
        <button type="button" className="nav-item" aria-pressed={traceOpen} onClick={() => toggleTrace()} title="Trace panel">
          <span className="nav-icon">
            <Icon name="trace" />
          </span>
          <span className="nav-label">Trace panel</span>
        </button>
        <button type="button" className="nav-item" onClick={() => toggleHelp(true)} title="Keyboard shortcuts">
          <span className="nav-icon">
            <Icon name="help" />
          </span>
          <span className="nav-label">Keyboard shortcuts</span>
        </button>
      </div>
    </nav>
  );
}
