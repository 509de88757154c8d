/**
 * Plans (issue 31) as the contract shows them: the tool `plan_tasks`, `tidy plan --json`, the approval
 * card. Times are ISO 8601 with the offset of the user's zone.
 */
import { z } from 'zod';

const PlanBlock = z.object({
  task_id: z.string(),
  /** The task's text (for reading; the id is what counts). */
  task: z.string(),
  start: z.string(),
  end: z.string(),
  /** Why it landed there, in one line. */
  reason: z.string(),
  pinned: z.boolean().optional(),
  late: z.boolean().optional(),
  /** A block that exists already (kept as it is). */
  event_id: z.string().optional(),
});
type PlanBlock = z.infer<typeof PlanBlock>;

export const ShownPlan = z.object({
  from: z.string(),
  to: z.string(),
  blocks: z.array(PlanBlock),
  unplaced: z.array(z.object({ task_id: z.string(), task: z.string(), reason: z.string() })),
  summary: z.object({ neededMin: z.number(), freeMin: z.number(), unplacedMin: z.number(), overloaded: z.boolean(), text: z.string() }),
  plan: z.string().optional(),
});
export type ShownPlan = z.infer<typeof ShownPlan>;

const When = z.string().trim().min(10).max(40);
const Id = z.string().trim().min(1).max(40);

/** A block as the user sends it back from the card (dropped blocks are left out). */
export const PlanBlockEdit = z.strictObject({ task_id: Id, start: When, end: When, pinned: z.boolean().optional(), event_id: Id.optional() });
export type PlanBlockEdit = z.infer<typeof PlanBlockEdit>;

/** What a plan is asked for: tasks by id or filter (neither: due or with a deadline by `to`), in [from, to). */
export const PlanArgs = z.strictObject({
  task_ids: z.array(Id).max(500).optional(),
  filter: z.string().max(2000).optional(),
  from: When,
  to: When,
});
export type PlanArgs = z.infer<typeof PlanArgs>;

/** The tool's arguments: the request, and (from the approval card) the blocks as the user left them, and the plan re-planned. */
export const PlanToolArgs = PlanArgs.extend({ blocks: z.array(PlanBlockEdit).max(2000).optional(), plan: Id.optional() });
export type PlanToolArgs = z.infer<typeof PlanToolArgs>;
