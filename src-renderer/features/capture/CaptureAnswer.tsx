/**
 * Under the quick-capture box, after Ctrl+Enter: Tidy's answer as it streams, the approvals the run asks
 * for (answered here as in the chat: ApprovalCard.tsx), the changes it made (each with Undo or Redo, and
 * Undo all), and "Open in Tidy", which shows the conversation in the main window.
 */
import { useEffect } from 'react';
import { waitingApprovals } from '../../lib/runs';
import { canRedo, canUndo, Undoable } from '../actions';
import { useApp } from '../../store/react';
import { ApprovalCard } from '../chat';
import { Markdown } from '../../ui/Markdown';
import { useNames } from '../chat';
import '../../styles/firstrun.css';
import { FieldError } from '../../ui/FieldError';

export function CaptureAnswer({ close, home }: { close: () => void; home: () => HTMLElement | null }) {
  const captured = useApp((s) => s.captureRun);
  const run = useApp((s) => (s.captureRun ? s.runs[s.captureRun.runId] : undefined));
  const changes = useApp((s) => s.captureChanges);
  const loadChanges = useApp((s) => s.loadCaptureChanges);
  const openInTidy = useApp((s) => s.openInTidy);

  const names = useNames(run);
  const status = run?.status ?? 'running';
  const actions = run?.actions ?? 0;
  // The list follows the run: each change it logs, and its end.
  useEffect(() => {
    if (captured) void loadChanges();
  }, [captured, actions, status, loadChanges]);

  if (!captured) return null;
  const running = status === 'running';
  const text = run?.answer ?? (running ? (run?.streamed ?? '') : '');
  const entries = changes.value ?? [];
  const live = entries.filter(canUndo);
  // Undo and Redo here are the Actions log's (features/actions' Undoable): a refusal shows under its row.
  const reload = () => void loadChanges();

  return (
    <section className="capture-answer" aria-label="Tidy's answer" aria-busy={running}>
      {running && !text && <p role="status">{run && waitingApprovals(run).length > 0 ? 'Tidy waits for your answer.' : 'Tidy is working…'}</p>}
      {run?.approvals.map((a) => <ApprovalCard key={a.approvalId} runId={run.id} approval={a} live={running} names={names} home={home} />)}
      {text && <Markdown source={text} streaming={running} />}
      {!running && status !== 'done' && <FieldError problem={run?.message} />}
      {entries.length > 0 && (
        <ul className="capture-changes" aria-label="Changes">
          {entries.map((a) => (
            <li key={a.id} className={a.undoneAt ? 'undone' : undefined}>
              <Undoable
                target={{ kind: 'action', id: a.id }}
                focusId={`capture-action:${a.id}`}
                rowClassName="capture-change"
                canUndo={canUndo(a)}
                canRedo={canRedo(a)}
                undoName={`Undo: ${a.summary}`}
                redoName={`Redo: ${a.summary}`}
                onDone={reload}
              >
                <span>{a.summary}</span>
              </Undoable>
            </li>
          ))}
        </ul>
      )}
      <Undoable
        target={{ kind: 'request', id: captured.runId }}
        focusId={`capture-request:${captured.runId}`}
        rowClassName="row"
        canUndo={live.length > 1 && !running}
        canRedo={false}
        undoName="Undo all"
        redoName="Redo all"
        undoText="Undo all"
        onDone={reload}
      >
        <button
          type="button"
          className="btn small"
          onClick={() =>
            void openInTidy().then((p) => {
              if (!p) close();
            })
          }
        >
          Open in Tidy
        </button>
      </Undoable>
    </section>
  );
}
