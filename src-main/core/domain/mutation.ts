import type { Failure } from '../../../src-shared/result';
import { ChangeSet } from '../actions/changes';
import { recordAction, type ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import { DomainError } from '../fail';

export type Mutated<T> = { ok: true; value: T; actionId: string } | ({ ok: false } & Failure);

export interface MutationBody<T> {
  value: T;
  /** The change in words, as the action log shows it: "Moved 'Bake the cake' to Birthday". */
  summary: string;
}

/**
 * Runs a domain change and logs it: the data change and its action row (with the before/after images
 * that undo needs) are written in ONE transaction, or neither is.
 */
export function mutate<T>(
  db: Db,
  ctx: ActionContext,
  tool: string,
  args: unknown,
  body: (cs: ChangeSet) => MutationBody<T>,
): Mutated<T> {
  try {
    // IMMEDIATE: the write lock is taken before the first read, so another process (the app, a CLI)
    // committing in between cannot invalidate what this change read (SQLITE_BUSY_SNAPSHOT); it waits instead.
    return db
      .transaction(() => {
        const cs = new ChangeSet(db);
        const { value, summary } = body(cs);
        const actionId = recordAction(db, ctx, { tool, args, summary, result: value }, cs.changes);
        return { ok: true as const, value, actionId };
      })
      .immediate();
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, ...e.toFailure() };
    throw e;
  }
}
