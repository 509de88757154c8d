/**
 * The quick-capture window (route #/capture): one line. Enter adds it to the inbox at once — no model,
 * works offline; Ctrl/Cmd+Enter sends it to the agent instead; Esc closes the window. An approval the
 * agent asks for is answered here (a click, or Alt+A / Alt+D as in the main window).
 */
import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { waitingApproval } from '../chat';
import type { Problem } from '../../lib/problem';
import { MOD } from '../../ui/shortcuts';
import { useApp, useAppStore } from '../../store/react';
import { CaptureAnswer } from './CaptureAnswer';
import { QuickAddInput, QuickAddSummary, useQuickAdd, withProjectName } from '../tasks';
import { FieldError } from '../../ui/FieldError';

export function CaptureView({ close }: { close: () => void }) {
  const addTask = useApp((s) => s.addTask);
  const askFromCapture = useApp((s) => s.askFromCapture);
  const clearCapture = useApp((s) => s.clearCapture);
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const hintId = useId();
  const summaryId = useId();
  // Read with the quick-add grammar as it is typed; the main side reads the same text the same way when storing it.
  const parsed = useQuickAdd(text);

  const home = useCallback(() => inputRef.current, []);
  const store = useAppStore();

  // The desktop app keeps this window and shows it again on the shortcut: be ready to type each time.
  useEffect(() => {
    const ready = () => inputRef.current?.focus();
    window.addEventListener('focus', ready);
    return () => window.removeEventListener('focus', ready);
  }, []);

  // Alt+A / Alt+D answer the approval this window's run waits for: a chord, never a typed character.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!e.altKey || e.ctrlKey || e.metaKey || (e.code !== 'KeyA' && e.code !== 'KeyD')) return;
      const s = store.getState();
      const waiting = waitingApproval(s, s.captureRun ? s.runs[s.captureRun.runId] : null);
      if (!waiting) return;
      e.preventDefault();
      void s.answerApproval(waiting.runId, waiting.approval.approvalId, e.code === 'KeyA' ? 'approve' : 'decline');
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [store]);

  const submit = async (to: 'inbox' | 'agent', createProject = false) => {
    const value = text.trim();
    if (!value || busy) return;
    setBusy(true);
    if (to === 'inbox') clearCapture();
    // Asked of Tidy, the answer is shown here, under the box (CaptureAnswer), instead of closing the window.
    // Added, it goes the way of every box (the tasks slice's addTask), and its words say what stayed in the text.
    let p: Problem | null = null;
    let said = `Asked Tidy: ${value}`;
    if (to === 'agent') p = await askFromCapture(value);
    else {
      const r = await addTask('capture', value, createProject ? { createProject } : {});
      if (r.ok) said = r.words;
      else p = r.problem;
    }
    setBusy(false);
    setProblem(p);
    // The box keeps the focus (the desktop app hides the window; in a browser tab it stays), ready for the next.
    inputRef.current?.focus();
    if (p) return;
    setText('');
    setDone(said);
    if (to === 'inbox') close();
  };

  return (
    <main className="capture">
      <QuickAddInput
        ref={inputRef}
        aria-label="Quick capture"
        placeholder="Add to the inbox…"
        autoFocus
        value={text}
        parsed={parsed}
        summaryId={summaryId}
        readOnly={busy}
        aria-busy={busy}
        aria-invalid={problem ? true : undefined}
        aria-describedby={hintId}
        onValue={(value) => {
          setText(value);
          setDone(null);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault();
            close();
          } else if (e.key === 'Enter' && !e.nativeEvent.isComposing) {
            e.preventDefault();
            void submit(e.ctrlKey || e.metaKey ? 'agent' : 'inbox');
          }
        }}
      />
      <QuickAddSummary
        id={summaryId}
        parsed={parsed}
        onUseProject={(name) => {
          if (parsed.unknownProject) setText(withProjectName(text, parsed.unknownProject, name));
          inputRef.current?.focus();
        }}
        onCreateProject={() => void submit('inbox', true)}
      />
      {problem ? (
        <FieldError id={hintId} problem={problem} />
      ) : (
        <p id={hintId} className="muted" role="status">
          {done ?? `Enter adds to the inbox · ${MOD}+Enter asks Tidy · Esc closes`}
        </p>
      )}
      <CaptureAnswer close={close} home={home} />
    </main>
  );
}
