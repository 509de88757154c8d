/**
 * The approval card of plan_tasks as the plan itself: the card proposes the same plan again through
 * `plans.propose` (nothing is written), shows it editable (PlanCard), and keeps the user's edits in the
 * store (`approvalEdits`, as the event form does) so that Approve sends them as the tool's `blocks`. An
 * untouched card sends nothing, and the tool plans as it proposed.
 */
import { useEffect, useState } from 'react';
import { api } from '../../api';
import type { ShownPlan } from '../../../src-shared/plan';
import { outcome } from '../../store/request';
import { useApp } from '../../store/react';
import { ArgList, ProblemAlert } from '../../ui/common';
import type { Problem } from '../../lib/problem';
import { planEdits, rowsFromPlan, type PlanRow } from './model';
import { PlanCard } from './PlanCard';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function PlanApprovalForm({ approvalKey, args, disabled }: { approvalKey: string; args: unknown; disabled: boolean }) {
  const original = (args && typeof args === 'object' && !Array.isArray(args) ? args : {}) as Record<string, unknown>;
  const [plan, setPlan] = useState<ShownPlan | null>(null);
  const [rows, setRows] = useState<PlanRow[]>([]);
  const [problem, setProblem] = useState<Problem | null>(null);
  const setApprovalEdit = useApp((s) => s.setApprovalEdit);

  useEffect(() => {
    let live = true;
    const from = str(original['from']);
    const to = str(original['to']);
    const ids = Array.isArray(original['task_ids']) ? original['task_ids'].filter((x): x is string => typeof x === 'string') : undefined;
    const filter = str(original['filter']);
    const planId = str(original['plan']);
    if (!from || !to) return;
    void outcome(() => api.invoke('plans.propose', { from, to, ...(ids ? { task_ids: ids } : {}), ...(filter !== undefined ? { filter } : {}), ...(planId ? { plan: planId } : {}) })).then((r) => {
      if (!live) return;
      if (r.ok) {
        setPlan(r.value);
        setRows(rowsFromPlan(r.value));
      } else setProblem(r.problem);
    });
    return () => {
      live = false;
    };
    // `original` is the approval's own arguments: they do not change while the card is shown.
  }, [approvalKey]);

  const edits = planEdits(rows);
  useEffect(() => {
    if (plan === null) return;
    if (edits.problem !== null) setApprovalEdit(approvalKey, { args: null, problem: edits.problem });
    else if (!edits.changed || edits.blocks === null) setApprovalEdit(approvalKey, null);
    else {
      const { blocks: _b, ...rest } = original;
      setApprovalEdit(approvalKey, { args: JSON.parse(JSON.stringify({ ...rest, blocks: edits.blocks })) as never, problem: null });
    }
    // Recomputed from the rows; `original` does not change while the card is shown.
  }, [rows, plan, approvalKey, setApprovalEdit]);

  if (problem) return <ProblemAlert problem={problem} title="Could not show the plan" />;
  if (plan === null) return <ArgList args={original} />;
  return (
    <>
      <PlanCard plan={plan} rows={rows} onRows={setRows} disabled={disabled} problem={edits.problem} />
      {edits.changed && edits.problem === null && <p className="muted event-form-note">Approve plans it with your changes; Tidy is told what you changed.</p>}
    </>
  );
}
