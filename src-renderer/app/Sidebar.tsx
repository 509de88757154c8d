import { INBOX_ID } from '../../src-shared/domain';
import { Icon } from './Icon';
import { VIEWS, VIEW_LABELS } from '../store/nav';
import { useApp } from '../store/react';

/** The main navigation: the six views, the inbox count, and what the agent is doing. */
export function Sidebar() {
  const view = useApp((s) => s.view);
  const show = useApp((s) => s.show);
  const inboxCount = useApp((s) => s.projects.value?.find((p) => p.id === INBOX_ID)?.openTasks ?? null);
  const running = useApp((s) => Object.values(s.runs).filter((r) => r.status === 'running').length);
  const toggleHelp = useApp((s) => s.toggleHelp);
  const toggleTrace = useApp((s) => s.toggleTrace);
  const traceOpen = useApp((s) => s.traceOpen);

  return (
    <nav className="sidebar" aria-label="Main">
      <div className="brand">
        <span className="brand-mark" aria-hidden="true" />
        <span className="nav-label">Tidy</span>
      </div>
      <ul>
        {VIEWS.map((v) => (
          <li key={v}>
            <button type="button" className="nav-item" aria-current={view === v ? 'page' : undefined} onClick={() => show(v)} title={VIEW_LABELS[v]}>
              <span className="nav-icon">
                <Icon name={v} />
              </span>
              <span className="nav-label">{VIEW_LABELS[v]}</span>
              {v === 'inbox' && inboxCount !== null && (
                <span className="count" aria-label={`${inboxCount} open`}>
                  {inboxCount}
                </span>
              )}
            </button>
          </li>
        ))}
      </ul>
      <div className="sidebar-foot">
        {running > 0 && (
          <p className="run-indicator" role="status">
            <span className="dot" aria-hidden="true" />
            <span className="nav-label">Tidy is working…</span>
          </p>
        )}
        <button type="button" className="nav-item" aria-pressed={traceOpen} onClick={() => toggleTrace()}>
          <span className="nav-icon">
            <Icon name="trace" />
          </span>
          <span className="nav-label">Trace panel</span>
        </button>
        <button type="button" className="nav-item" onClick={() => toggleHelp(true)}>
          <span className="nav-icon">
            <Icon name="help" />
          </span>
          <span className="nav-label">Keyboard shortcuts</span>
        </button>
      </div>
    </nav>
  );
}
