/**
 * Plans in the database: which tasks to plan, the busy time of the user's own calendars, a proposed plan
 * (schedule.ts, nothing written), and applying a plan — its blocks become events of the local calendar
 * linked to their task (events.task_id), marked with the plan (events.plan_id: the request that applied
 * it) — as ONE logged action, so "Undo all" removes every block.
 *
 * Blocks a task already has (from an earlier plan, pinned, or already started) are kept and count toward
 * the task; re-planning a plan frees only its unpinned future blocks and moves them (same event ids).
 */
import { PERSONAL_CALENDAR_ID, type Weekday } from '../../../src-shared/calendar';
import type { Settings } from '../../../src-shared/settings';
import type { Task } from '../../../src-shared/domain';
import type { PlanArgs, ShownPlan } from '../../../src-shared/plan';
import type { ActionContext } from '../actions/log';
import { addDays, isoInZone, parseWall, wallAt, wallToUtc } from '../calendar/zones';
import { forEachOccurrence, parseInstant, shortTime } from '../domain/calendar';
import { findTasks } from '../domain/filter';
import { getTask, rowsToTasks, SELECT_TASK } from '../domain/tasks';
import { mutate, type Mutated } from '../domain/mutation';
import { now as nowText, quote } from '../domain/text';
import { fail } from '../fail';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { blockTimes as times } from '../domain/plan-blocks';
import { MAX_PLAN_DAYS, MAX_PLAN_TASKS, schedule, type PinnedBlock, type PlanTask } from './schedule';

const DAY = 86_400_000;

export type { ShownPlan } from '../../../src-shared/plan';

export interface PlanQuery {
  taskIds?: readonly string[];
  filter?: string;
  fromMs: number;
  toMs: number;
  now: number;
  zone: string;
  settings: Pick<Settings, 'workStart' | 'workEnd' | 'workDays' | 'planMinBlock' | 'planBuffer' | 'planDefaultDuration' | 'planSplit'>;
  /** Re-plan this plan: its unpinned future blocks are placed anew. */
  replan?: string;
}

interface BlockRow {
  id: string;
  task_id: string;
  plan_id: string;
  start_ms: number;
  end_ms: number;
  pinned: number;
}

/** The user's own calendars: the local one and imported calendars of no person. */
function ownCalendars(db: Db): string[] {
  return (cached(db, `SELECT id FROM calendars WHERE archived_at IS NULL AND (kind = 'local' OR (person_name IS NULL AND person_email IS NULL))`).all() as { id: string }[]).map((r) => r.id);
}

/** Live plan blocks that end after `afterMs`. */
function liveBlocks(db: Db, afterMs: number): BlockRow[] {
  return cached(
    db,
    `SELECT id, task_id, plan_id, start_ms, end_ms, pinned FROM events
      WHERE plan_id IS NOT NULL AND cancelled_at IS NULL AND task_id IS NOT NULL AND end_ms > ? ORDER BY start_ms, id`,
  ).all(afterMs) as BlockRow[];
}

