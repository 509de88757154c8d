/**
 * The planner's scheduler: chosen open tasks placed into free working time, deterministically, from plain
 * data (no database, no clock): the same input always gives the same plan.
 *
 * Rules (issue 31): inside working hours and days; around every busy interval given (the user's own
 * calendars); never before `now`; never across a busy interval; each block at least `minBlockMin` long
 * (a task shorter than that is one block of its own length); long tasks split into chunks of at least
 * the minimum when `split` is on; `bufferMin` kept free between a block and any other block; a task
 * without a duration takes `defaultDurationMin` (its reason says so). Order: tasks with a deadline first
 * (earliest first), then priority (p1 first), then age (oldest first), then id. A task that cannot end
 * before its deadline is not placed: it is returned in `unplaced` with the reason, like any task that
 * does not fit. A task whose deadline has already passed is placed as early as possible, marked late.
 * Pinned blocks are kept as they are and count toward their task.
 */
import { WEEKDAYS, type Weekday } from '../../../src-shared/calendar';
import { addDays, parseWall, wallAt, wallDate, wallToUtc, weekday, type Wall } from '../calendar/zones';

const MINUTE = 60_000;
/** Blocks start on this grid (5 minutes) so a plan reads well. */
const GRID = 5 * MINUTE;
/** The longest range one plan covers. */
export const MAX_PLAN_DAYS = 62;
/** Tasks one plan takes at most. */
export const MAX_PLAN_TASKS = 500;

export interface PlanTask {
  id: string;
  title: string;
  /** 1 (most urgent) … 4. */
  priority: number;
  /** A date, YYYY-MM-DD: the task must be done by the end of that day (user's zone). */
  deadline: string | null;
  durationMin: number | null;
  /** ISO 8601: older tasks go first among equals. */
  createdAt: string;
}

export interface PinnedBlock {
  taskId: string;
  startMs: number;
  endMs: number;
}

interface PlanSettings {
  zone: string;
  workStart: string;
  workEnd: string;
  workDays: readonly Weekday[];
  /** Minimum block length, minutes (default 25). */
  minBlockMin: number;
  /** Free minutes kept between two blocks (default 5). */
  bufferMin: number;
  /** Duration assumed for a task that has none (default 30). */
  defaultDurationMin: number;
  /** Whether a long task may be cut into chunks of at least the minimum. */
  split: boolean;
}

export interface PlanInput extends PlanSettings {
  tasks: readonly PlanTask[];
  /** Busy intervals [start, end) in ms, any order, may overlap. */
  busy: readonly (readonly [number, number])[];
  pinned?: readonly PinnedBlock[];
  fromMs: number;
  toMs: number;
  now: number;
}

interface PlannedBlock {
  taskId: string;
  startMs: number;
  endMs: number;
  reason: string;
  pinned: boolean;
  late: boolean;
}

interface UnplacedTask {
  taskId: string;
  reason: string;
}

interface PlanSummary {
  /** Minutes of work asked for (after pinned blocks). */
  neededMin: number;
  /** Free working minutes in the range (after busy time and pinned blocks). */
  freeMin: number;
  /** Minutes that could not be placed. */
  unplacedMin: number;
  overloaded: boolean;
  /** "7 h of tasks, 4 h 30 free" and, when overloaded, what to move. */
  text: string;
}

interface Plan {
  blocks: PlannedBlock[];
  unplaced: UnplacedTask[];
  summary: PlanSummary;
}

export const DEFAULT_PLAN_SETTINGS = { minBlockMin: 25, bufferMin: 5, defaultDurationMin: 30, split: true } as const;

const minutesOf = (hhmm: string): number => {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  return h * 60 + m;
};

/** "45 min", "3 h", "1 h 20". */
export function duration(min: number): string {
  const m = Math.max(0, Math.round(min));
  if (m < 60) return `${m} min`;
  return m % 60 ? `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')}` : `${m / 60} h`;
}

