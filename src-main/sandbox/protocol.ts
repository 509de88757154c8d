// The messages between the calculator client (the app's process) and the calculator's child process,
// over the IPC channel of child_process.fork. Types only on the child's side; the client parses what
// comes back with the schema, since the child handles hostile input.
import { z } from 'zod';

/** App → calculator: evaluate one expression. */
export interface CalcRequest {
  id: number;
  expression: string;
  /** Longest result text the calculator may send back; longer values are summarised. */
  maxResultChars: number;
  /**
   * The call's time limit. The app stops the process when it passes; the calculator also stops the
   * evaluation itself a little later, so a call never runs on unowned if the app has gone.
   */
  timeoutMs: number;
}

/** Calculator → app: the outcome of one request, or the one-time signal that mathjs is loaded. */
export const WorkerMessage = z.union([
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('result'), id: z.number(), result: z.string() }),
  z.object({ type: z.literal('failure'), id: z.number(), error: z.string(), hint: z.string() }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
