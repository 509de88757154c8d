/** Routines as the window and `tidy routines list --json` see them (src-main/core/domain/routines.ts). */
import { z } from 'zod';

const RoutineRunStatus = z.enum(['running', 'done', 'error', 'cancelled', 'limit', 'waiting', 'skipped']);
const RoutineRunKind = z.enum(['scheduled', 'catch_up', 'skipped', 'manual', 'continued']);

/** One run of a routine (or an occurrence recorded as skipped). */
export const RoutineRun = z.object({
  routineId: z.string(),
  occurrence: z.string(),
  kind: RoutineRunKind,
  claimedAt: z.string(),
  claimedBy: z.string(),
  runId: z.string().nullable(),
  status: RoutineRunStatus,
  message: z.string().nullable(),
  finishedAt: z.string().nullable(),
});
export type RoutineRun = z.infer<typeof RoutineRun>;

export const RoutineInfo = z.object({
  id: z.string(),
  name: z.string(),
  request: z.string(),
  schedule: z.string(),
  rrule: z.string(),
  tz: z.string(),
  conversation: z.enum(['routine', 'new']),
  tools: z.array(z.string()).nullable(),
  enabled: z.boolean(),
  catchUp: z.enum(['once', 'skip']),
  /** Its own limits; null: the settings' (maxActions, timeLimitSec). */
  maxActions: z.number().int().nullable(),
  timeLimitSec: z.number().int().nullable(),
  /** The next three runs (ISO 8601, UTC); none while paused. */
  nextRuns: z.array(z.string()),
  lastRun: RoutineRun.nullable(),
  failures: z.number().int(),
});
export type RoutineInfo = z.infer<typeof RoutineInfo>;

/** A routine's notice as the `routine.notice` event carries it. */
export interface RoutineNoticeLike {
  kind: 'changed' | 'waiting' | 'paused' | 'failed';
  routineId: string;
  routineName: string;
  text: string;
  runId?: string;
  approvalId?: string;
}

/** A system notification: its title and body (one line each, bounded) and a tag (the same run's replace each other). */
export interface SystemNotice {
  title: string;
  body: string;
  tag: string;
}

const TITLE_CHARS = 80;
const BODY_CHARS = 200;
// Control characters and bidi overrides: a routine's name or a run's message (which can quote the model) must not reorder or hide text.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;
const oneLine = (text: string, max: number): string => {
  const t = text.replace(UNSAFE, ' ').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
};

/**
 * Whether a routine's notice becomes a system notification, and with which words: a run that changed
 * something, one that waits for an answer, and a routine paused after failing; not a failure of the
 * scheduler itself (no routine: the window says it) nor a single failed run (its history says it; three in
 * a row pause it, which notifies), nor while Tidy's window is in front (its notice says it). The desktop app (Electron's Notification) and the web window (the
 * browser's, when allowed) both use it.
 */
export function routineNotification(n: RoutineNoticeLike, where: { windowInFront?: boolean } = {}): SystemNotice | null {
  // A window in front shows the notice itself: a system notification would say it twice.
  if (where.windowInFront || !n.routineId || n.kind === 'failed') return null;
  const name = oneLine(n.routineName, TITLE_CHARS - 30) || 'A routine';
  const title =
    n.kind === 'changed' ? `${name} changed things` : n.kind === 'waiting' ? `${name} waits for your answer` : `${name} was paused`;
  const body =
    n.kind === 'changed'
      ? 'Open Routines to see what it changed and undo it.'
      : n.kind === 'waiting'
        ? 'It asks before a change: answer it in Routines or with tidy approvals.'
        : oneLine(n.text, BODY_CHARS);
  return { title: oneLine(title, TITLE_CHARS), body, tag: `tidy-routine-${n.routineId}-${n.runId ?? n.approvalId ?? n.kind}` };
}
