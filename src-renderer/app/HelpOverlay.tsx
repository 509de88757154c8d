import { useEffect, useRef } from 'react';
import { useApp } from '../store/react';
import { SHORTCUTS } from './shortcuts';

/** The keyboard shortcuts, as a modal dialog (Esc or the button closes it). */
export function HelpOverlay() {
  const open = useApp((s) => s.helpOpen);
  const toggleHelp = useApp((s) => s.toggleHelp);
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (!open) return;
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    closeRef.current?.focus();
    return () => previous?.focus();
  }, [open]);
  if (!open) return null;
  return (
    <div className="overlay" onMouseDown={(e) => e.target === e.currentTarget && toggleHelp(false)}>
      <div
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="help-title"
        onKeyDown={(e) => {
          // Keep Tab inside the dialog while it is open (its only control is Close).
          if (e.key === 'Tab') {
            e.preventDefault();
            closeRef.current?.focus();
          }
        }}
      >
        <div className="row" style={{ marginBottom: 10 }}>
          <h2 id="help-title" className="grow" style={{ margin: 0 }}>
            Keyboard shortcuts
          </h2>
          <button ref={closeRef} type="button" className="btn small" onClick={() => toggleHelp(false)}>
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
      </div>
    </div>
  );
}
