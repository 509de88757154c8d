/**
 * Plan blocks as the rest of the domain sees them: completing a task ends its blocks still to come.
 * Domain code (tasks.ts calls it; plan/ builds on it), kept free of the task module's imports.
 */
import type { ChangeSet } from '../actions/changes';
import { isoInZone } from '../calendar/zones';
import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { now as nowText } from './text';

/** The stored columns of a block's times (as book_event stores a timed event: UTC). */
export function blockTimes(startMs: number, endMs: number): Record<string, string | number> {
  return { start: isoInZone(startMs, 'UTC').slice(0, 19), end: isoInZone(endMs, 'UTC').slice(0, 19), start_ms: startMs, end_ms: endMs, until_ms: endMs };
}

/**
 * Completing (or archiving) tasks ends their plan blocks still to come: future ones are cancelled, one
 * under way ends now. Written into the caller's change set, so it is the same action.
 */
export function endPlanBlocks(cs: ChangeSet, db: Db, taskIds: readonly string[], nowMs = Date.now()): number {
  if (taskIds.length === 0) return 0;
  const t = nowText();
  let n = 0;
  const rows = cached(
    db,
    `SELECT id, start_ms, end_ms FROM events WHERE task_id = ? AND plan_id IS NOT NULL AND cancelled_at IS NULL AND end_ms > ?`,
  );
  for (const id of taskIds)
    for (const r of rows.all(id, nowMs) as { id: string; start_ms: number; end_ms: number }[]) {
      if (r.start_ms >= nowMs) cs.update('events', r.id, { cancelled_at: t, updated_at: t });
      else cs.update('events', r.id, { ...blockTimes(r.start_ms, Math.max(r.start_ms + 60_000, Math.floor(nowMs / 60_000) * 60_000)), updated_at: t });
      n++;
    }
  return n;
}