/** The tasks a plan is asked for: by id, by filter, or (neither) open tasks due or with a deadline by the range's end. */
function tasksToPlan(db: Db, q: Pick<PlanQuery, 'taskIds' | 'filter' | 'toMs' | 'zone' | 'now'>): Task[] {
  if (q.taskIds?.length) {
    if (q.taskIds.length > MAX_PLAN_TASKS) fail(`a plan takes at most ${MAX_PLAN_TASKS} tasks`, 'plan fewer tasks at once');
    // One query for the ids; getTask (which also reads text and says what is wrong) for anything else.
    const byId = new Map(
      rowsToTasks(cached(db, `${SELECT_TASK} WHERE t.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(q.taskIds.map((r) => String(r).trim().toLowerCase())))).map((t) => [t.id, t]),
    );
    const seen = new Set<string>();
    const out: Task[] = [];
    for (const ref of q.taskIds) {
      const t = byId.get(String(ref).trim().toLowerCase()) ?? getTask(db, ref);
      if (t.status !== 'open') fail(`task ${t.id} is ${t.status}`, 'plan open tasks only');
      if (seen.has(t.id)) continue;
      seen.add(t.id);
      out.push(t);
    }
    return out;
  }
  if (q.filter?.trim()) return findTasks(db, { filter: q.filter, limit: MAX_PLAN_TASKS, now: new Date(q.now) }).tasks;
  const last = isoInZone(q.toMs - 1, q.zone).slice(0, 10);
  return rowsToTasks(
    cached(
      db,
      `${SELECT_TASK} WHERE t.status = 'open' AND ((t.due IS NOT NULL AND substr(t.due, 1, 10) <= ?) OR (t.deadline IS NOT NULL AND t.deadline <= ?))
        ORDER BY t.created_at, t.id LIMIT ${MAX_PLAN_TASKS}`,
    ).all(last, last),
  );
}

const planTask = (t: Task): PlanTask => ({ id: t.id, title: t.content, priority: t.priority, deadline: t.deadline ?? null, durationMin: t.durationMin ?? null, createdAt: t.createdAt });

/** A proposed plan: nothing is written. */
export function proposePlan(db: Db, q: PlanQuery): ShownPlan {
  if (!(q.toMs > q.fromMs)) fail('the range ends before it starts', 'give a "to" after "from"');
  if (q.toMs - q.fromMs > MAX_PLAN_DAYS * DAY) fail(`a plan covers at most ${MAX_PLAN_DAYS} days`, 'plan a shorter range');
  if (q.toMs <= q.now) fail('the range is in the past', 'plan a range that ends after now');
  const tasks = tasksToPlan(db, q);
  const chosen = new Set(tasks.map((t) => t.id));
  const blocks = liveBlocks(db, q.now);
  // Freed: the re-planned plan's unpinned blocks that have not started. Everything else stays where it is.
  const freed = new Set(blocks.filter((b) => q.replan && b.plan_id === q.replan && !b.pinned && b.start_ms >= q.now).map((b) => b.id));
  if (q.replan && !blocks.some((b) => b.plan_id === q.replan)) fail(`plan ${quote(q.replan)} has no blocks still to come`, 'plan anew instead');
  const kept = blocks.filter((b) => !freed.has(b.id) && chosen.has(b.task_id));
  const from = Math.max(q.fromMs, q.now);
  // Busy time of the user's own calendars, without the freed blocks (placed anew) and the kept ones
  // (the scheduler's pinned blocks: busy, and counted toward their task).
  const skip = new Set([...freed, ...kept.map((b) => b.id)]);
  const busy: [number, number][] = [];
  forEachOccurrence(db, { fromMs: q.fromMs, toMs: q.toMs, zone: q.zone, calendarIds: ownCalendars(db), busyOnly: true }, (r, s, e) => {
    if (e > s && !skip.has(r.id)) busy.push([s, e]);
  });
  const pinned: PinnedBlock[] = kept.map((b) => ({ taskId: b.task_id, startMs: b.start_ms, endMs: b.end_ms }));
  const plan = schedule({
    tasks: tasks.map(planTask),
    busy,
    pinned,
    fromMs: from,
    toMs: q.toMs,
    now: q.now,
    zone: q.zone,
    workStart: q.settings.workStart,
    workEnd: q.settings.workEnd,
    workDays: q.settings.workDays as Weekday[],
    minBlockMin: q.settings.planMinBlock,
    bufferMin: q.settings.planBuffer,
    defaultDurationMin: q.settings.planDefaultDuration,
    split: q.settings.planSplit,
  });
  const title = new Map(tasks.map((t) => [t.id, t.content]));
  const keptBy = new Map(kept.map((b) => [`${b.task_id}|${b.start_ms}|${b.end_ms}`, b]));
  return {
    from: isoInZone(from, q.zone),
    to: isoInZone(q.toMs, q.zone),
    blocks: plan.blocks.map((b) => {
      const existing = b.pinned ? keptBy.get(`${b.taskId}|${b.startMs}|${b.endMs}`) : undefined;
      return {
        task_id: b.taskId,
        task: title.get(b.taskId) ?? b.taskId,
        start: isoInZone(b.startMs, q.zone),
        end: isoInZone(b.endMs, q.zone),
        reason: existing ? (existing.pinned ? 'pinned: kept where you put it' : 'already planned: kept') : b.reason,
        ...(existing?.pinned ? { pinned: true } : {}),
        ...(b.late ? { late: true } : {}),
        ...(existing ? { event_id: existing.id } : {}),
      };
    }),
    unplaced: plan.unplaced.map((u) => ({ task_id: u.taskId, task: title.get(u.taskId) ?? u.taskId, reason: u.reason })),
    summary: plan.summary,
    ...(q.replan ? { plan: q.replan } : {}),
  };
}

// --- applying ---------------------------------------------------------------------------------------

interface ApplyBlock {
  task_id: string;
  start: string;
  end: string;
  pinned?: boolean;
  event_id?: string;
}

interface ApplyInput {
  blocks: readonly ApplyBlock[];
  /** The plan re-planned: its unpinned future blocks not in `blocks` are cancelled, the others moved. */
  plan?: string;
}

interface AppliedPlan {
  plan: string;
  created: number;
  moved: number;
  cancelled: number;
  kept: number;
  events: string[];
}

const MAX_BLOCK_MS = 24 * 3_600_000;

/** Writes a plan: every block an event of the local calendar, in ONE action (one request). */
export function applyPlan(db: Db, ctx: ActionContext, input: ApplyInput, zone: string, nowMs: number): Mutated<AppliedPlan> {
  return mutate(db, ctx, 'apply_plan', { verb: 'planned', kind: 'event' }, input, (cs) => {
    if (input.blocks.length > MAX_PLAN_TASKS * 4) fail(`a plan has at most ${MAX_PLAN_TASKS * 4} blocks`, 'plan fewer tasks at once');
    const planId = input.plan ?? ctx.requestId;
    const live = liveBlocks(db, nowMs);
    const ofPlan = new Map(live.filter((b) => b.plan_id === planId).map((b) => [b.id, b]));
    const t = nowText();
    let created = 0;
    let moved = 0;
    let kept = 0;
    const events: string[] = [];
    const used = new Set<string>();
    const titles = new Map<string, string>();
    // Checked first, so a bad block leaves nothing half-written (the transaction would roll back anyway).
    const parsed = input.blocks.map((b, i) => {
      const startMs = parseInstant(b.start, zone, `block ${i + 1}'s start`);
      const endMs = parseInstant(b.end, zone, `block ${i + 1}'s end`);
      if (endMs <= startMs) fail(`block ${i + 1} ends before it starts`, 'give each block an end after its start');
      if (endMs - startMs > MAX_BLOCK_MS) fail(`block ${i + 1} is longer than a day`, 'split it into shorter blocks');
      const task = getTask(db, b.task_id);
      if (task.status !== 'open') fail(`task ${task.id} is ${task.status}`, 'plan open tasks only');
      titles.set(task.id, task.content);
      return { ...b, task_id: task.id, startMs, endMs, title: task.content };
    });
    const sorted = [...parsed].sort((a, b) => a.startMs - b.startMs);
    for (let i = 1; i < sorted.length; i++)
      if (sorted[i]!.startMs < sorted[i - 1]!.endMs) fail(`two blocks overlap at ${shortTime(sorted[i]!.startMs, zone)}`, 'move or drop one of them');
    // A re-plan reuses the plan's freed blocks of the same task (moved), in order; the rest are new.
    const spare = (taskId: string): BlockRow | undefined => [...ofPlan.values()].find((r) => r.task_id === taskId && !r.pinned && r.start_ms >= nowMs && !used.has(r.id));
    for (const b of parsed) {
      const existing = b.event_id ? live.find((r) => r.id === b.event_id) : undefined;
      if (b.event_id && !existing) fail(`event ${b.event_id} is not a block still to come`, 'propose the plan again');
      const row = existing ?? (input.plan ? spare(b.task_id) : undefined);
      if (row) {
        used.add(row.id);
        events.push(row.id);
        const pinned = b.pinned ? 1 : row.pinned;
        if (row.start_ms === b.startMs && row.end_ms === b.endMs && row.pinned === pinned) {
          kept++;
          continue;
        }
        cs.update('events', row.id, { ...times(b.startMs, b.endMs), pinned, updated_at: t });
        moved++;
        continue;
      }
      const id = nextId(db, 'e');
      cs.insert('events', {
        id,
        calendar_id: PERSONAL_CALENDAR_ID,
        uid: `${id}-${Date.parse(t).toString(36)}@tidy`,
        recurrence_id: null,
        title: b.title,
        ...times(b.startMs, b.endMs),
        all_day: 0,
        tz: 'UTC',
        rrule: null,
        exdates: null,
        location: null,
        notes: null,
        attendees: '[]',
        busy: 1,
        task_id: b.task_id,
        plan_id: planId,
        pinned: b.pinned ? 1 : 0,
        cancelled_at: null,
        created_at: t,
        updated_at: t,
      });
      events.push(id);
      created++;
    }
    // A re-plan: the plan's unpinned future blocks left over are cancelled (undo brings them back).
    let cancelled = 0;
    if (input.plan)
      for (const r of ofPlan.values())
        if (!used.has(r.id) && !r.pinned && r.start_ms >= nowMs) {
          cs.update('events', r.id, { cancelled_at: t, updated_at: t });
          cancelled++;
        }
    if (created + moved + cancelled === 0) fail('the plan changes nothing', 'nothing to apply');
    const tasks = new Set(parsed.map((b) => b.task_id)).size;
    const parts = [created && `${created} block${created === 1 ? '' : 's'}`, moved && `${moved} moved`, cancelled && `${cancelled} dropped`].filter(Boolean).join(', ');
    return {
      value: { plan: planId, created, moved, cancelled, kept, events },
      summary: `${input.plan ? 'Re-planned' : 'Planned'} ${tasks} task${tasks === 1 ? '' : 's'} (${parts})`,
      what: { id: planId, name: null, count: created + moved + cancelled },
    };
  });
}

