/**
 * The plan card as data: from a proposed plan (src-shared/plan.ts, `ShownPlan`) to the rows the user
 * edits (times as datetime-local values, Pin, Drop) and back to the blocks to apply. Pure, so it is
 * tested alone. A time shown and left alone keeps the core's exact text, so an untouched card changes
 * nothing.
 */
import type { PlanBlockEdit, ShownPlan } from '../../../src-shared/plan';
import { localInputToIso, parseEventTime, toLocalInput } from '../calendar';

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
