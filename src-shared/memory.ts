/**
 * Memories: short facts the user keeps for the agent ("groceries go to Errands"), each for every request or
 * for one project's, with where it came from. Seen, edited and forgotten on the Memory page, with
 * `tidy memory …`, or by the agent's `remember`/`update_memory`/`forget` tools — every change logged and
 * undoable like any other.
 */
import { z } from 'zod';

/** A memory is a short fact, not a document. */
export const MAX_MEMORY_CHARS = 500;

export const Memory = z.object({
  id: z.string(),
  text: z.string(),
  /** null: it applies everywhere; else the project whose requests it applies to. */
  projectId: z.string().nullable(),
  project: z.string().nullable(),
  /** Where it came from: the conversation and the request (agent run) that made it; both null when the user wrote it by hand. */
  conversationId: z.string().nullable(),
  runId: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** When it was last put in a request's prompt (null: never yet). */
  lastUsedAt: z.string().nullable(),
  /** Forgotten (archived): undo brings it back. */
  archivedAt: z.string().nullable(),
});
export type Memory = z.infer<typeof Memory>;

/** What the prompt carried at a request's start: how many memories applied, and how many the budget left out. */
export const MemoryBudgetReport = z.object({ applied: z.number().int(), included: z.number().int(), left: z.number().int(), tokens: z.number().int() });
export type MemoryBudgetReport = z.infer<typeof MemoryBudgetReport>;
