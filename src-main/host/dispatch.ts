/**
 * One request through the contract, whatever the transport: the channel is checked, the input's size
 * and nesting bounded, the input parsed with its schema (an invalid payload changes nothing), the
 * handler run, its failure turned into a reply, and a `data.changed` event emitted for the views the
 * channel can make stale. A dispatch never rejects: whatever goes wrong becomes a reply.
 */
import type { z } from 'zod';
import { failed, type Reply } from '../../src-shared/bridge';
import { channels, isChannelName, type ChannelDef, type ChannelName, type Output, type ParsedInput } from '../../src-shared/ipc';
import { DomainError } from '../core';
import type { EventHub } from './hub';

/** The handler of every channel: a plain function of the parsed input. A DomainError is a refusal the user can act on. */
export type Handlers = { [C in ChannelName]: (input: ParsedInput<C>) => Output<C> | Promise<Output<C>> };

export type Dispatch = (channel: unknown, input: unknown) => Promise<Reply>;

export interface DispatchOptions {
  /** Where unexpected errors (bugs) are logged with their stack; the caller only gets one line. */
  log?: (message: string, error: unknown) => void;
  /** Bounds on an input's shape, checked before its schema sees it; the defaults are INPUT_LIMITS. */
  limits?: Partial<InputLimits>;
}

/** How big and how deep a request's input may be before any schema walks it. */
export interface InputLimits {
  /** Levels of arrays and objects inside one another (the input itself is level 1). */
  maxDepth: number;
  /** Values in all: every object, array (counting its length) and primitive. */
  maxNodes: number;
  /** Characters in all strings, object keys included. */
  maxChars: number;
}

/**
 * The contract's inputs are at most three levels deep and hold a few dozen values and some 20,000
 * characters of text; these limits leave ample room. They exist because the schemas recurse (zod walks
 * `z.json()` values recursively): a value nested a few thousand levels overflows the stack, and a
 * structured clone from Electron can be cyclic or a sparse array of length 2^32 - 1.
 */
export const INPUT_LIMITS: InputLimits = { maxDepth: 32, maxNodes: 10_000, maxChars: 1_000_000 };

/**
 * What is wrong with the shape of `value` (too deep, too many values, too much text), or null when it
 * is within `limits`. Iterative, so no nesting can overflow the stack, and it stops at the first
 * excess, so its cost is bounded by the limits whatever the input. It descends into arrays and plain
 * objects, which are all that JSON and the schemas hold; any other object (Map, Date, typed array) is
 * one value the schemas refuse without looking inside.
 */
export function inputShapeProblem(value: unknown, limits: InputLimits = INPUT_LIMITS): string | null {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  let chars = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    nodes++;
    if (typeof v === 'string') chars += v.length;
    if (chars > limits.maxChars) return `it holds more than ${limits.maxChars.toLocaleString('en')} characters of text`;
    if (nodes > limits.maxNodes) return `it holds more than ${limits.maxNodes.toLocaleString('en')} values`;
    if (typeof v !== 'object' || v === null) continue;
    const isArray = Array.isArray(v);
    const proto: unknown = Object.getPrototypeOf(v);
    if (!isArray && proto !== Object.prototype && proto !== null) continue;
    if (depth > limits.maxDepth) return `it is nested more than ${limits.maxDepth} levels deep`;
    if (isArray) {
      // A schema walks every index up to length, holes included: count them all before walking any.
      if (nodes + v.length > limits.maxNodes) return `it holds more than ${limits.maxNodes.toLocaleString('en')} values`;
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i] as unknown, depth + 1]);
    } else {
      const keys = Object.keys(v);
      if (nodes + keys.length > limits.maxNodes) return `it holds more than ${limits.maxNodes.toLocaleString('en')} values`;
      for (const k of keys) {
        chars += k.length;
        stack.push([(v as Record<string, unknown>)[k], depth + 1]);
      }
    }
  }
  return null;
}

/** An error's message, whatever was thrown (even a value whose toString throws). */
export function errorText(e: unknown): string {
  try {
    return e instanceof Error ? e.message : String(e);
  } catch {
    return 'an error that cannot be shown';
  }
}

export function describeIssues(error: z.ZodError): string {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path.length ? i.path.join('.') : 'input'}: ${i.message}`);
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return shown.join('; ') + more;
}

export function createDispatch(handlers: Handlers, hub: EventHub, options: DispatchOptions = {}): Dispatch {
  const log = options.log ?? ((message, error) => console.error(`tidy: ${message}`, error));
  const limits = { ...INPUT_LIMITS, ...options.limits };
  return async (channel, input) => {
    try {
      if (!isChannelName(channel)) {
        const shown = typeof channel === 'string' ? JSON.stringify(channel.slice(0, 80)) : typeof channel;
        return failed('unknown_channel', `there is no channel ${shown}`, 'use a channel of the IPC contract (src-shared/ipc.ts)');
      }
      const problem = inputShapeProblem(input, limits);
      if (problem) return failed('invalid_input', `invalid input for ${channel}: ${problem}`, 'nothing was changed; send the input the contract describes');
      const def: ChannelDef = channels[channel];
      const parsed = def.input.safeParse(input);
      if (!parsed.success) return failed('invalid_input', `invalid input for ${channel}: ${describeIssues(parsed.error)}`, 'nothing was changed; send the input the contract describes');
      const handler = handlers[channel] as (input: unknown) => unknown;
      const value = await handler(parsed.data);
      if (def.changes) hub.emit('data.changed', { topics: [...def.changes] });
      return { ok: true, value };
    } catch (e) {
      if (e instanceof DomainError) return { ...failed('failed', e.error, e.hint), reason: e.code, ...(e.details ? { details: e.details } : {}) };
      const name = typeof channel === 'string' ? channel.slice(0, 100) : 'a request';
      try {
        log(`${name} failed unexpectedly`, e);
      } catch {
        // A failing log must not turn the reply into a rejection.
      }
      return failed('internal', `${name} failed unexpectedly: ${errorText(e)}`, 'this is a bug in Tidy; the details are in its log');
    }
  };
}
