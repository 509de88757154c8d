/**
 * An operation's input from the words of a command line (`tidy edit t1 --priority p2 --due friday`): the
 * values a person types for a number or a date are read into what the operation's schema takes, then the
 * input is parsed by that schema, so the operation gets what the IPC contract would give it.
 */
import type { z } from 'zod';
import { fail } from '../fail';
import type { AnyOperation } from './operation';
import { normaliseDue, parsePriority, snoozeMinutes } from './tasks';

/** Input keys whose typed words mean a value of another type: "p1" → 1, "60" → 60, "next friday" → 2026-…. */
const FROM_WORDS: Readonly<Record<string, (raw: string, now: Date) => unknown>> = {
  priority: (raw) => parsePriority(raw),
  minutes: (raw) => snoozeMinutes(raw),
  due: (raw, now) => normaliseDue(raw, now),
};

/** The input `op` takes, from the command line's values (strings where a person typed them); a refusal says which value is wrong. */
export function commandInput(op: AnyOperation, raw: Readonly<Record<string, unknown>>, now: Date = new Date()): unknown {
  const input: Record<string, unknown> = { ...raw };
  for (const [key, read] of Object.entries(FROM_WORDS)) {
    const value = input[key];
    if (typeof value === 'string') input[key] = read(value, now);
  }
  const schema: z.ZodType = op.spec.input;
  const parsed = schema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = String(issue.path[0] ?? '');
    const flag = op.spec.cli?.options?.find((o) => o.key === key)?.flag.split(' ')[0];
    const where = flag ?? (key ? `<${key}>` : 'the input');
    fail(`${where}: ${issue.message}`, `see ${op.spec.cli ? `tidy ${op.spec.cli.command} --help` : 'the command\'s --help'}`);
  }
  return parsed.data;
}
