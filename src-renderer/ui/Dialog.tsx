import { useEffect, useRef, type ReactNode } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

/**
 * A modal dialog. While it is open the page behind is inert (App renders the shell with `inert`), Tab
 * stays inside, and Esc, the backdrop or a button closes it; however it closes, the focus goes back to
 * the control that opened it.
 */
export function Dialog({ labelledBy, onClose, children }: { labelledBy: string; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
    ref.current?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    const node = ref.current;
    // Once the dialog is gone and the page behind no longer inert (the same commit), back to the opener.
    return () => void setTimeout(() => !node?.isConnected && opener?.isConnected && opener.focus(), 0);
  }, []);
  return (
    <div
      className="overlay"
      onMouseDown={(e) => {
        if (e.target !== e.currentTarget) return;
        // Not the browser's default (focus to the page body): close, and the focus goes back to the opener.
        e.preventDefault();
        onClose();
      }}
    >
      <div
        ref={ref}
        className="dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={labelledBy}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            e.stopPropagation();
            onClose();
          } else if (e.key === 'Tab') {
            const all = [...(ref.current?.querySelectorAll<HTMLElement>(FOCUSABLE) ?? [])];
            const first = all[0];
            const last = all[all.length - 1];
            if (!first || !last) return e.preventDefault();
            if (e.shiftKey && document.activeElement === first) {
              e.preventDefault();
              last.focus();
            } else if (!e.shiftKey && document.activeElement === last) {
              e.preventDefault();
              first.focus();
            }
          }
        }}
      >
        {children}
      </div>
    </div>
  );
}