/*
 * A reason's days and times are in machine form ("deadline 2026-12-04", "after 09:00"): the model reads them
 * as they are, and the window and the CLI show them in the reader's locale (src-shared/readable-dates.ts), as
 * "deadline Fri, Dec 4" and "after 9:00 AM" in en-US.
 */
const hhmm = (w: Wall): string => `${String(w.h).padStart(2, '0')}:${String(w.mi).padStart(2, '0')}`;

/** The instant a deadline date ends (midnight after it, in the zone); null for no or a malformed date. */
export function deadlineEnd(deadline: string | null, zone: string): number | null {
  const w = deadline ? parseWall(deadline.slice(0, 10)) : null;
  return w ? wallToUtc(addDays({ ...w, h: 0, mi: 0, s: 0 }, 1), zone) : null;
}

/** Sorted, merged copy of intervals. */
function mergeIntervals(spans: readonly (readonly [number, number])[]): [number, number][] {
  const sorted = spans.filter(([s, e]) => e > s).map(([s, e]) => [s, e] as [number, number]);
  sorted.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out: [number, number][] = [];
  for (const [s, e] of sorted) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], e);
    else out.push([s, e]);
  }
  return out;
}

/** Working windows of [fromMs, toMs) in the zone, minus merged busy time: free intervals, sorted. */
export function freeWindows(
  s: Pick<PlanSettings, 'zone' | 'workStart' | 'workEnd' | 'workDays'>,
  fromMs: number,
  toMs: number,
  busy: readonly (readonly [number, number])[],
): [number, number][] {
  const startMin = minutesOf(s.workStart);
  const endMin = minutesOf(s.workEnd);
  const days = new Set(s.workDays.map((d) => WEEKDAYS.indexOf(d)));
  const merged = mergeIntervals(busy);
  const out: [number, number][] = [];
  if (!(toMs > fromMs) || endMin <= startMin) return out;
  const first = wallAt(fromMs, s.zone);
  let b = 0;
  for (let day: Wall = { ...first, h: 0, mi: 0, s: 0 }, i = 0; i <= MAX_PLAN_DAYS * 13 + 2; day = addDays(day, 1), i++) {
    if (wallToUtc(day, s.zone) >= toMs) break;
    if (!days.has(weekday(day))) continue;
    let a = Math.max(fromMs, wallToUtc({ ...day, h: Math.floor(startMin / 60), mi: startMin % 60 }, s.zone));
    const e = Math.min(toMs, endMin >= 24 * 60 ? wallToUtc(addDays(day, 1), s.zone) : wallToUtc({ ...day, h: Math.floor(endMin / 60), mi: endMin % 60 }, s.zone));
    while (b < merged.length && merged[b]![1] <= a) b++;
    for (let j = b; a < e; j++) {
      const next = merged[j];
      const gapEnd = next && next[0] < e ? Math.max(a, next[0]) : e;
      if (gapEnd > a) out.push([a, gapEnd]);
      if (!next || next[0] >= e) break;
      a = Math.max(a, next[1]);
    }
  }
  return out;
}

const total = (spans: readonly (readonly [number, number])[]): number => spans.reduce((n, [s, e]) => n + (e - s), 0);

/** Removes [s, e) from sorted disjoint free intervals, in place. */
function take(free: [number, number][], s: number, e: number): void {
  for (let i = 0; i < free.length; i++) {
    const f = free[i]!;
    if (f[1] <= s || f[0] >= e) continue;
    const parts: [number, number][] = [];
    if (f[0] < s) parts.push([f[0], s]);
    if (e < f[1]) parts.push([e, f[1]]);
    free.splice(i, 1, ...parts);
    i += parts.length - 1;
  }
}

const ceilGrid = (ms: number): number => Math.ceil(ms / GRID) * GRID;

