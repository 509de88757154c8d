/**
 * Errors are values: what went wrong and what to do instead. Agent tools send a Failure back to the
 * model verbatim as `{"error": "...", "hint": "..."}`; the CLI prints `error` (and `hint`) on one line.
 */
export interface Failure {
  error: string;
  hint: string;
}

export type Result<T> = { ok: true; value: T } | ({ ok: false } & Failure);

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const failure = (error: string, hint: string): Failure => ({ error, hint });
