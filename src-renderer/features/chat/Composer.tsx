import { useEffect, useRef, useState } from 'react';
import { MOD } from '../../ui/shortcuts';
import { activeRun } from './slice';
import { useApp } from '../../store/react';
import { Icon } from '../../ui/Icon';

/**
 * The message box: Enter sends, Shift+Enter is a new line, Esc stops the running request. It keeps the
 * focus while a request goes out and runs: typing on is never lost (the store empties the box at once).
 */
export function Composer() {
  const draft = useApp((s) => s.draft);
  const setDraft = useApp((s) => s.setDraft);
  const sendDraft = useApp((s) => s.sendDraft);
  const stop = useApp((s) => s.stop);
  const running = useApp((s) => activeRun(s) !== null);
  const sending = useApp((s) => s.sending !== null);
  const ref = useRef<HTMLTextAreaElement>(null);

  // Grow with the text, up to the CSS max-height.
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    el.style.height = 'auto';
    el.style.height = `${el.scrollHeight + 2}px`;
  }, [draft]);

  const busy = running || sending;
  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault();
        // Sent with the button: the focus goes back to the box, ready for the next message.
        ref.current?.focus();
        if (!busy) void sendDraft();
      }}
    >
      <div className="composer-box">
        <textarea
          ref={ref}
          id="composer"
          data-pane-focus=""
          className="input"
          rows={1}
          aria-label="Message"
          aria-describedby="composer-help"
          placeholder={running ? 'Tidy is working… (Esc stops it)' : 'Ask Tidy to organise something'}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
              e.preventDefault();
              if (!busy) void sendDraft();
            } else if (e.key === 'Escape' && running) {
              e.preventDefault();
              void stop();
            }
          }}
        />
        <StopButton />
        <button type="submit" className="btn primary" disabled={busy || !draft.trim()}>
          Send
        </button>
      </div>
      <p id="composer-help" className="composer-help">
        Enter sends · Shift+Enter new line · Esc stops · {MOD}+K focuses this box · ? shows all shortcuts
      </p>
    </form>
  );
}

function StopButton() {
  const run = useApp(activeRun);
  const stop = useApp((s) => s.stop);
  const [stopping, setStopping] = useState<string | null>(null);
  if (!run) return null;
  return (
    <button type="button" className="btn danger" onClick={() => (setStopping(run.id), void stop(run.id))} disabled={stopping === run.id}>
      <Icon name="stop" size={14} />
      {stopping === run.id ? 'Stopping…' : 'Stop'}
    </button>
  );
}
