import type { z } from 'zod';
import { OPERATIONS, type AnyOperationSpec, type OperationChannel, type SpecOf } from '../../../src-shared/operations';
import type { ChangeSet } from '../actions/changes';
import type { ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import { mutate, type MutationBody, type Mutated } from './mutation';

/**
 * A domain operation: its declaration (src-shared/operations.ts) and the change it makes, written through
 * a change set so that the data change and its action row (with the before/after images undo applies) are
 * one transaction. Callable as `op(db, ctx, input)`. Its input is checked by the domain itself, with an
 * error and a hint a person or a model can act on; the IPC contract checks shapes before that.
 */
interface Operation<S extends AnyOperationSpec = AnyOperationSpec, I = never, T = z.output<S['output']>> {
  (db: Db, ctx: ActionContext, input: I): Mutated<T>;
  readonly spec: S;
}

/** The declaration of an operation, by its channel. */
function operationSpec<C extends OperationChannel>(channel: C): SpecOf<C> {
  const spec = OPERATIONS.find((s) => s.channel === channel);
  if (!spec) throw new Error(`no operation declared for ${channel}`);
  return spec as SpecOf<C>;
}

/** An operation's input as its own schema gives it (src-shared/operations.ts): what every caller passes. */
export type OperationInput<C extends OperationChannel> = z.output<SpecOf<C>['input']>;

/**
 * The operation on `channel`, its body given the input its schema parses to. Hosts parse with the schema
 * (the IPC contract, the CLI's `operationInput`); the agent's tools build the same shape from theirs.
 */
export function implement<C extends OperationChannel, T extends z.output<SpecOf<C>['output']>>(
  channel: C,
  body: (cs: ChangeSet, input: OperationInput<C>, db: Db) => MutationBody<T>,
): Operation<SpecOf<C>, OperationInput<C>, T> {
  return implementWith<object>()(channel, body);
}

/**
 * `implement`, for an operation some callers give more than its schema holds: `X` is what a host adds
 * itself (the agent's `remember` says which conversation and run a memory came from). The IPC contract's
 * parse drops keys its schema does not name, so a window cannot send them.
 */
export function implementWith<X extends object>() {
  return <C extends OperationChannel, T extends z.output<SpecOf<C>['output']>>(
    channel: C,
    body: (cs: ChangeSet, input: OperationInput<C> & X, db: Db) => MutationBody<T>,
  ): Operation<SpecOf<C>, OperationInput<C> & X, T> => {
    const spec = operationSpec(channel);
    const run = (db: Db, ctx: ActionContext, input: OperationInput<C> & X): Mutated<T> =>
      mutate(db, ctx, spec.name, { verb: spec.verb, kind: spec.kind }, input, (cs) => body(cs, input, db));
    return Object.assign(run, { spec });
  };
}

/** Any operation, with its input erased (hosts parse inputs with the spec before calling it). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<AnyOperationSpec, any, unknown>;
