/**
 * The calendar's layout maths, pure (no DOM, no React) so it is tested alone: the days of a week or a
 * day, timed events placed in side-by-side columns where they overlap, all-day and multi-day events in
 * lanes of the all-day row, free time within working hours, and the now line. Times are epoch
 * milliseconds; days are the user's local days (the browser's time zone), so a DST day has 23 or 25
 * hours and is still drawn as 24 wall-clock hours.
 */

export const MINUTES_PER_DAY = 24 * 60;
const DAY_MS = 24 * 60 * 60 * 1000;

/** What the layout needs of an event: its id and its span [start, end). */
export interface Span {
  id: string;
  start: number;
  end: number;
  allDay: boolean;
}

/** Local midnight of the day holding `t`. */
export function startOfDay(t: number): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** Local midnight `n` days after the day of `t` (calendar days, so DST days count once). */
export function addLocalDays(t: number, n: number): number {
  const d = new Date(t);
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + n).getTime();
}

/** Local midnight of the Monday (or `weekStartsOn`, 0 = Sunday) of the week holding `t`. */
export function startOfWeek(t: number, weekStartsOn = 1): number {
  const back = (new Date(t).getDay() - weekStartsOn + 7) % 7;
  return addLocalDays(t, -back);
}

/** The days shown: seven from the start of the week, or the one day. */
export function daysOf(anchor: number, mode: 'week' | 'day', weekStartsOn = 1): number[] {
  if (mode === 'day') return [startOfDay(anchor)];
  const first = startOfWeek(anchor, weekStartsOn);
  return Array.from({ length: 7 }, (_, i) => addLocalDays(first, i));
}

/** The anchor `steps` weeks or days away. */
export function step(anchor: number, mode: 'week' | 'day', steps: number): number {
  return addLocalDays(anchor, steps * (mode === 'week' ? 7 : 1));
}

/** Wall-clock minutes since local midnight of the day of `dayStart`, clamped to that day. */
function minuteOfDay(t: number, dayStart: number, nextDay: number): number {
  if (t <= dayStart) return 0;
  if (t >= nextDay) return MINUTES_PER_DAY;
  const d = new Date(t);
  return d.getHours() * 60 + d.getMinutes() + d.getSeconds() / 60;
}

/** Whether an event belongs in the all-day row: marked all-day, or lasting a whole day or more. */
const inAllDayRow = (e: Span): boolean => e.allDay || e.end - e.start >= DAY_MS;

/**
 * Columns for events that overlap: events are grouped into clusters (chains of overlapping events);
 * within a cluster each event takes the first column free at its start, and every event of the
 * cluster is drawn 1/cols wide. Sorted by start, longer first, so a long event keeps the left column.
 */
