// The messages between the calculator client (main side) and its worker. Types only on the worker
// side; the client parses what comes back with the schema, since the worker handles hostile input.
import { z } from 'zod';

/** Main → worker: evaluate one expression. */
export interface CalcRequest {
  id: number;
  expression: string;
  /** Longest result text the worker may send back; longer values are summarised. */
  maxResultChars: number;
}

/** Worker → main: the outcome of one request, or the one-time signal that mathjs is loaded. */
export const WorkerMessage = z.union([
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('result'), id: z.number(), result: z.string() }),
  z.object({ type: z.literal('failure'), id: z.number(), error: z.string(), hint: z.string() }),
]);
export type WorkerMessage = z.infer<typeof WorkerMessage>;
