/**
 * "Go to": every view by name, from the keyboard (Alt+0), however many views there are — Alt+1…9 reach
 * only the first nine. Type to narrow the list, Enter opens the first, or pick one; Esc closes.
 */
import { useId, useState } from 'react';
import { VIEW_DEFS, type View } from '../store/views';
import { ALT } from '../ui/shortcuts';
import { Dialog } from '../ui/Dialog';

/** The views whose label starts a word with `text` (all of them for no text), in the sidebar's order. */
function goToMatches(text: string): { id: View; label: string; digit: number | null }[] {
  const t = text.trim().toLowerCase();
  return VIEW_DEFS.map((v, i) => ({ id: v.id as View, label: v.label, digit: i < 9 ? i + 1 : null })).filter(
    (v) => !t || v.label.toLowerCase().split(/\s+/).some((w) => w.startsWith(t)) || v.label.toLowerCase().startsWith(t),
  );
}

export function GoTo({ onGo, onClose }: { onGo: (view: View) => void; onClose: () => void }) {
  const [text, setText] = useState('');
  const titleId = useId();
  const matches = goToMatches(text);
  return (
    <Dialog labelledBy={titleId} onClose={onClose}>
      <h2 id={titleId} style={{ margin: '0 0 10px' }}>
        Go to
      </h2>
      <input
        className="input goto-input"
        aria-label="View name"
        placeholder="Type a view’s name…"
        value={text}
        maxLength={100}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Enter') return;
          e.preventDefault();
          const first = matches[0];
          if (first) onGo(first.id);
        }}
      />
      <ul className="goto-list" aria-label="Views">
        {matches.map((v) => (
          <li key={v.id}>
            <button type="button" className="btn ghost goto-item" onClick={() => onGo(v.id)}>
              <span className="grow">{v.label}</span>
              {v.digit !== null && <kbd aria-hidden="true">{`${ALT}+${v.digit}`}</kbd>}
            </button>
          </li>
        ))}
      </ul>
      {matches.length === 0 && <p className="muted">No view is called that.</p>}
    </Dialog>
  );
}
