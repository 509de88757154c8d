/**
 * The week (or one day) as a time grid: a header of days (today marked), the all-day row, and 24 hours
 * of columns in which events sit side by side where they overlap (layout.ts), free time within working
 * hours shaded, and the now line. Each day's events are a list named by the day, each event a button
 * named by its title, time and calendar, so a screen reader walks the week as lists.
 */
import { memo, useEffect, useLayoutEffect, useMemo, useRef, useState, type CSSProperties } from 'react';
import { freeBands, layoutAllDay, layoutDay, MINUTES_PER_DAY, nowMinute, parseClock, startOfDay, type PlacedEvent, type WorkingHours } from './layout';
import { eventName, formatDay, formatTime, type CalEvent } from './model';

/** Height of one hour in the grid, px (the CSS reads it from --cal-hour). */
const HOUR_PX = 44;
const MIN_EVENT_PX = 18;

const headFmt = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric' });
/** '8 AM' where the locale uses AM/PM, else '08:00': short enough for the gutter either way. */
const hourFmt = new Intl.DateTimeFormat(undefined, ['h23', 'h24'].includes(new Intl.DateTimeFormat(undefined, { hour: 'numeric' }).resolvedOptions().hourCycle ?? '') ? { hour: '2-digit', minute: '2-digit' } : { hour: 'numeric' });
const HOURS = Array.from({ length: 24 }, (_, h) => h);

/** The minute now, updated every 30 s while shown. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** A band of wall-clock minutes of a day, in words. */
const bandText = (startMin: number, endMin: number, day: number) => {
  const d = new Date(day);
  const at = (m: number) => formatTime(new Date(d.getFullYear(), d.getMonth(), d.getDate(), 0, m).getTime());
  return `${at(startMin)} to ${endMin >= MINUTES_PER_DAY ? '24:00' : at(endMin)}`;
};

interface WeekGridProps {
  days: number[];
  events: CalEvent[];
  hours: WorkingHours;
  /** Calendars whose events are the user's own busy time (not a colleague's). */
  ownCalendars: ReadonlySet<string>;
  selectedId: string | null;
  onSelect(event: CalEvent, opener: HTMLElement): void;
  onOpenDay(day: number): void;
}

