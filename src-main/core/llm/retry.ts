/**
 * When a failed attempt is tried again, and after how long. The SDK's own retries are off (openai.ts
 * says why); here: 429, 5xx, 408/409, timeouts and lost connections are retried up to `maxRetries`
 * times with exponential backoff (0.5 s, 1 s, 2 s … ±25 %, at most 8 s), or after the server's
 * retry-after(-ms); a retry-after longer than `maxRetryWaitMs` fails at once instead of waiting (the
 * error says how long the server asked for); an attempt that already streamed deltas to the caller is
 * never retried, so a live trace never shows the same words twice.
 */
import { isTransient } from './errors';
import { ModelError } from './port';

interface RetryPolicy {
  maxRetries: number;
  maxRetryWaitMs: number;
}

interface AttemptState {
  /** Attempts made so far, this one included. */
  attempts: number;
  /** Retries made so far (attempts that were waits away from the one before). */
  retries: number;
  /** The failed attempt sent deltas to the caller. */
  emitted: boolean;
  /** The failed attempt sent no key. */
  keyless: boolean;
}

/** Wait this long and try again, or fail with this error (its message says why it was not retried). */
type RetryDecision = { waitMs: number } | { error: ModelError };

export function retryDecision(error: ModelError, state: AttemptState, policy: RetryPolicy, random: () => number = Math.random): RetryDecision {
  const after = state.attempts > 1 ? ` (after ${state.attempts} attempts)` : '';
  // Refused while no key was sent: the remedy is to set one, not to fix it (kind no_key, not auth).
  const e = error.status === 401 && state.keyless ? new ModelError(`${error.message} (no API key was sent)`, 'no_key', error.status, error.code, error.details) : error;
  if (state.emitted || !isTransient(error)) return { error: suffixed(e, after) };
  const asked = error.details.retryAfterMs;
  if (asked !== undefined && asked > policy.maxRetryWaitMs) {
    return {
      error: suffixed(e, ` (asked to retry after ${duration(asked)}; this client waits at most ${duration(policy.maxRetryWaitMs)})`),
    };
  }
  if (state.retries >= policy.maxRetries) return { error: suffixed(e, after) };
  const backoff = Math.min(8_000, 500 * 2 ** state.retries) * (0.75 + random() * 0.5);
  return { waitMs: Math.min(asked ?? backoff, policy.maxRetryWaitMs) };
}

function suffixed(error: ModelError, suffix: string): ModelError {
  if (!suffix) return error;
  return new ModelError(error.message + suffix, error.kind, error.status, error.code, error.details);
}

export function duration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