export function assignColumns<T extends { id: string; start: number; end: number }>(items: readonly T[]): Map<string, { col: number; cols: number }> {
  const sorted = [...items].sort((a, b) => a.start - b.start || b.end - a.end || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const out = new Map<string, { col: number; cols: number }>();
  let cluster: { id: string; col: number }[] = [];
  /** The end of each column's last event in the current cluster. */
  let columnEnds: number[] = [];
  let clusterEnd = -Infinity;
  const close = () => {
    for (const c of cluster) out.set(c.id, { col: c.col, cols: columnEnds.length });
    cluster = [];
    columnEnds = [];
  };
  for (const e of sorted) {
    // A zero-length event still takes room (drawn with a minimum height), so it counts as one minute.
    const end = Math.max(e.end, e.start + 60_000);
    if (e.start >= clusterEnd) close();
    let col = columnEnds.findIndex((colEnd) => colEnd <= e.start);
    if (col === -1) col = columnEnds.push(end) - 1;
    else columnEnds[col] = end;
    cluster.push({ id: e.id, col });
    clusterEnd = cluster.length === 1 ? end : Math.max(clusterEnd, end);
  }
  close();
  return out;
}

export interface PlacedEvent<T extends Span> {
  event: T;
  /** Wall-clock minutes from the day's midnight, clipped to the day. */
  startMin: number;
  endMin: number;
  col: number;
  cols: number;
  /** Whether the event began the day before, or goes on past midnight. */
  continuesBefore: boolean;
  continuesAfter: boolean;
}

/** The timed events of one day (those of the all-day row excluded), clipped to it and placed in columns. */
export function layoutDay<T extends Span>(events: readonly T[], dayStart: number): PlacedEvent<T>[] {
  const nextDay = addLocalDays(dayStart, 1);
  const timed = events.filter((e) => !inAllDayRow(e) && e.start < nextDay && (e.end > dayStart || (e.end === e.start && e.start >= dayStart)));
  const clipped = timed.map((e) => ({ id: e.id, start: Math.max(e.start, dayStart), end: Math.min(e.end, nextDay) }));
  const cols = assignColumns(clipped);
  return timed.map((e) => {
    const c = cols.get(e.id)!;
    return {
      event: e,
      startMin: minuteOfDay(e.start, dayStart, nextDay),
      endMin: minuteOfDay(e.end, dayStart, nextDay),
      col: c.col,
      cols: c.cols,
      continuesBefore: e.start < dayStart,
      continuesAfter: e.end > nextDay,
    };
  });
}

interface AllDayPlacement<T extends Span> {
  event: T;
  /** The first and last shown day it covers (indexes into `days`). */
  first: number;
  last: number;
  /** Its row in the all-day area (0 at the top). */
  lane: number;
}

/**
 * The all-day row: all-day and multi-day events over the shown days, each a bar from its first to its
 * last day, stacked in the fewest lanes (each takes the first lane free from its first day). An
 * all-day event's end is exclusive (iCalendar's DTEND), so a one-day event ends at the next midnight.
 */
export function layoutAllDay<T extends Span>(events: readonly T[], days: readonly number[]): { placed: AllDayPlacement<T>[]; lanes: number } {
  if (days.length === 0) return { placed: [], lanes: 0 };
  const rangeEnd = addLocalDays(days[days.length - 1]!, 1);
  const dayIndex = (t: number): number => {
    let i = 0;
    while (i + 1 < days.length && days[i + 1]! <= t) i++;
    return i;
  };
  const rows = events
    .filter((e) => inAllDayRow(e) && e.start < rangeEnd && Math.max(e.end, e.start + 1) > days[0]!)
    .map((e) => {
      // The last instant it covers: an exclusive end at midnight belongs to the day before.
      const lastInstant = Math.max(e.start, e.end - 1);
      return { event: e, first: e.start <= days[0]! ? 0 : dayIndex(e.start), last: lastInstant >= rangeEnd ? days.length - 1 : dayIndex(lastInstant) };
    })
    .sort((a, b) => a.first - b.first || b.last - a.last || (a.event.id < b.event.id ? -1 : 1));
  const laneEnds: number[] = [];
  const placed = rows.map((r) => {
    let lane = laneEnds.findIndex((last) => last < r.first);
    if (lane === -1) lane = laneEnds.push(r.last) - 1;
    else laneEnds[lane] = r.last;
    return { ...r, lane };
  });
  return { placed, lanes: laneEnds.length };
}

export interface WorkingHours {
  /** 'HH:MM', local. */
  start: string;
  end: string;
  /** Working weekdays, 0 = Sunday … 6 = Saturday. */
  days: readonly number[];
}

export const DEFAULT_WORKING_HOURS: WorkingHours = { start: '09:00', end: '17:00', days: [1, 2, 3, 4, 5] };

/** 'HH:MM' → minutes after midnight; null when it is not a time of day. */
export function parseClock(text: string): number | null {
  const m = /^(\d{1,2}):(\d{2})$/.exec(text.trim());
  if (!m) return null;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (h > 24 || min > 59 || (h === 24 && min > 0)) return null;
  return h * 60 + min;
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/**
 * Working days as stored in settings, into weekday numbers: a list of names ('Mon', 'tuesday') or
 * numbers (0 = Sunday, 7 = Sunday too), or one text ('Mon-Fri', 'mon,wed,fri'). Unreadable parts are
 * left out; null when nothing could be read.
 */
export function parseWorkDays(value: unknown): number[] | null {
  const day = (x: unknown): number | null => {
    if (typeof x === 'number') return Number.isInteger(x) && x >= 0 && x <= 7 ? x % 7 : null;
    if (typeof x !== 'string') return null;
    const t = x.trim().toLowerCase();
    if (/^\d$/.test(t)) return day(Number(t));
    // 'mon', 'Monday': three letters or more of a day's name.
    const i = t.length >= 3 ? WEEKDAYS.findIndex((name) => name.startsWith(t)) : -1;
    return i >= 0 ? i : null;
  };
  const out = new Set<number>();
  const parts = Array.isArray(value) ? value : typeof value === 'string' ? value.split(/[,\s]+/).filter(Boolean) : [];
  for (const p of parts) {
    const range = typeof p === 'string' ? /^([a-z0-9]+)\s*[-–]\s*([a-z0-9]+)$/i.exec(p.trim()) : null;
    if (range) {
      const a = day(range[1]);
      const b = day(range[2]);
      if (a === null || b === null) continue;
      for (let d = a; ; d = (d + 1) % 7) {
        out.add(d);
        if (d === b) break;
      }
    } else {
      const d = day(p);
      if (d !== null) out.add(d);
    }
  }
  return out.size > 0 ? [...out].sort((a, b) => a - b) : null;
}

/** A stretch of one day, in wall-clock minutes from its midnight. */
interface Band {
  startMin: number;
  endMin: number;
}

/**
 * Free time of one day: its working hours minus every busy span, never before `notBefore` (free time in
 * the past cannot be booked). None on a day off, or when the working hours are unreadable.
 */
export function freeBands(busy: readonly { start: number; end: number }[], dayStart: number, hours: WorkingHours, notBefore = -Infinity): Band[] {
  if (!hours.days.includes(new Date(dayStart).getDay())) return [];
  const from = parseClock(hours.start);
  const to = parseClock(hours.end);
  if (from === null || to === null || to <= from) return [];
  const nextDay = addLocalDays(dayStart, 1);
  let bands: Band[] = [{ startMin: from, endMin: to }];
  const cut = (a: number, b: number) => {
    bands = bands.flatMap((band) => {
      if (b <= band.startMin || a >= band.endMin) return [band];
      const pieces: Band[] = [];
      if (a > band.startMin) pieces.push({ startMin: band.startMin, endMin: a });
      if (b < band.endMin) pieces.push({ startMin: b, endMin: band.endMin });
      return pieces;
    });
  };
  if (notBefore > dayStart) cut(0, minuteOfDay(notBefore, dayStart, nextDay));
  for (const b of busy) {
    if (b.end <= dayStart || b.start >= nextDay) continue;
    cut(minuteOfDay(b.start, dayStart, nextDay), minuteOfDay(b.end, dayStart, nextDay));
  }
  // Slivers under five minutes are no use to anyone and only clutter the grid.
  return bands.filter((b) => b.endMin - b.startMin >= 5);
}

/** Where the now line goes in the day of `dayStart` (minutes), or null when now is another day. */
export function nowMinute(now: number, dayStart: number): number | null {
  const nextDay = addLocalDays(dayStart, 1);
  return now >= dayStart && now < nextDay ? minuteOfDay(now, dayStart, nextDay) : null;
}

/**
 * An event time as the calendar core sends it (ISO 8601 with offset, or a bare date for an all-day
 * event) into epoch ms; a bare date is local midnight. NaN when unreadable.
 */
export function parseEventTime(text: string): number {
  const date = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (date) return new Date(Number(date[1]), Number(date[2]) - 1, Number(date[3])).getTime();
  return Date.parse(text);
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Epoch ms → 'YYYY-MM-DDTHH:MM', the value of an <input type="datetime-local"> in local time. */
export function toLocalInput(t: number): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value → ISO 8601 with the local offset ('2026-11-24T10:00:00+01:00'); null when not a time. */
export function localInputToIso(value: string): string | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return null;
  const [y, mo, d, h, mi, s] = m.slice(1).map((x) => Number(x ?? 0)) as [number, number, number, number, number, number];
  const date = new Date(y, mo - 1, d, h, mi, s);
  // Out-of-range parts (month 13, 25:00) roll over in Date: refuse them instead.
  if (date.getFullYear() !== y || date.getMonth() !== mo - 1 || date.getDate() !== d || date.getHours() !== h || date.getMinutes() !== mi) return null;
  const off = -date.getTimezoneOffset();
  const sign = off >= 0 ? '+' : '-';
  return `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}:${pad(s)}${sign}${pad(Math.floor(Math.abs(off) / 60))}:${pad(Math.abs(off) % 60)}`;
}

/** The local date 'YYYY-MM-DD' of `t` (for the address and for queries by day). */
export function localDateOf(t: number): string {
  const d = new Date(t);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
