import type { ActionWhat } from '../../../src-shared/actions';
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
  /** What it did, where the operation's declaration does not say it all (checked or unchecked, a re-import). */
  what?: Partial<Omit<ActionWhat, 'reverses'>>;
}

/** What an operation logs by default: its verb and kind, and the id and name of the thing it returns. */
interface WhatDefault {
  verb: ActionWhat['verb'];
  kind: NonNullable<ActionWhat['kind']>;
}

const LABELS = ['content', 'name', 'title', 'text'] as const;

function whatOfValue(value: unknown, base: WhatDefault, said: MutationBody<unknown>['what']): ActionWhat {
  const o = value !== null && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  const label = LABELS.map((k) => o[k]).find((v): v is string => typeof v === 'string');
  return { ...base, id: typeof o['id'] === 'string' ? o['id'] : null, name: label ?? null, count: 1, reverses: null, ...said };
}

/**
 * Runs a domain change and logs it: the data change and its action row (with the before/after images
 * that undo needs) are written in ONE transaction, or neither is.
 */
export function mutate<T>(
  db: Db,
  ctx: ActionContext,
  tool: string,
  what: WhatDefault,
  args: unknown,
  body: (cs: ChangeSet) => MutationBody<T>,
): Mutated<T> {
  try {
    // IMMEDIATE: the write lock is taken before the first read, so another process (the app, a CLI)
    // committing in between cannot invalidate what this change read (SQLITE_BUSY_SNAPSHOT); it waits instead.
    return db
      .transaction(() => {
        const cs = new ChangeSet(db);
        const { value, summary, what: said } = body(cs);
        const actionId = recordAction(db, ctx, { tool, args, summary, what: whatOfValue(value, what, said), result: value }, cs.changes, cs.spill);
        return { ok: true as const, value, actionId };
      })
      .immediate();
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, ...e.toFailure() };
    throw e;
  }
}
