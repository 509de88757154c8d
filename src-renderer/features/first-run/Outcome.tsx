import type { ConnectionReport } from '../../../src-shared/providers';
import type { Problem } from '../../lib/problem';

/**
 * The outcome of "Test and use": connected (naming the model), connected to a server that does not list the
 * model (a warning, as `tidy config test` gives: the first message would fail), or what is wrong and what to do.
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
      <p className="firstrun-outcome bad" role="alert">
        {`Connected, but the server does not list the model “${report.model}”: ${report.warning ?? 'pick one it lists'}.`}
      </p>
    );
  }
  return (
    <p className={`firstrun-outcome ${report.ok ? 'ok' : 'bad'}`} role={report.ok ? 'status' : 'alert'}>
      {report.ok ? `Connected: ${report.message}. Tidy will use the model “${report.model}”.` : `${report.message} — ${report.hint}`}
      {report.ok && report.warning ? ` ${report.warning}.` : ''}
    </p>
  );
}
