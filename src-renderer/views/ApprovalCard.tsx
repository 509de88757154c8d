import { useEffect, useId, useRef, useState } from 'react';
import type { ApprovalDecision } from '../../src-shared/events';
import { toolLabel } from '../lib/format';
import type { Approval } from '../lib/runs';
import { useApp } from '../store/react';
import { ArgList } from './common';

const DECIDED: Record<ApprovalDecision, string> = { approve: 'Approved', decline: 'Declined', always: 'Approved, and always allowed from now on' };

/**
 * A run waits for the user: the question, the tool and its arguments in words, and three answers. The
 * Approve button takes the focus when the card appears, so Enter approves and Tab reaches the others.
 */
export function ApprovalCard({ runId, approval, live }: { runId: string; approval: Approval; live: boolean }) {
  const answer = useApp((s) => s.answerApproval);
  const [sent, setSent] = useState<ApprovalDecision | null>(null);
  const approveRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const waiting = live && approval.decision === null;

  useEffect(() => {
    if (waiting) approveRef.current?.focus({ preventScroll: false });
  }, [waiting]);

  const decide = (d: ApprovalDecision) => {
    setSent(d);
    void answer(runId, approval.approvalId, d);
  };

  return (
    <div className={`approval${waiting ? '' : ' resolved'}`} role="group" aria-labelledby={titleId}>
      <h3 id={titleId}>{waiting ? 'Approval needed' : 'Approval'}: {toolLabel(approval.tool)}</h3>
      <p>{approval.message}</p>
      <ArgList args={approval.args} />
      {waiting ? (
        <div className="row">
          <button ref={approveRef} type="button" className="btn primary" disabled={sent !== null} onClick={() => decide('approve')}>
            Approve
          </button>
          <button type="button" className="btn" disabled={sent !== null} onClick={() => decide('decline')}>
            Decline
          </button>
          <button type="button" className="btn" disabled={sent !== null} onClick={() => decide('always')} aria-label={`Always allow ${toolLabel(approval.tool)}`}>
            Always allow
          </button>
        </div>
      ) : (
        <p className="muted" role="status">
          {approval.decision ? DECIDED[approval.decision] : 'Not answered: the request ended first'}
        </p>
      )}
    </div>
  );
}
