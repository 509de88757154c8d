/**
 * What a logged change's declaration is made of (operations.ts holds the declarations): its name in the
 * action log, its IPC channel, its input and output schemas, the views it makes stale, and how the `tidy`
 * command spells it; and the shapes its inputs are built from (ids, references by id or name, text).
 */
import { z } from 'zod';
import { TOPICS } from './topics';
import type { ActionVerb } from './actions';
import type { EntityKind } from './entities';

/** Which views may be stale after a change (the list: src-shared/topics.ts). */
export const Topic = z.enum(TOPICS);
export type Topic = z.infer<typeof Topic>;

// Ids and references. Their real rules (does the task exist, is the name free) live in the core, which
// answers with an error and a hint; the contract only bounds the shapes.
export const Id = z.string().trim().min(1).max(64);
/** A project or list by id or by name. */
export const Ref = z.string().trim().min(1).max(200);
export const Name = z.string().max(500);
export const Text = z.string().max(20_000);

export const Named = z.object({ id: z.string(), name: z.string() });

/** A positional argument of the CLI command: fills input key `key`; `rest` takes the remaining words, joined by spaces. */
interface CliArg {
  key: string;
  help: string;
  rest?: boolean;
}

/** An option of the CLI command: `--flag <value>` fills `key` with the text; a bare `--flag` sets `key` to `value`. */
export interface CliOption {
  flag: string;
  key: string;
  help: string;
  value?: unknown;
}

/** How the `tidy` command spells an operation (the command names are public: README.md, "The command line"). */
export interface CliSpec {
  /** Words after `tidy`: 'move', 'project rename', 'list archive-item'. */
  command: string;
  help: string;
  args: readonly CliArg[];
  options?: readonly CliOption[];
  /** At least one of these input keys must be given (a usage error otherwise). */
  needsOneOf?: readonly string[];
  /** Input values when the command line does not say otherwise. */
  defaults?: Record<string, unknown>;
}

interface OperationSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** The action log's name for the change (`tool` of the entry), e.g. 'move_task'. */
  name: string;
  /** The IPC channel, e.g. 'tasks.move'. */
  channel: string;
  /** What it does to what, for the action log's `what` (the body may say another verb: checked/unchecked). */
  verb: ActionVerb;
  kind: EntityKind;
  input: I;
  /** The changed thing, as the operation returns it. */
  output: O;
  /** The views the change makes stale (the action log always is). */
  changes: readonly Topic[];
  cli?: CliSpec;
}

/** Declares one operation, keeping its channel's literal type. */
export const spec = <const C extends string, I extends z.ZodType, O extends z.ZodType>(s: OperationSpec<I, O> & { channel: C }) => s;

/** The IPC output of a logged change: the new value, and the action id to undo it by. */
export const mutationOutput = <T extends z.ZodType>(value: T) => z.object({ value, actionId: z.string() });