export const WeekGrid = memo(function WeekGrid({ days, events, hours, ownCalendars, selectedId, onSelect, onOpenDay }: WeekGridProps) {
  const now = useNow();
  const today = startOfDay(now);
  const scrollRef = useRef<HTMLDivElement>(null);
  const allDay = useMemo(() => layoutAllDay(events, days), [events, days]);
  const perDay = useMemo(() => days.map((d) => layoutDay(events, d).sort((a, b) => a.startMin - b.startMin || a.col - b.col)), [events, days]);
  const busy = useMemo(() => events.filter((e) => e.busy && !e.cancelled && ownCalendars.has(e.calendarId)), [events, ownCalendars]);
  const free = useMemo(() => days.map((d) => freeBands(busy, d, hours, now)), [busy, days, hours, now]);
  const first = days[0]!;

  // Opened on a range: scrolled to an hour before work starts, or before now when today is shown.
  useLayoutEffect(() => {
    const box = scrollRef.current;
    if (!box) return;
    const todayShown = days.includes(today);
    const startMin = todayShown ? (nowMinute(Date.now(), today) ?? 0) : (parseClock(hours.start) ?? 8 * 60);
    // A few pixels more, so the hour's label is not cut at the top.
    box.scrollTop = Math.max(0, ((startMin - 60) / 60) * HOUR_PX - 10);
    // Only when the range changes: a refresh must not pull the grid away from where the user scrolled.
  }, [first, days.length]);

  const cols = { '--cal-days': days.length } as CSSProperties;
  return (
    <div className="cal-grid" style={cols}>
      <div className="cal-head-row" role="presentation">
        <div className="cal-gutter" />
        {days.map((d) => {
          const isToday = d === today;
          return (
            <div key={d} className={`cal-day-head${isToday ? ' today' : ''}`}>
              <button type="button" className="cal-day-button" aria-current={isToday ? 'date' : undefined} aria-label={`${formatDay(d)}${isToday ? ', today' : ''}: show this day`} title="Show this day" onClick={() => onOpenDay(d)}>
                {headFmt.format(d)}
              </button>
            </div>
          );
        })}
      </div>

      {allDay.placed.length > 0 && (
        <div className="cal-allday" style={{ '--cal-lanes': allDay.lanes } as CSSProperties}>
          <div className="cal-gutter cal-allday-label" aria-hidden="true">
            all day
          </div>
          <ul className="cal-allday-lanes" aria-label="All-day events">
            {allDay.placed.map((p) => (
              <li key={p.event.id} style={{ gridColumn: `${p.first + 1} / ${p.last + 2}`, gridRow: p.lane + 1 }}>
                <EventButton event={p.event} selected={selectedId === p.event.id} onSelect={onSelect} className="cal-event allday" />
              </li>
            ))}
          </ul>
        </div>
      )}

      <div className="cal-scroll" ref={scrollRef} data-pane-focus="" tabIndex={-1} aria-label="Hours">
        <div className="cal-body" style={{ height: 24 * HOUR_PX }}>
          <div className="cal-gutter cal-hours" aria-hidden="true">
            {HOURS.map((h) => (
              <span key={h} style={{ top: h * HOUR_PX }}>
                {h === 0 ? '' : hourFmt.format(new Date(2000, 0, 1, h))}
              </span>
            ))}
          </div>
          {days.map((d, i) => {
            const nowAt = nowMinute(now, d);
            const placed = perDay[i]!;
            return (
              <div key={d} className={`cal-col${d === today ? ' today' : ''}${d < today ? ' past' : ''}`}>
                {free[i]!.map((b) => (
                  <div key={b.startMin} className="cal-free" style={{ top: (b.startMin / 60) * HOUR_PX, height: ((b.endMin - b.startMin) / 60) * HOUR_PX }} aria-hidden="true">
                    {b.endMin - b.startMin >= 45 && <span>Free</span>}
                  </div>
                ))}
                <DayEvents label={`${formatDay(d)}${d === today ? ', today' : ''}`} placed={placed} selectedId={selectedId} onSelect={onSelect} />
                {free[i]!.length > 0 && (
                  <p className="visually-hidden">
                    Free in working hours: {free[i]!.map((b) => bandText(b.startMin, b.endMin, d)).join(', ')}
                  </p>
                )}
                {nowAt !== null && (
                  <div className="cal-now" style={{ top: (nowAt / 60) * HOUR_PX }} role="img" aria-label={`Now, ${formatTime(now)}`} />
                )}
              </div>
            );
          })}
        </div>
      </div>
      {days.length === 1 && perDay[0]!.length === 0 && allDay.placed.length === 0 && <p className="cal-none">Nothing on {formatDay(days[0]!)}.</p>}
      {days.length > 1 && events.length === 0 && <p className="cal-none">Nothing this week. Next event or Previous event finds the nearest ones; or import a calendar (.ics), or ask Tidy to book something.</p>}
    </div>
  );
});

/** One day's timed events, positioned; memoised so that a new free-time band or now line does not redraw them. */
const DayEvents = memo(function DayEvents({ label, placed, selectedId, onSelect }: { label: string; placed: PlacedEvent<CalEvent>[]; selectedId: string | null; onSelect: WeekGridProps['onSelect'] }) {
  return (
    <ul aria-label={label} className="cal-col-events">
      {placed.map((p) => {
        const height = Math.max(MIN_EVENT_PX, ((p.endMin - p.startMin) / 60) * HOUR_PX - 2);
        const style: CSSProperties = {
          top: (p.startMin / 60) * HOUR_PX,
          height,
          left: `calc(${(p.col / p.cols) * 100}% + 1px)`,
          width: `calc(${100 / p.cols}% - 3px)`,
        };
        return (
          <li key={p.event.id} style={style} className="cal-slot">
            <EventButton event={p.event} selected={selectedId === p.event.id} onSelect={onSelect} className={`cal-event${height < 34 ? ' short' : ''}`} />
          </li>
        );
      })}
    </ul>
  );
});

const EventButton = memo(function EventButton({ event: e, selected, onSelect, className }: { event: CalEvent; selected: boolean; onSelect: WeekGridProps['onSelect']; className: string }) {
  const style = { '--cal-colour': e.colour } as CSSProperties;
  return (
    <button
      type="button"
      className={`${className}${e.cancelled ? ' cancelled' : ''}${e.taskId ? ' linked' : ''}${e.planId ? ' plan' : ''}`}
      style={style}
      aria-label={eventName(e)}
      aria-pressed={selected}
      data-event-id={e.id}
      onClick={(ev) => onSelect(e, ev.currentTarget)}
    >
      <span className="cal-event-title">{e.title}</span>
      {!e.allDay && <span className="cal-event-time">{`${formatTime(e.start)}–${formatTime(e.end)}`}</span>}
    </button>
  );
});
