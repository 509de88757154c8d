import type { Command } from 'commander';
import type { CliSpec } from '../../../src-shared/operation-spec';
import { OPERATION_IMPLEMENTATIONS } from '../../core/domain';
import { commandInput } from '../../core/domain/command-input';
import type { AnyOperation } from '../../core/domain/operation';
import { attempt } from '../../core/fail';
import { change, usage, type Cli } from '../context';
import { resolveTaskRef } from '../task-ref';

/** "a, b or c" */
const either = (words: string[]): string => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`);

/** The input of an operation from the command line: positional words, then options, over the spec's defaults. */
function inputOf(spec: CliSpec, values: unknown[], options: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = { ...spec.defaults };
  spec.args.forEach((arg, i) => {
    const v = values[i];
    input[arg.key] = Array.isArray(v) ? v.join(' ') : v;
  });
  for (const o of spec.options ?? []) {
    const given = options[camel(o.flag)];
    if (given !== undefined) input[o.key] = o.value !== undefined ? o.value : given;
  }
  return input;
}

/** Commander's property name for a flag: `--archive-item <x>` → `archiveItem`. */
const camel = (flag: string): string => flag.replace(/^--/, '').split(' ')[0]!.replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

/**
 * The by-hand commands, one per logged operation that declares its CLI spelling (src-shared/operations.ts).
 * Two-word commands (`project rename`) go under their first word. Every change prints what it did and the
 * action id to undo it by.
 */
export function registerOperationCommands(program: Command, cli: Cli, operations: readonly AnyOperation[] = OPERATION_IMPLEMENTATIONS): void {
  const groups = new Map<string, Command>();
  for (const op of operations) {
    const spec = op.spec.cli;
    if (!spec) continue;
    const words = spec.command.split(' ');
    let parent = program;
    if (words.length === 2) {
      const group = groups.get(words[0]!) ?? program.command(words[0]!);
      groups.set(words[0]!, group);
      parent = group;
    }
    const command = parent.command(words.at(-1)!).description(spec.help);
    for (const arg of spec.args) command.argument(arg.rest ? `<${arg.key}...>` : `<${arg.key}>`, arg.help);
    for (const o of spec.options ?? []) command.option(o.flag, o.help);
    command.action((...received: unknown[]) => {
      const values = received.slice(0, spec.args.length);
      const options = (received[spec.args.length] ?? {}) as Record<string, unknown>;
      const input = inputOf(spec, values, options);
      if (spec.needsOneOf && spec.needsOneOf.every((k) => input[k] === undefined)) {
        const flags = (spec.options ?? []).filter((o) => spec.needsOneOf!.includes(o.key)).map((o) => o.flag.split(' ')[0]!);
        throw usage('nothing to change', `give ${either(flags)}`);
      }
      // <TASK> is an id or unambiguous text (tidy done "Buy milk").
      if (spec.args.some((a) => a.key === 'task') && typeof input['task'] === 'string')
        input['task'] = resolveTaskRef(cli.db(), input['task'], spec.command === 'reopen' ? 'closed' : 'open');
      // Typed words ("p1", "next friday") are read and the input checked by the operation's schema first.
      change(cli, (db, ctx) => {
        const parsed = attempt(() => commandInput(op, input));
        return parsed.ok ? op(db, ctx, parsed.value) : parsed;
      });
    });
  }
  for (const [name, group] of groups) {
    group.description(`${name} commands: ${group.commands.map((c) => c.name()).join(', ')}`);
  }
}
