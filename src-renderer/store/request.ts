/**
 * The one way the renderer calls the bridge and reports a failure. A refusal (or a bug) becomes a
 * Problem: its code, what went wrong and what to do.
 *
 *   // An inline error, where a field or a form owns it:
 *   const problem = await attempt(() => api.invoke('projects.rename', { id, name }));
 *   // A notice, for a button that has no field to put it by (the value, or undefined after the notice):
 *   const r = await request(get, () => api.invoke('tasks.complete', { task }));
 */
import { toProblem, type Problem } from '../lib/problem';
import type { NavSlice } from './nav';

/** What a call answered, or why it did not. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; problem: Problem };

/** Runs a call; its answer, or the problem for the caller to show where it belongs. */
export async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (e) {
    return { ok: false, problem: toProblem(e) };
  }
}

/** Runs a call (then `then` with its answer); null when it worked, else the problem for an inline error. */
export async function attempt<T>(run: () => Promise<T>, then?: (value: T) => void): Promise<Problem | null> {
  const r = await outcome(run);
  if (!r.ok) return r.problem;
  then?.(r.value);
  return null;
}

/**
 * Runs a call whose failure has no field to be shown by: a refusal is told in an error notice (its code,
 * message and hint; `words` may say it better for this call). The answer, or undefined after the notice.
 */
export async function request<T>(
  store: () => Pick<NavSlice, 'notifyProblem'>,
  run: () => Promise<T>,
  words?: (p: Problem) => Problem,
): Promise<Outcome<T>> {
  const r = await outcome(run);
  if (!r.ok) store().notifyProblem(words ? words(r.problem) : r.problem);
  return r;
}
