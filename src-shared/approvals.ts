/**
 * Approvals waiting for the user, as rows (src-main/core/agent/approvals.ts): the ones a run waits for in
 * place (the window, `tidy ask`) and the ones a routine's run left behind when it ended waiting. The IPC
 * channels `approvals.list` / `approvals.answer` and `tidy approvals --json` show this shape.
 */
import { z } from 'zod';
import { ApprovalForm } from './events';

/** What the approval card shows beyond the question: for `create_routine`, the schedule in words and the next runs. */
export const ApprovalCard = z.object({
  /** The loop's own id for it inside the run (ap1, ap2…), which `agent.approve` takes. */
  approvalId: z.string(),
  message: z.string(),
  form: ApprovalForm.optional(),
  schedule: z.string().optional(),
  nextRuns: z.array(z.string()).optional(),
});
export type ApprovalCard = z.infer<typeof ApprovalCard>;

export const PendingApproval = z.object({
  /** w4 */
  id: z.string(),
  runId: z.string(),
  conversationId: z.string(),
  tool: z.string(),
  args: z.unknown(),
  card: ApprovalCard,
  /** live: a run waits for it now; detached: its run ended, and answering it goes on in a new run. */
  mode: z.enum(['live', 'detached']),
  routineId: z.string().nullable(),
  createdAt: z.string(),
  decidedAt: z.string().nullable(),
  decision: z.enum(['approve', 'decline', 'always', 'expired']).nullable(),
  /** The run that went on after the answer (detached approvals). */
  continuedRunId: z.string().nullable(),
});
export type PendingApproval = z.infer<typeof PendingApproval>;
