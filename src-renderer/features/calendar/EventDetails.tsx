/** An event's details beside the grid: time, calendar, place, people, notes, and the task it blocks time for. */
import { useEffect, useId, useRef, type CSSProperties } from 'react';
import { useApp } from '../../store/react';
import { EventTime } from './EventTime';
import { formatDay, timeRange, type CalEvent } from './model';

export function EventDetails({ event: e, onClose }: { event: CalEvent; onClose(): void }) {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const linkedTask = useApp((s) => s.linkedTask);
  const loadLinkedTask = useApp((s) => s.loadLinkedTask);

  useEffect(() => {
    // Opened by the user's click or key: the focus follows to the details.
    headingRef.current?.focus();
  }, [e.id]);
  useEffect(() => {
    if (e.taskId) void loadLinkedTask(e.taskId);
  }, [e.taskId, loadLinkedTask]);

  const task = e.taskId && linkedTask.value?.id === e.taskId ? linkedTask.value : null;
  return (
    <section className="cal-details" aria-labelledby={headingId} style={{ '--cal-colour': e.colour } as CSSProperties}>
      <header>
        <h2 id={headingId} ref={headingRef} tabIndex={-1}>
          {e.title}
        </h2>
        <button type="button" className="btn small ghost" onClick={onClose} aria-label="Close event details" aria-keyshortcuts="Escape">
          ✕
        </button>
      </header>
      <dl>
        <dt>When</dt>
        <dd>{e.allDay || new Date(e.start).toDateString() !== new Date(e.end).toDateString() ? timeRange(e) : `${formatDay(e.start)}, ${timeRange(e)}`}</dd>
        <dt>Calendar</dt>
        <dd>
          <span className="cal-swatch" aria-hidden="true" /> {e.calendar}
          {e.readOnly ? <span className="muted"> (read-only)</span> : null}
        </dd>
        {e.planId && (
          <>
            <dt>Plan</dt>
            <dd>{e.pinned ? 'a planned block, pinned: a re-plan keeps it' : 'a planned block: a re-plan may move it'}</dd>
          </>
        )}
        {e.recurring && (
          <>
            <dt>Repeats</dt>
            <dd>yes, this is one occurrence</dd>
          </>
        )}
        {e.cancelled && (
          <>
            <dt>Status</dt>
            <dd>cancelled</dd>
          </>
        )}
        {e.location && (
          <>
            <dt>Where</dt>
            <dd>{e.location}</dd>
          </>
        )}
        {e.attendees.length > 0 && (
          <>
            <dt>With</dt>
            <dd>{e.attendees.join(', ')}</dd>
          </>
        )}
        {e.taskId && (
          <>
            <dt>Task</dt>
            <dd>
              {task ? (
                <>
                  {task.content} <span className="muted">({task.status === 'done' ? 'done' : task.project})</span>
                </>
              ) : linkedTask.loading ? (
                'loading…'
              ) : (
                <span className="muted">{e.taskId} (not found)</span>
              )}
            </dd>
          </>
        )}
        {e.notes && (
          <>
            <dt>Notes</dt>
            <dd className="cal-notes">{e.notes}</dd>
          </>
        )}
      </dl>
      <EventTime key={`${e.id}@${e.start}-${e.end}`} event={e} />
    </section>
  );
}
