/**
 * The event on an approval card as a form: booking (book_event) shows title, start, end and attendees;
 * moving (move_event) start and end. What the user changes is kept in the store (features/calendar/slice.ts,
 * `approvalEdits`) so that Approve — the button or Alt+A — sends the edited arguments, and is held back
 * with the reason while they are not valid. There is no <form>: Enter in a field never answers the card.
 */
import { useEffect, useId, useState } from 'react';
import { useApp } from '../../store/react';
import { ArgList } from '../../ui/common';
import { editedArgs, fieldsFromArgs, type EventFields } from './approval';
import { FieldError } from '../../ui/FieldError';

export function EventApprovalForm({ approvalKey, tool, args, disabled }: { approvalKey: string; tool: string; args: unknown; disabled: boolean }) {
  const original = (args && typeof args === 'object' && !Array.isArray(args) ? args : {}) as Record<string, unknown>;
  const [fields, setFields] = useState<EventFields>(() => fieldsFromArgs(original));
  const setApprovalEdit = useApp((s) => s.setApprovalEdit);
  const edit = useApp((s) => s.approvalEdits[approvalKey]);
  const errorId = useId();
  const booking = tool === 'book_event';

  useEffect(() => {
    const next = editedArgs(tool, original, fields);
    setApprovalEdit(approvalKey, next.args === null && next.problem === null ? null : next);
    // `original` is the approval's own arguments: they do not change while the card is shown.
  }, [fields, approvalKey, tool, setApprovalEdit]);

  const set = (k: keyof EventFields) => (e: { target: { value: string } }) => setFields((f) => ({ ...f, [k]: e.target.value }));
  const rest = Object.fromEntries(Object.entries(original).filter(([k]) => !['title', 'start', 'end', 'attendees'].includes(k)));
  const invalid = edit?.problem ?? null;

  return (
    <div className="event-form">
      <div className="event-form-fields" role="group" aria-label={booking ? 'The event to book' : 'The new time'} aria-describedby={invalid ? errorId : undefined}>
        {booking && (
          <label className="event-form-wide">
            <span>Title</span>
            <input className="input" value={fields.title} onChange={set('title')} disabled={disabled} maxLength={500} aria-invalid={invalid !== null && fields.title.trim() === '' ? true : undefined} />
          </label>
        )}
        <label>
          <span>Start</span>
          <input className="input" type="datetime-local" value={fields.start} onChange={set('start')} disabled={disabled} />
        </label>
        <label>
          <span>End</span>
          <input className="input" type="datetime-local" value={fields.end} onChange={set('end')} disabled={disabled} />
        </label>
        {booking && (
          <label className="event-form-wide">
            <span>Attendees</span>
            <input className="input" value={fields.attendees} onChange={set('attendees')} disabled={disabled} placeholder="Names or emails, separated by commas" maxLength={4000} />
          </label>
        )}
      </div>
      <ArgList args={rest} />
      <FieldError id={errorId} problem={invalid} />
      {!invalid && edit?.args && <p className="muted event-form-note">Approve books it with your changes; Tidy is told what you changed.</p>}
    </div>
  );
}
