import { useApp } from '../store/react';
import { Dialog } from './Dialog';
import { SHORTCUTS } from './shortcuts';

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
      <dl className="keys">
        {SHORTCUTS.map((s) => (
          <div key={s.what} style={{ display: 'contents' }}>
            <dt>
              {s.keys.map((k, i) => (
                <span key={k}>
                  {i > 0 && ' + '}
                  <kbd>{k}</kbd>
                </span>
              ))}
            </dt>
            <dd>{s.what}</dd>
          </div>
        ))}
      </dl>
    </Dialog>
  );
}
