import { useEffect } from 'react';
import { useApp } from '../store/react';

const SHOWN_MS = 6000;

/**
 * Short notices at the bottom (e.g. what an undo did); errors stay until dismissed. The one polite status region
 * of the window: notices and announcements (screen-reader only) are read out from here.
 */
export function Notices() {
  const notices = useApp((s) => s.notices);
  const dismiss = useApp((s) => s.dismissNotice);
  useEffect(() => {
    // A notice with a button (Undo) stays a little longer, to be reached.
    const timers = notices.filter((n) => n.tone !== 'error').map((n) => setTimeout(() => dismiss(n.id), n.action ? SHOWN_MS * 2 : SHOWN_MS));
    return () => timers.forEach(clearTimeout);
  }, [notices, dismiss]);
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((n) =>
        n.tone === 'announce' ? (
          <p key={n.id} className="visually-hidden">
            {n.text}
          </p>
        ) : (
        <div key={n.id} className={`notice ${n.tone}`} {...(n.code ? { 'data-code': n.code } : {})}>
          <span className="grow">{n.text}</span>
          {n.action && (
            <button
              type="button"
              className="btn small"
              onClick={() => {
                dismiss(n.id);
                void n.action!.run();
              }}
            >
              {n.action.label}
            </button>
          )}
          <button type="button" className="btn small" onClick={() => dismiss(n.id)}>
            Dismiss
          </button>
        </div>
        ),
      )}
    </div>
  );
}
