/**
 * Today's "Plan my day" (and "Plan tomorrow"): proposes a plan of the day through `plans.propose`
 * (the rest of today from now, or tomorrow), shows it as the editable plan card, and on Approve applies
 * the blocks as the user left them (`plans.apply`), one undoable request with Undo on its notice.
 * Blocks missed while their task stayed open (`plans.missed`) are offered here for re-planning — the
 * same card, for those tasks, from now to the end of tomorrow — and never moved without asking.
 */
import { useCallback, useEffect, useState } from 'react';
import { api } from '../../api';
import type { ShownPlan } from '../../../src-shared/plan';
import type { Output } from '../../../src-shared/ipc';
import { outcome } from '../../store/request';
import { useApp } from '../../store/react';
import { ProblemAlert } from '../../ui/common';
import type { Problem } from '../../lib/problem';
import { daySpan, missedLine, planEdits, replanSpan, rowsFromPlan, type PlanRow } from './model';
import { PlanCard } from './PlanCard';

export function PlanMyDay() {
  const [plan, setPlan] = useState<ShownPlan | null>(null);
  const [rows, setRows] = useState<PlanRow[]>([]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const notifyUndoable = useApp((s) => s.notifyUndoable);
  const notify = useApp((s) => s.notify);
  const [missed, setMissed] = useState<Output<'plans.missed'>>([]);

  const loadMissed = useCallback(async () => {
    const r = await outcome(() => api.invoke('plans.missed', {}));
    // Only an offer: when it cannot be read, Today shows nothing rather than an error.
    setMissed(r.ok ? r.value : []);
  }, []);
  useEffect(() => {
    void loadMissed();
    const off = api.on('data.changed', ({ topics }) => {
      if (topics.includes('events') || topics.includes('tasks')) void loadMissed();
    });
    return off;
  }, [loadMissed]);

  const propose = async (which: 'today' | 'tomorrow' | 'missed') => {
    setBusy(true);
    setProblem(null);
    const span = which === 'missed' ? { ...replanSpan(Date.now()), task_ids: missedLine(missed).taskIds.slice(0, 500) } : daySpan(which, Date.now());
    const r = await outcome(() => api.invoke('plans.propose', span));
    setBusy(false);
    if (r.ok) {
      setPlan(r.value);
      setRows(rowsFromPlan(r.value));
    } else setProblem(r.problem);
  };
  const edits = planEdits(rows);
  const approve = async () => {
    if (edits.blocks === null) return;
    if (edits.blocks.length === 0) {
      // Every block dropped (or none proposed): nothing is written.
      setPlan(null);
      setRows([]);
      return notify('Planned nothing: no block was left on the card');
    }
    setBusy(true);
    const r = await outcome(() => api.invoke('plans.apply', { blocks: edits.blocks!, ...(plan?.plan ? { plan: plan.plan } : {}) }));
    setBusy(false);
    if (!r.ok) return setProblem(r.problem);
    setPlan(null);
    setRows([]);
    const n = edits.blocks.length;
    notifyUndoable(`Planned ${n} block${n === 1 ? '' : 's'} in the calendar`, r.value.actionId);
  };

  return (
    <section className="plan-day" aria-label="Plan my day">
      {plan === null && missed.length > 0 && (
        <p className="plan-missed" role="group" aria-label="Missed blocks">
          <span>{missedLine(missed).text}</span>
          {' · '}
          <button type="button" className="btn small" disabled={busy} onClick={() => void propose('missed')}>
            Re-plan
          </button>
        </p>
      )}
      {plan === null ? (
        <div className="row wrap">
          <button type="button" className="btn" disabled={busy} onClick={() => void propose('today')}>
            Plan my day
          </button>
          <button type="button" className="btn" disabled={busy} onClick={() => void propose('tomorrow')}>
            Plan tomorrow
          </button>
        </div>
      ) : (
        <div className="approval plan-proposal" role="group" aria-label="Proposed plan">
          <h3>Proposed plan</h3>
          <PlanCard plan={plan} rows={rows} onRows={setRows} disabled={busy} problem={edits.problem} />
          <div className="row wrap">
            <button type="button" className="btn primary" disabled={busy || edits.blocks === null} onClick={() => void approve()}>
              Approve plan
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => setPlan(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {problem && <ProblemAlert problem={problem} title="Could not plan" />}
    </section>
  );
}
