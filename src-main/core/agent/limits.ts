import type { StopReason } from '../../../src-shared/events';

/**
 * When a run must stop, as predicates rather than flags spread through the loop: the loop asks them before
 * every tool call, with the call it is about to make already counted. The first one that answers ends the
 * run with status `limit`.
 */

/** One tool call as the predicates see it: the tool and its arguments as canonical JSON. */
export interface CallRecord {
  tool: string;
  args: string;
}

export interface LoopState {
  /** Every call of the run so far, the pending one last. */
  calls: readonly CallRecord[];
  elapsedMs: number;
}

/** Why the run must stop: which limit (for programs) and one line (for people), e.g. "reached the limit of 20 actions". */
export interface Stop {
  reason: StopReason;
  message: string;
}

/** Null to go on. */
export type StopPredicate = (state: LoopState) => Stop | null;

export const actionLimit =
  (max: number): StopPredicate =>
  (s) =>
    s.calls.length > max ? { reason: 'actions', message: `reached the limit of ${max} actions` } : null;

/** The same call with the same arguments `times` times in a row is a loop: the model is not making progress. */
export const repeatedCall =
  (times = 3): StopPredicate =>
  (s) => {
    const last = s.calls.slice(-times);
    if (last.length < times || !last.every((c) => c.tool === last[0]!.tool && c.args === last[0]!.args)) return null;
    return { reason: 'loop', message: `${last[0]!.tool} was called ${times} times in a row with the same arguments (a loop)` };
  };

export const timeLimitMessage = (ms: number): string => `reached the time limit of ${ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`}`;

/**
 * Checked between steps; the run's AbortSignal (which merges this limit with the user's cancel) is what
 * interrupts a model call or tool that is still going when the time is up.
 */
export const timeLimit =
  (ms: number): StopPredicate =>
  (s) =>
    s.elapsedMs >= ms ? { reason: 'time', message: timeLimitMessage(ms) } : null;

export interface Limits {
  /** Tool calls allowed per request (settings maxActions). */
  maxActions: number;
  /** Milliseconds allowed per request (settings timeLimitSec × 1000). */
  timeLimitMs: number;
  /** Messages of earlier turns sent to the model; the current request's steps are always sent (settings historyLength). */
  historyLength: number;
  /** Tokens a request may use before the run's oldest tool results are shortened (settings contextTokens). */
  contextTokens: number;
}

export const DEFAULT_LIMITS: Limits = { maxActions: 20, timeLimitMs: 120_000, historyLength: 15, contextTokens: 16_000 };

export const defaultStops = (limits: Limits): StopPredicate[] => [actionLimit(limits.maxActions), repeatedCall(3), timeLimit(limits.timeLimitMs)];

/** JSON with object keys sorted, so `{a, b}` and `{b, a}` count as the same arguments. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}
