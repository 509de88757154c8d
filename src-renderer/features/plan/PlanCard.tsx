/**
 * A proposed plan as an editable card: the overload line, each block a row (task, start and end, Pin,
 * Drop, why it landed there, its dates in the locale) under a timeline that draws them, and the tasks that did not fit with their reasons. The rows are the
 * caller's state (model.ts), so the chat's approval card and Today's "Plan my day" send the same edits.
 */
import { useId } from 'react';
import type { ShownPlan } from '../../../src-shared/plan';
import type { PlanRow } from './model';
import { PlanTimeline } from './PlanTimeline';
import { FieldError } from '../../ui/FieldError';
import { readableDates } from '../../lib/when';

export function PlanCard({ plan, rows, onRows, disabled, problem }: { plan: ShownPlan; rows: PlanRow[]; onRows: (rows: PlanRow[]) => void; disabled: boolean; problem: string | null }) {
  const headId = useId();
  const errorId = useId();
  const set = (i: number, patch: Partial<PlanRow>) => onRows(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  return (
    <div className="plan-card" role="group" aria-labelledby={headId} aria-describedby={problem ? errorId : undefined}>
      <p id={headId} className={plan.summary.overloaded ? 'plan-summary overloaded' : 'plan-summary'}>
        {plan.summary.text}
      </p>
      <PlanTimeline rows={rows} />
      {rows.length === 0 ? (
        <p className="muted">No block to place.</p>
      ) : (
        <ul className="plan-blocks" aria-label="Planned blocks">
          {rows.map((r, i) => (
            <li key={`${r.task_id}-${r.origStart}`} className={`plan-block${r.dropped ? ' dropped' : ''}${r.pinned ? ' pinned' : ''}`} aria-label={r.task}>
              <div className="plan-block-head">
                <strong className="plan-task">{r.task}</strong>
                {r.late && <span className="badge overdue">late</span>}
                {r.dropped && <span className="muted"> (dropped)</span>}
              </div>
              <div className="plan-block-fields">
                <label>
                  <span>Start</span>
                  <input className="input" type="datetime-local" aria-label={`Start of ${r.task}`} value={r.start} disabled={disabled || r.dropped} onChange={(e) => set(i, { start: e.target.value })} />
                </label>
                <label>
                  <span>End</span>
                  <input className="input" type="datetime-local" aria-label={`End of ${r.task}`} value={r.end} disabled={disabled || r.dropped} onChange={(e) => set(i, { end: e.target.value })} />
                </label>
                <button type="button" className="btn" aria-pressed={r.pinned} aria-label={`Pin ${r.task}`} disabled={disabled || r.dropped} onClick={() => set(i, { pinned: !r.pinned })}>
                  {r.pinned ? 'Pinned' : 'Pin'}
                </button>
                <button type="button" className="btn" aria-pressed={r.dropped} aria-label={`Drop ${r.task}`} disabled={disabled} onClick={() => set(i, { dropped: !r.dropped })}>
                  {r.dropped ? 'Keep' : 'Drop'}
                </button>
              </div>
              <p className="muted plan-reason">{readableDates(r.reason)}</p>
            </li>
          ))}
        </ul>
      )}
      {plan.unplaced.length > 0 && (
        <section className="plan-unplaced" aria-label="Not placed">
          <h4>Not placed</h4>
          <ul>
            {plan.unplaced.map((u) => (
              <li key={u.task_id}>
                <strong>{u.task}</strong>: {readableDates(u.reason)}
              </li>
            ))}
          </ul>
        </section>
      )}
      <FieldError id={errorId} problem={problem} />
    </div>
  );
}
