/** Routines as the window and `tidy routines list --json` see them (src-main/core/domain/routines.ts). */
import { z } from 'zod';

export const RoutineRunStatus = z.enum(['running', 'done', 'error', 'cancelled', 'limit', 'waiting', 'skipped']);
export const RoutineRunKind = z.enum(['scheduled', 'catch_up', 'skipped', 'manual', 'continued']);

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
  /** The next three runs (ISO 8601, UTC); none while paused. */
  nextRuns: z.array(z.string()),
  lastRun: RoutineRun.nullable(),
  failures: z.number().int(),
});
export type RoutineInfo = z.infer<typeof RoutineInfo>;
