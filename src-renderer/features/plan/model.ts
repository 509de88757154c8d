/**
 * The plan card as data: from a proposed plan (src-shared/plan.ts, `ShownPlan`) to the rows the user
 * edits (times as datetime-local values, Pin, Drop) and back to the blocks to apply. Pure, so it is
 * tested alone. A time shown and left alone keeps the core's exact text, so an untouched card changes
 * nothing.
 */
import type { PlanBlockEdit, ShownPlan } from '../../../src-shared/plan';
import { localInputToIso, parseEventTime, toLocalInput } from '../calendar';
import { dateFormat, wallClock } from '../../lib/when';

export interface PlanRow {
  task_id: string;
  task: string;
  reason: string;
  late: boolean;
  event_id?: string;
  /** The core's times, as it sent them. */
  origStart: string;
  origEnd: string;
  origPinned: boolean;
  /** What the card shows and the user edits. */
  start: string;
  end: string;
  pinned: boolean;
  dropped: boolean;
}

export interface PlanEdits {
  /** The blocks to apply (dropped ones left out); null while a row cannot be sent. */
  blocks: PlanBlockEdit[] | null;
  /** Whether the user changed anything on the card. */
  changed: boolean;
  /** What to fix before approving (one line, naming the task), or null. */
  problem: string | null;
}

const shown = (iso: string): string => {
  const t = parseEventTime(iso);
  return Number.isFinite(t) ? toLocalInput(t) : '';
};

export function rowsFromPlan(plan: ShownPlan): PlanRow[] {
  return plan.blocks.map((b) => ({
    task_id: b.task_id,
    task: b.task,
    reason: b.reason,
    late: b.late === true,
    ...(b.event_id ? { event_id: b.event_id } : {}),
    origStart: b.start,
    origEnd: b.end,
    origPinned: b.pinned === true,
    start: shown(b.start),
    end: shown(b.end),
    pinned: b.pinned === true,
    dropped: false,
  }));
}

/** The blocks as the user left the rows. */
export function planEdits(rows: readonly PlanRow[]): PlanEdits {
  const blocks: PlanBlockEdit[] = [];
  let changed = false;
  for (const r of rows) {
    if (r.dropped) {
      changed = true;
      continue;
    }
    const time = (value: string, orig: string): string | null => {
      if (value === shown(orig) && value !== '') return orig;
      changed = true;
      return localInputToIso(value);
    };
    const start = time(r.start, r.origStart);
    if (start === null) return { blocks: null, changed: true, problem: `${r.task}: enter the start's date and time` };
    const end = time(r.end, r.origEnd);
    if (end === null) return { blocks: null, changed: true, problem: `${r.task}: enter the end's date and time` };
    if (parseEventTime(end) <= parseEventTime(start)) return { blocks: null, changed: true, problem: `${r.task}: the end must be after the start` };
    if (r.pinned !== r.origPinned) changed = true;
    blocks.push({ task_id: r.task_id, start, end, ...(r.pinned ? { pinned: true } : {}), ...(r.event_id ? { event_id: r.event_id } : {}) });
  }
  return { blocks, changed, problem: null };
}

/** The span planned: from now to local midnight (today), or tomorrow's whole local day. */
export function daySpan(which: 'today' | 'tomorrow', now: number): { from: string; to: string } {
  const d = new Date(now);
  const midnight = (days: number) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + days).getTime();
  const iso = (t: number) => localInputToIso(toLocalInput(t))!;
  return which === 'today' ? { from: iso(now), to: iso(midnight(1)) } : { from: iso(midnight(1)), to: iso(midnight(2)) };
}

// --- the timeline drawn on the card -------------------------------------------------------------------

interface TimelineBlock {
  key: string;
  task: string;
  /** Hours from the day's midnight (wall time, as the rows show it). */
  startH: number;
  endH: number;
  /** Where on the day's axis, in percent. */
  left: number;
  width: number;
  /** Its start and end in the locale ("9:00 AM–10:30 AM", "09:00–10:30"). */
  time: string;
  pinned: boolean;
  late: boolean;
}

