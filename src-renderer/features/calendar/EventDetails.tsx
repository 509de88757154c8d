/** An event's details beside the grid: time, calendar, place, people, notes, and the task it blocks time for. */
import { useEffect, useId, useRef, type CSSProperties } from 'react';
import { useApp } from '../../store/react';
import { SyncHistory } from '../../ui/SyncHistory';
import { EventTime } from './EventTime';
import { parseEventTime } from './layout';
import { formatDay, formatTime, restoredTimes, timeRange, type CalEvent } from './model';

export function EventDetails({ event: e, onClose }: { event: CalEvent; onClose(): void }) {
  const headingId = useId();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const linkedTask = useApp((s) => s.linkedTask);
  const loadLinkedTask = useApp((s) => s.loadLinkedTask);
  const moveEventTime = useApp((s) => s.moveEventTime);

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
      <SyncHistory
        table="events"
        row={e.eventId}
        name={e.title}
        labels={EVENT_HISTORY_LABELS}
        show={(column, v) => ((column === 'start' || column === 'end') && typeof v === 'string' && Number.isFinite(parseEventTime(v)) ? `${formatDay(parseEventTime(v))} ${formatTime(parseEventTime(v))}` : null)}
        restore={{
          // the times the event editor moves (EventTime): not an imported, repeating, cancelled or all-day event's
          columns: e.readOnly || e.recurring || e.cancelled || e.allDay ? NONE : TIMES,
          run: (c, all) => {
            const [start, end] = restoredTimes(e, c, all);
            return moveEventTime(e, start, end);
          },
        }}
      />
    </section>
  );
}

const EVENT_HISTORY_LABELS: Record<string, string> = {
  title: 'Title',
  start: 'Start',
  end: 'End',
  location: 'Place',
  notes: 'Notes',
  attendees: 'People',
  calendar_id: 'Calendar',
  cancelled_at: 'Cancelled',
  all_day: 'All day',
  rrule: 'Repeats',
  tz: 'Time zone',
  busy: 'Busy',
};
const TIMES: ReadonlySet<string> = new Set(['start', 'end']);
const NONE: ReadonlySet<string> = new Set();
