import type { ConnectionReport } from '../../../src-shared/providers';
import type { Problem } from '../../lib/problem';
import { useApp } from '../../store/react';

/**
 * The outcome of "Test and use": connected (naming the model, and for a local server its context window),
 * connected to a server that does not list the model or whose context window is too small for Tidy's prompt
 * (a warning, as `tidy config test` gives: the first message would fail or be cut), or what is wrong and what to do.
 */
export function Outcome({ report, problem }: { report: ConnectionReport | null; problem: Problem | null }) {
  if (problem) {
    return (
      <p className="firstrun-outcome bad" role="alert">
        {problem.message} — {problem.hint}
      </p>
    );
  }
  if (!report) return null;
  if (report.ok && report.modelListed === false) {
    return (
      <Warned report={report}>{`Connected, but the server does not list the model “${report.model}”: ${report.warning ?? 'pick one it lists'}.`}</Warned>
    );
  }
  // A local model whose context window cannot hold Tidy's prompt would cut every request: said before the first one.
  if (report.ok && report.context?.tooSmall) {
    return <Warned report={report}>{`Connected to “${report.model}”, but its ${report.context.note}.`}</Warned>;
  }
  const context = report.ok && report.context ? ` ${report.context.note.charAt(0).toUpperCase()}${report.context.note.slice(1)}.` : '';
  return (
    <p className={`firstrun-outcome ${report.ok ? 'ok' : 'bad'}`} role={report.ok ? 'status' : 'alert'}>
      {report.ok ? `Connected: ${report.message}. Tidy will use the model “${report.model}”.${context}` : `${report.message} — ${report.hint}`}
      {report.ok && report.warning ? ` ${report.warning}.` : ''}
    </p>
  );
}

/** A connection with a warning: what is wrong and what to do, and the choice to use the model anyway. */
function Warned({ report, children }: { report: ConnectionReport; children: string }) {
  const acceptSetup = useApp((s) => s.acceptSetup);
  return (
    <div className="firstrun-warned">
      <p className="firstrun-outcome bad" role="alert">
        {children}
      </p>
      <button type="button" className="btn" onClick={() => acceptSetup(report)}>
        Use it anyway
      </button>
    </div>
  );
}
