/**
 * Today's events from every calendar, in order, as a short list (for the Today view, beside today's
 * tasks). Each shows its time, title and calendar colour; ones already over are dimmed, the one going
 * on is marked. It loads its own data and follows changes (features/calendar/slice.ts, topic `events`).
 */
import { useEffect, useId, type CSSProperties } from 'react';
import { useApp } from '../../store/react';
import { ProblemAlert } from '../../ui/common';
import { eventName, formatTime, todayList } from './model';
import '../../styles/calendar-ui.css';

export function TodayEvents({ heading = 'Today’s events' }: { heading?: string }) {
  const today = useApp((s) => s.todayEvents);
  const loadTodayEvents = useApp((s) => s.loadTodayEvents);
  const show = useApp((s) => s.show);
  const headingId = useId();

  useEffect(() => {
    void loadTodayEvents();
    // Past midnight the day changes: reload then.
    const d = new Date();
    const untilMidnight = new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1).getTime() - d.getTime();
    const timer = setTimeout(() => void loadTodayEvents(), untilMidnight + 1000);
    return () => clearTimeout(timer);
  }, [loadTodayEvents]);

  const events = todayList(today.value?.events ?? [], Date.now());
  return (
    <section className="today-events" aria-labelledby={headingId}>
      <h2 id={headingId}>{heading}</h2>
      {today.problem && <ProblemAlert problem={today.problem} title="Could not load today’s events" />}
      {today.value === null ? (
        today.loading && (
          <p className="muted" role="status">
            Loading events…
          </p>
        )
      ) : events.length === 0 ? (
        <p className="muted">Nothing in the calendar today.</p>
      ) : (
        <ul aria-label="Today’s events">
          {events.map(({ event: e, state }) => {
            return (
              <li key={e.id} className={state} style={{ '--cal-colour': e.colour } as CSSProperties} aria-label={`${eventName(e)}${state === 'later' ? '' : `, ${state}`}`}>
                <span className="cal-swatch" aria-hidden="true" />
                <span className="today-events-time">{e.allDay ? 'all day' : formatTime(e.start)}</span>
                <span className="today-events-title">{e.title}</span>
                {e.location && <span className="muted today-events-where">{e.location}</span>}
              </li>
            );
          })}
        </ul>
      )}
      <button type="button" className="btn small ghost" onClick={() => show('calendar')}>
        Open the calendar
      </button>
    </section>
  );
}
