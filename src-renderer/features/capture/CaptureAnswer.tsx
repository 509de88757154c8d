/**
 * Under the quick-capture box, after Ctrl+Enter: Tidy's answer as it streams, the approvals the run asks
 * for (answered here as in the chat: ApprovalCard.tsx), the changes it made (each with Undo or Redo, and
 * Undo all), and "Open in Tidy", which shows the conversation in the main window.
 */
import { useEffect } from 'react';
import { waitingApprovals } from '../../lib/runs';
import { actionKey, requestKey } from '../actions';
import { useApp } from '../../store/react';
import { ApprovalCard } from '../chat';
import { Markdown } from '../../ui/Markdown';
import { useNames } from '../chat';
import '../../styles/firstrun.css';

export function CaptureAnswer({ close, home }: { close: () => void; home: () => HTMLElement | null }) {
  const captured = useApp((s) => s.captureRun);
  const run = useApp((s) => (s.captureRun ? s.runs[s.captureRun.runId] : undefined));
  const changes = useApp((s) => s.captureChanges);
  const loadChanges = useApp((s) => s.loadCaptureChanges);
  const openInTidy = useApp((s) => s.openInTidy);
  const undoAction = useApp((s) => s.undoAction);
  const redoAction = useApp((s) => s.redoAction);
  const undoRequest = useApp((s) => s.undoRequest);
  const undoProblems = useApp((s) => s.undoProblems);
  const pending = useApp((s) => s.undoPending);

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
  const live = entries.filter((a) => a.undoneAt === null);
  const problems = [requestKey(captured.runId), ...entries.map((a) => actionKey(a.id))].flatMap((k) => (undoProblems[k] ? [undoProblems[k]] : []));
  const after = (done: Promise<boolean>) => void done.then(() => loadChanges());

  return (
    <section className="capture-answer" aria-label="Tidy's answer" aria-busy={running}>
      {running && !text && <p role="status">{run && waitingApprovals(run).length > 0 ? 'Tidy waits for your answer.' : 'Tidy is working…'}</p>}
      {run?.approvals.map((a) => <ApprovalCard key={a.approvalId} runId={run.id} approval={a} live={running} names={names} home={home} />)}
      {text && <Markdown source={text} streaming={running} />}
      {!running && run?.message && status !== 'done' && (
        <p className="field-error" role="alert">
          {run.message}
        </p>
      )}
      {entries.length > 0 && (
        <>
          <ul className="capture-changes" aria-label="Changes">
            {entries.map((a) => (
              <li key={a.id} className={a.undoneAt ? 'undone' : undefined}>
                <span>{a.summary}</span>
                {a.undoneAt ? (
                  <button type="button" className="btn small" disabled={pending[actionKey(a.id)]} aria-label={`Redo: ${a.summary}`} onClick={() => after(redoAction(a.id))}>
                    Redo
                  </button>
                ) : (
                  <button type="button" className="btn small" disabled={pending[actionKey(a.id)]} aria-label={`Undo: ${a.summary}`} onClick={() => after(undoAction(a.id))}>
                    Undo
                  </button>
                )}
              </li>
            ))}
          </ul>
        </>
      )}
      {problems.map((p, i) => (
        <p key={i} className="field-error" role="alert">
          {p.message} — {p.hint}
        </p>
      ))}
      <div className="row">
        {live.length > 1 && !running && (
          <button type="button" className="btn small" disabled={pending[requestKey(captured.runId)]} onClick={() => after(undoRequest(captured.runId))}>
            Undo all
          </button>
        )}
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
      </div>
    </section>
  );
}
