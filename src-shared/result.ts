/**
 * Errors are values: what went wrong and what to do instead, for people, and a code (with structured
 * details where a program acts on them) for programs. Agent tools send `{"error", "hint"}` back to the
 * model; the CLI prints `error` (and `hint`) on one line; the UI decides what to offer from `code`.
 */

/**
 * - `refused`: the request was understood and refused (no such task, name taken, …).
 * - `undo_blocked`: later changes touched the same data (details: the blockers); undo them first, or cascade.
 * - `already_undone`: the action is undone already (details: the action that redoes it).
 * - `parent_archived`: the undo would put something into an archived project or list (details: which).
 * - `nothing_to_undo`: no request has changes in effect.
 * - `unknown_tool`, `invalid_arguments`, `declined`, `failed`: a tool call's outcome.
 * - `no_key`, `keychain_unavailable`: the model cannot be reached for lack of a usable API key.
 */
export type FailureCode =
  | 'refused'
  | 'undo_blocked'
  | 'already_undone'
  | 'parent_archived'
  | 'nothing_to_undo'
  | 'unknown_tool'
  | 'invalid_arguments'
  | 'declined'
  | 'failed'
  | 'no_key'
  | 'keychain_unavailable';

/** Structured facts about a failure, by code. */
export interface FailureDetails {
  /** undo_blocked: the later actions in the way (newest first, at most a few), and how many more. */
  blockers?: { id: string; summary: string }[];
  more?: number;
  /** already_undone: the undo entry whose undo is the redo. */
  undoneBy?: string;
  /** parent_archived: the project or list to unarchive first. */
  parent?: { kind: string; id: string; name: string };
  /** Why an undo was refused, in words that do not name the action (the UI shows it beside the entry). */
  why?: string;
}

export interface Failure {
  error: string;
  hint: string;
  code?: FailureCode;
  details?: FailureDetails;
}

export type Result<T> = { ok: true; value: T } | ({ ok: false } & Failure);

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const failure = (error: string, hint: string, code?: FailureCode, details?: FailureDetails): Failure => ({
  error,
  hint,
  ...(code ? { code } : {}),
  ...(details ? { details } : {}),
});
