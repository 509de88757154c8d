import { useApp } from '../store/react';
import { Dialog } from '../ui/Dialog';
import { CALENDAR_KEYS, keyLabels, TASK_EDITOR_KEYS, TASK_LIST_ALT_KEYS, TASK_LIST_KEYS } from '../ui/keymaps';
import { SHORTCUTS, type Shortcut } from '../ui/shortcuts';
import '../styles/tasks-polish.css';

/** A view's keys as help rows: each key (or key with Alt) that does the same thing, one row. */
const rows = (table: Parameters<typeof keyLabels>[0][], modifier?: 'alt'): { keys: string[][]; what: string }[] =>
  table.map((b) => ({ keys: keyLabels(b, modifier), what: b.what }));

/** The sections of the help: anywhere, then each view's own keys (the same tables their handlers read). */
export const HELP_SECTIONS: { title: string; rows: { keys: string[][]; what: string }[] }[] = [
  { title: 'Anywhere', rows: SHORTCUTS.map((s: Shortcut) => ({ keys: [s.keys], what: s.what })) },
  { title: 'In a task list', rows: [...rows([...TASK_LIST_KEYS]), ...rows([...TASK_LIST_ALT_KEYS], 'alt')] },
  { title: 'In the task editor', rows: rows([...TASK_EDITOR_KEYS]) },
  { title: 'In the calendar', rows: rows([...CALENDAR_KEYS]) },
];

/** The keyboard shortcuts, as a modal dialog. */
export function HelpOverlay() {
  const open = useApp((s) => s.helpOpen);
  const toggleHelp = useApp((s) => s.toggleHelp);
  if (!open) return null;
  return (
    <Dialog labelledBy="help-title" onClose={() => toggleHelp(false)}>
      <div className="row" style={{ marginBottom: 10 }}>
        <h2 id="help-title" className="grow" style={{ margin: 0 }}>
          Keyboard shortcuts
        </h2>
        <button type="button" className="btn small" onClick={() => toggleHelp(false)}>
          Close
        </button>
      </div>
      {HELP_SECTIONS.map((section) => (
        <section key={section.title} aria-labelledby={`help-${section.title.replace(/\W+/g, '-')}`}>
          <h3 id={`help-${section.title.replace(/\W+/g, '-')}`} className="help-section">
            {section.title}
          </h3>
          <dl className="keys">
            {section.rows.map((r) => (
              <div key={r.what} style={{ display: 'contents' }}>
                <dt>
                  {r.keys.map((combo, j) => (
                    <span key={combo.join('+')}>
                      {j > 0 && ', '}
                      {combo.map((k, i) => (
                        <span key={k}>
                          {i > 0 && ' + '}
                          <kbd>{k}</kbd>
                        </span>
                      ))}
                    </span>
                  ))}
                </dt>
                <dd>{r.what}</dd>
              </div>
            ))}
          </dl>
        </section>
      ))}
    </Dialog>
  );
}