/** Orders tasks: deadline first (earliest), then priority, then age, then id. */
function planOrder(a: PlanTask, b: PlanTask): number {
  const da = a.deadline ? a.deadline.slice(0, 10) : null;
  const db = b.deadline ? b.deadline.slice(0, 10) : null;
  if (da !== db) {
    if (da === null) return 1;
    if (db === null) return -1;
    return da < db ? -1 : 1;
  }
  if (a.priority !== b.priority) return a.priority - b.priority;
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

interface Candidate {
  /** Where the chunk may start (grid-aligned) and how long the free stretch is from there. */
  start: number;
  room: number;
  gapStart: number;
}

/**
 * Places tasks into free time. Pure and deterministic: same input → same plan.
 */
export function schedule(input: PlanInput): Plan {
  const zone = input.zone;
  const minBlock = Math.max(5, Math.round(input.minBlockMin)) * MINUTE;
  const buffer = Math.max(0, Math.round(input.bufferMin)) * MINUTE;
  const defaultMs = Math.max(5, Math.round(input.defaultDurationMin)) * MINUTE;
  const earliest = ceilGrid(Math.max(input.now, input.fromMs));
  const fromMs = earliest;
  const toMs = input.toMs;
  const pinned = [...(input.pinned ?? [])].sort((a, b) => a.startMs - b.startMs || (a.taskId < b.taskId ? -1 : 1));

  // Free time: working windows minus busy time and pinned blocks (with their buffer).
  const busy: [number, number][] = input.busy.map(([s, e]) => [s, e]);
  for (const p of pinned) busy.push([p.startMs - buffer, p.endMs + buffer]);
  const free = freeWindows(input, fromMs, toMs, busy);
  const freeAtStart = total(freeWindows(input, fromMs, toMs, [...input.busy, ...pinned.map((p) => [p.startMs, p.endMs] as [number, number])]));

  const blocks: PlannedBlock[] = pinned.map((p) => ({ taskId: p.taskId, startMs: p.startMs, endMs: p.endMs, reason: 'pinned: kept where you put it', pinned: true, late: false }));
  const pinnedMs = new Map<string, number>();
  for (const p of pinned) pinnedMs.set(p.taskId, (pinnedMs.get(p.taskId) ?? 0) + (p.endMs - p.startMs));

  const unplaced: UnplacedTask[] = [];
  let neededMs = 0;
  let unplacedMs = 0;
  const seen = new Set<string>();
  const tasks = [...input.tasks].filter((t) => (seen.has(t.id) ? false : (seen.add(t.id), true))).sort(planOrder);

  for (const task of tasks) {
    const assumed = !(task.durationMin && task.durationMin > 0);
    const fullMs = assumed ? defaultMs : Math.round(task.durationMin!) * MINUTE;
    const needMs = fullMs - (pinnedMs.get(task.id) ?? 0);
    if (needMs <= 0) continue;
    neededMs += needMs;
    const dEnd = deadlineEnd(task.deadline, zone);
    const dWall = task.deadline ? parseWall(task.deadline.slice(0, 10)) : null;
    const overdue = dEnd !== null && dEnd <= fromMs;
    const limit = dEnd !== null && !overdue ? Math.min(dEnd, toMs) : toMs;
    const prio = `p${task.priority}`;
    const deadlineWords = dWall ? `, deadline ${wallDate(dWall)}` : '';
    const assumedWords = assumed ? `; no duration set, ${duration(defaultMs / MINUTE)} assumed` : '';

    // Free stretches usable before the limit: starts on the grid, ends before the limit.
    const usable = (): Candidate[] => {
      const out: Candidate[] = [];
      for (const [s, e] of free) {
        if (s >= limit) break;
        const start = ceilGrid(s);
        const end = Math.min(e, limit);
        if (end - start > 0) out.push({ start, room: end - start, gapStart: s });
      }
      return out;
    };

    const stretches = usable();
    const freeBefore = stretches.reduce((n, c) => n + c.room, 0);
    // Plan the chunks first, then commit them only if the whole task fits.
    const chunks: { start: number; end: number; stretch: Candidate }[] = [];
    const whole = stretches.find((c) => c.room >= needMs);
    if (whole) chunks.push({ start: whole.start, end: whole.start + needMs, stretch: whole });
    else if (input.split && needMs > minBlock) {
      let left = needMs;
      for (const c of stretches) {
        if (left <= 0) break;
        // A chunk keeps the buffer from the task's own chunk before it, as from any other block (the
        // free stretches are only narrowed once the whole task is placed, so a busy event shorter than
        // the buffer would otherwise sit between two chunks with less than the buffer around it).
        const prev = chunks.at(-1);
        const start = prev ? Math.max(c.start, ceilGrid(prev.end + buffer)) : c.start;
        const room = c.start + c.room - start;
        if (room < minBlock) continue;
        let len = Math.min(room, left);
        if (len < left) len = Math.floor(len / GRID) * GRID;
        // Never leave a remainder shorter than the minimum: shorten this chunk instead.
        if (left - len > 0 && left - len < minBlock) len = Math.floor((left - minBlock) / GRID) * GRID;
        if (len < minBlock) continue;
        chunks.push({ start, end: start + len, stretch: c });
        left -= len;
      }
      if (left > 0) chunks.length = 0;
    }

    if (chunks.length === 0) {
      unplacedMs += needMs;
      const longest = stretches.reduce((n, c) => Math.max(n, c.room), 0);
      let reason: string;
      if (dEnd !== null && !overdue && freeBefore < needMs)
        reason = `needs ${duration(needMs / MINUTE)}, ${freeBefore ? duration(freeBefore / MINUTE) : 'nothing'} free before its deadline ${wallDate(dWall!)}`;
      else if (freeBefore >= needMs && !input.split) reason = `needs ${duration(needMs / MINUTE)} in one piece; the longest free stretch is ${duration(longest / MINUTE)} (splitting is off)`;
      else if (freeBefore >= needMs) reason = `needs ${duration(needMs / MINUTE)}; the free time left is in pieces shorter than ${duration(minBlock / MINUTE)}`;
      else reason = `needs ${duration(needMs / MINUTE)}, ${freeBefore ? duration(freeBefore / MINUTE) : 'nothing'} free left in the range`;
      unplaced.push({ taskId: task.id, reason: `${reason}${assumedWords}` });
      continue;
    }

    chunks.forEach(({ start: s, end: e, stretch }, i) => {
      const w = wallAt(stretch.gapStart, zone);
      const part = chunks.length > 1 ? `part ${i + 1} of ${chunks.length}; ` : '';
      const late = overdue ? `; late: its deadline ${wallDate(dWall!)} has passed` : '';
      blocks.push({
        taskId: task.id,
        startMs: s,
        endMs: e,
        reason: `${prio}${deadlineWords}; ${part}first free ${duration(stretch.room / MINUTE)} after ${hhmm(w)}${assumedWords}${late}`,
        pinned: false,
        late: overdue,
      });
      take(free, s - buffer, e + buffer);
    });
  }

  blocks.sort((a, b) => a.startMs - b.startMs || (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  const neededMin = Math.round(neededMs / MINUTE);
  const freeMin = Math.round(freeAtStart / MINUTE);
  const unplacedMin = Math.round(unplacedMs / MINUTE);
  const overloaded = unplaced.length > 0;
  let text = `${duration(neededMin)} of tasks, ${duration(freeMin)} free`;
  if (overloaded) {
    const names = unplaced.slice(-3).map((u) => tasks.find((t) => t.id === u.taskId)?.title ?? u.taskId);
    text += `; ${duration(unplacedMin)} does not fit: move ${names.map((n) => `"${n.slice(0, 40)}"`).join(', ')}${unplaced.length > 3 ? ` and ${unplaced.length - 3} more` : ''} to a later day, or plan a longer range`;
  }
  return { blocks, unplaced, summary: { neededMin, freeMin, unplacedMin, overloaded, text } };
}