interface TimelineDay {
  day: string;
  label: string;
  fromH: number;
  toH: number;
  /** The hours the axis names, and their marks in the locale ("9 AM", "09:00"). */
  ticks: number[];
  marks: string[];
  blocks: TimelineBlock[];
}

interface Timeline {
  days: TimelineDay[];
  /** The whole timeline in words (the drawing's accessible name). */
  label: string;
}

const WALL = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})/;

/**
 * The rows still on the card (dropped ones left out) on one axis of hours per day, as the user has edited
 * them: a block that runs past midnight is drawn to the end of its first day. The axis spans whole hours
 * around the blocks, at least four.
 */
export function timelineOf(rows: readonly PlanRow[], dayLabel: (day: string) => string = defaultDayLabel): Timeline {
  const byDay = new Map<string, Omit<TimelineBlock, 'left' | 'width'>[]>();
  rows.forEach((r, i) => {
    if (r.dropped) return;
    const s = WALL.exec(r.start);
    const e = WALL.exec(r.end);
    if (!s || !e) return;
    const startH = Number(s[2]) + Number(s[3]) / 60;
    const endH = e[1] === s[1] ? Number(e[2]) + Number(e[3]) / 60 : e[1]! > s[1]! ? 24 : startH;
    if (!(endH > startH) || startH >= 24) return;
    const list = byDay.get(s[1]!) ?? [];
    list.push({ key: `${r.task_id}-${r.origStart}-${i}`, task: r.task, startH, endH, time: `${wallClock(startH)}–${wallClock(endH)}`, pinned: r.pinned, late: r.late });
    byDay.set(s[1]!, list);
  });
  const days: TimelineDay[] = [...byDay.keys()].sort().map((day) => {
    const blocks = byDay.get(day)!.sort((a, b) => a.startH - b.startH);
    let fromH = Math.floor(Math.min(...blocks.map((b) => b.startH)));
    let toH = Math.ceil(Math.max(...blocks.map((b) => b.endH)));
    if (toH - fromH < 4) {
      toH = Math.min(24, fromH + 4);
      fromH = Math.max(0, toH - 4);
    }
    const span = toH - fromH;
    const step = span <= 8 ? 1 : span <= 16 ? 2 : 3;
    const ticks: number[] = [];
    for (let h = fromH; h <= toH; h += step) ticks.push(h);
    return {
      day,
      label: dayLabel(day),
      fromH,
      toH,
      ticks,
      marks: ticks.map((h) => wallClock(h, true)),
      blocks: blocks.map((b) => ({ ...b, left: ((b.startH - fromH) / span) * 100, width: ((b.endH - b.startH) / span) * 100 })),
    };
  });
  const label =
    days.length === 0
      ? 'Timeline of the plan: no block'
      : `Timeline of the plan: ${days.map((d) => `${d.label}, ${d.blocks.map((b) => `${b.task} ${b.time}${b.pinned ? ' (pinned)' : ''}${b.late ? ' (late)' : ''}`).join(', ')}`).join('; ')}`;
  return { days, label };
}

function defaultDayLabel(day: string): string {
  const [y, m, d] = day.split('-').map(Number);
  return dateFormat({ weekday: 'short', day: 'numeric', month: 'short' }).format(new Date(y!, m! - 1, d!));
}

// --- missed blocks -------------------------------------------------------------------------------------

/** The span a re-plan of missed blocks covers: from now to the end of tomorrow (local). */
export function replanSpan(now: number): { from: string; to: string } {
  const d = new Date(now);
  const iso = (t: number) => localInputToIso(toLocalInput(t))!;
  return { from: iso(now), to: iso(new Date(d.getFullYear(), d.getMonth(), d.getDate() + 2).getTime()) };
}

/** What Today says of missed blocks: how many, and the tasks (each once, in order; at most 3 named). */
export function missedLine(missed: readonly { task_id: string; task: string }[]): { text: string; taskIds: string[] } {
  const tasks = new Map<string, string>();
  for (const m of missed) if (!tasks.has(m.task_id)) tasks.set(m.task_id, m.task);
  const names = [...tasks.values()];
  const named = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
  const n = missed.length;
  return { text: `${n} planned block${n === 1 ? ' was' : 's were'} missed: ${named}`, taskIds: [...tasks.keys()] };
}