/**
 * Plan blocks that were missed, offered for re-planning (never moved by themselves): blocks that ended in
 * the past (within `sinceMs`) while their task is still open and has no block still to come. Re-planning
 * the task (a block after now) ends the offer; the missed block stays where it was, as history.
 */
export function missedBlocks(db: Db, nowMs: number, sinceMs = nowMs - 7 * DAY): { event_id: string; task_id: string; task: string; plan: string; start: string; end: string }[] {
  return (
    cached(
      db,
      `SELECT e.id, e.task_id, t.content, e.plan_id, e.start_ms, e.end_ms FROM events e JOIN tasks t ON t.id = e.task_id
        WHERE e.plan_id IS NOT NULL AND e.cancelled_at IS NULL AND t.status = 'open' AND e.end_ms <= ? AND e.end_ms > ?
          AND NOT EXISTS (SELECT 1 FROM events f WHERE f.task_id = e.task_id AND f.plan_id IS NOT NULL AND f.cancelled_at IS NULL AND f.end_ms > ?)
        ORDER BY e.start_ms, e.id LIMIT 500`,
    ).all(nowMs, sinceMs, nowMs) as { id: string; task_id: string; content: string; plan_id: string; start_ms: number; end_ms: number }[]
  ).map((r) => ({ event_id: r.id, task_id: r.task_id, task: r.content, plan: r.plan_id, start: new Date(r.start_ms).toISOString(), end: new Date(r.end_ms).toISOString() }));
}

