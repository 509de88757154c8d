/** A failure as the UI shows it: what went wrong, and what to do about it. */
import { BridgeError, type ErrorCode } from '../../src-shared/bridge';
import type { FailureCode, FailureDetails } from '../../src-shared/result';

export interface Problem {
  message: string;
  hint: string;
  code: ErrorCode | 'client';
  /** For a refused request: what kind of refusal, and its structured facts (what the UI offers depends on them). */
  reason?: FailureCode;
  details?: FailureDetails;
}

/** Any rejection of the bridge (or a bug in the UI) as something the user can read and act on. */
export function toProblem(e: unknown): Problem {
  if (e instanceof BridgeError)
    return { message: e.message, hint: e.hint, code: e.code, ...(e.reason ? { reason: e.reason } : {}), ...(e.details ? { details: e.details } : {}) };
  const message = e instanceof Error ? e.message : String(e);
  return { message, hint: 'try again; if it keeps happening, restart Tidy', code: 'client' };
}

/** A problem as one line (a notice, an error by a field): what went wrong — what to do. */
export const problemLine = (p: Pick<Problem, 'message' | 'hint'>): string => (p.hint ? `${p.message} — ${p.hint}` : p.message);
