import { useEffect, useId, useRef } from 'react';
import type { ApprovalDecision } from '../../../src-shared/events';
import { ALT } from '../../ui/shortcuts';
import { composer, focusIfIdle, focusIsLost } from '../../lib/focus';
import { toolLabel } from '../../lib/format';
import { changedFields, type Approval } from '../../lib/runs';
import { approvalKey } from './slice';
import { useApp } from '../../store/react';
import type { Names } from '../../lib/words';
import { EventApprovalForm } from '../calendar';
import { PlanApprovalForm } from '../plan';
import { ArgList } from '../../ui/common';
import { readableDates } from '../../lib/when';

const DECIDED: Record<ApprovalDecision, string> = { approve: 'Approved', decline: 'Declined', always: 'Approved, and always allowed from now on' };

/**
 * A run waits for the user: the question, the tool and its arguments in words, and three answers.
 * Answered only on purpose: the card never takes the focus from where the user is typing (src-renderer/lib/focus.ts);
 * it is announced instead, and answered by a click, by Tab to a button, or by Alt+A / Alt+D. An event to
 * book or move shows as a form (calendar/EventApprovalForm.tsx), a plan as the editable plan card
 * (plan/PlanApprovalForm.tsx); Approve sends their edits.
 */
export function ApprovalCard({
  runId,
  approval,
  live,
  names,
  home = composer,
}: {
  runId: string;
  approval: Approval;
  live: boolean;
  names: Names;
  /** Where the focus goes once the card is answered: the chat's message box, or the quick-capture box. */
  home?: () => HTMLElement | null;
}) {
  const answer = useApp((s) => s.answerApproval);
  const sent = useApp((s) => s.approvalsSent[approvalKey(runId, approval.approvalId)] ?? null);
  /** The event form's edits cannot be sent yet (its message says why): approving waits for a fix. */
  const editBlocked = useApp((s) => (s.approvalEdits[approvalKey(runId, approval.approvalId)]?.problem ?? null) !== null);
  const cardRef = useRef<HTMLDivElement>(null);
  const titleId = useId();
  const keysId = useId();
  const waiting = live && approval.decision === null;

  useEffect(() => {
    // Only when the focus is on nothing, and then on the card itself: no key can answer it by accident.
    if (waiting) focusIfIdle(cardRef.current);
  }, [waiting]);

  const wasWaiting = useRef(waiting);
  useEffect(() => {
    if (wasWaiting.current && !waiting) {
      const card = cardRef.current;
      // Answered (here, by shortcut, or elsewhere): from the card, the focus goes on to the message box.
      if (focusIsLost() || (card && card.contains(document.activeElement))) home()?.focus();
    }
    wasWaiting.current = waiting;
  }, [waiting, home]);

  const decide = (d: ApprovalDecision) => void answer(runId, approval.approvalId, d);

  return (
    <div ref={cardRef} className={`approval${waiting ? '' : ' resolved'}`} role="group" aria-labelledby={titleId} tabIndex={-1}>
      <h3 id={titleId}>
        {waiting ? 'Approval needed' : 'Approval'}: {toolLabel(approval.tool)}
      </h3>
      {/* Answered with edits: what was done (the values the call ran with), not what the model proposed. */}
      {/* Tidy's dates and times in the locale; a plan's card below shows its blocks and summary, so the question is its first line then. */}
      <p className={approval.form === 'plan' ? 'approval-plan' : undefined}>
        {readableDates(waiting ? (approval.form === 'plan' ? approval.message.split('\n')[0]! : approval.message) : (approval.usedMessage ?? approval.message))}
      </p>
      {waiting && approval.form === 'event' ? (
        <EventApprovalForm approvalKey={approvalKey(runId, approval.approvalId)} tool={approval.tool} args={approval.args} disabled={sent !== null} />
      ) : waiting && approval.form === 'plan' ? (
        <PlanApprovalForm approvalKey={approvalKey(runId, approval.approvalId)} args={approval.args} disabled={sent !== null} />
      ) : (
        <ArgList args={waiting ? approval.args : (approval.usedArgs ?? approval.args)} names={names} />
      )}
      {waiting ? (
        <>
          <div className="row wrap">
            <button type="button" className="btn primary" disabled={sent !== null || editBlocked} aria-keyshortcuts="Alt+A" aria-describedby={keysId} onClick={() => decide('approve')}>
              Approve
            </button>
            <button type="button" className="btn" disabled={sent !== null} aria-keyshortcuts="Alt+D" aria-describedby={keysId} onClick={() => decide('decline')}>
              Decline
            </button>
            <button type="button" className="btn" disabled={sent !== null || editBlocked} onClick={() => decide('always')} aria-label={`Always allow ${toolLabel(approval.tool)}`}>
              Always allow
            </button>
          </div>
          <p id={keysId} className="keys-hint">
            <kbd>{ALT}+A</kbd> approves · <kbd>{ALT}+D</kbd> declines
          </p>
        </>
      ) : (
        <p className="muted" role="status">
          {approval.decision ? DECIDED[approval.decision] : 'Not answered: the request ended first'}
          {approval.edits ? ` with your changes to ${changedFields(approval.args, approval.usedArgs)}` : ''}
        </p>
      )}
    </div>
  );
}