/** The query of plan arguments (the tool's, the card's): times in the zone, settings as they are. */
export function planQuery(args: PlanArgs & { plan?: string }, o: { now: number; zone: string; settings: PlanQuery['settings'] }): PlanQuery {
  return {
    ...(args.task_ids?.length ? { taskIds: args.task_ids } : {}),
    ...(args.filter?.trim() ? { filter: args.filter } : {}),
    fromMs: parseInstant(args.from, o.zone, 'from'),
    toMs: parseInstant(args.to, o.zone, 'to'),
    now: o.now,
    zone: o.zone,
    settings: o.settings,
    ...(args.plan ? { replan: args.plan } : {}),
  };
}

/**
 * A range in words (the CLI): today (from now to midnight), tomorrow, week (today and the next 6 days),
 * or FROM..TO (dates, TO included, or ISO date-times).
 */
export function planRange(words: string | undefined, nowMs: number, zone: string): { fromMs: number; toMs: number } {
  const today = wallAt(nowMs, zone);
  const midnight = (days: number): number => wallToUtc(addDays({ ...today, h: 0, mi: 0, s: 0 }, days), zone);
  const w = (words ?? 'today').trim().toLowerCase();
  if (w === 'today') return { fromMs: nowMs, toMs: midnight(1) };
  if (w === 'tomorrow') return { fromMs: midnight(1), toMs: midnight(2) };
  if (w === 'week') return { fromMs: nowMs, toMs: midnight(7) };
  const m = /^(.+?)\.\.(.+)$/.exec(w);
  if (!m) fail(`${quote(String(words).slice(0, 40))} is not a range`, 'use today, tomorrow, week or FROM..TO, e.g. 2026-12-01..2026-12-05');
  const end = m[2]!.trim();
  const endDay = /^\d{4}-\d{2}-\d{2}$/.test(end) ? parseWall(end) : null;
  return {
    fromMs: parseInstant(m[1]!.trim(), zone, 'from'),
    toMs: endDay ? wallToUtc(addDays(endDay, 1), zone) : parseInstant(end, zone, 'to'),
  };
}

/** A plan in lines for a terminal or an approval question. */
export function planLines(p: ShownPlan, zone: string): string[] {
  const lines: string[] = [];
  let day = '';
  for (const b of p.blocks) {
    const s = Date.parse(b.start);
    const text = shortTime(s, zone);
    if (text.slice(0, 14) !== day) lines.push((day = text.slice(0, 14)));
    lines.push(`  ${text.slice(-5)}–${shortTime(Date.parse(b.end), zone).slice(-5)}  ${b.task} (${b.task_id})${b.pinned ? ' [pinned]' : ''}${b.event_id ? ' [kept]' : ''} — ${b.reason}`);
  }
  if (p.blocks.length === 0) lines.push('Nothing to place.');
  if (p.unplaced.length) {
    lines.push('Not placed:');
    for (const u of p.unplaced) lines.push(`  ${u.task} (${u.task_id}) — ${u.reason}`);
  }
  lines.push(p.summary.text);
  return lines;
}
