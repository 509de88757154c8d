import { useCallback, useEffect, useRef } from 'react';
import { readableDates } from '../lib/when';
import { noticeLifetime, type Notice } from '../store/nav';
import { useApp } from '../store/react';

/**
 * Short notices at the bottom (what an undo did, where a task went). A plain notice goes by itself after a
 * while, counted from its own arrival (a newer one does not restart it), and stays while the pointer or
 * the focus is on the notices; one with a button (Undo, Open) and an error stay until dismissed, until the
 * view changes, or until newer ones push them out (store/nav.ts keeps the newest few). The one polite
 * status region of the window: notices and announcements (screen-reader only) are read out from here.
 */
export function Notices() {
  const notices = useApp((s) => s.notices);
  const dismiss = useApp((s) => s.dismissNotice);
  const region = useRef<HTMLDivElement>(null);
  // Held while the pointer is on the notices or the focus is in them: read at the moment a notice's time is up.
  const held = useCallback(() => {
    const el = region.current;
    return !!el && (el.matches(':hover') || el.contains(document.activeElement));
  }, []);
  return (
    <div className="notices" role="status" aria-live="polite" ref={region}>
      {notices.map((n) =>
        n.tone === 'announce' ? <Announcement key={n.id} notice={n} dismiss={dismiss} /> : <NoticeItem key={n.id} notice={n} held={held} dismiss={dismiss} />,
      )}
    </div>
  );
}

/** Goes once said (after its time), so announcements do not pile up in the region. */
function Announcement({ notice, dismiss }: { notice: Notice; dismiss: (id: number) => void }) {
  useLifetime(notice, notHeld, dismiss);
  return <p className="visually-hidden">{readableDates(notice.text)}</p>;
}

function NoticeItem({ notice: n, held, dismiss }: { notice: Notice; held: () => boolean; dismiss: (id: number) => void }) {
  useLifetime(n, held, dismiss);
  return (
    <div className={`notice ${n.tone}`} {...(n.code ? { 'data-code': n.code } : {})}>
      <span className="grow">{readableDates(n.text)}</span>
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
      <button type="button" className="btn small" aria-label={`Dismiss: ${n.text}`} onClick={() => dismiss(n.id)}>
        Dismiss
      </button>
    </div>
  );
}

const notHeld = () => false;
/** Once held, how soon to look again. */
const RECHECK_MS = 1000;

/** Dismisses `notice` when its time is up (noticeLifetime), counted from its arrival; while held, a little later. */
function useLifetime(notice: Notice, held: () => boolean, dismiss: (id: number) => void) {
  const life = noticeLifetime(notice);
  useEffect(() => {
    if (life === null) return;
    let timer: ReturnType<typeof setTimeout>;
    const due = () => {
      if (held()) timer = setTimeout(due, RECHECK_MS);
      else dismiss(notice.id);
    };
    timer = setTimeout(due, life);
    return () => clearTimeout(timer);
  }, [life, held, notice.id, dismiss]);
}
