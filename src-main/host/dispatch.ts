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
import { INPUT_LIMITS, inputShapeProblem, type InputLimits } from '../../src-shared/bounds';

/** The handler of every channel: a plain function of the parsed input. A DomainError is a refusal the user can act on. */
export type Handlers = { [C in ChannelName]: (input: ParsedInput<C>) => Output<C> | Promise<Output<C>> };

export type Dispatch = (channel: unknown, input: unknown) => Promise<Reply>;

export interface DispatchOptions {
  /** Where unexpected errors (bugs) are logged with their stack; the caller only gets one line. */
  log?: (message: string, error: unknown) => void;
  /** Bounds on an input's shape, checked before its schema sees it; the defaults are INPUT_LIMITS. */
  limits?: Partial<InputLimits>;
  /** Waits between attempts of a request that found the database busy (default BUSY_RETRY_MS). */
  busyRetryMs?: readonly number[];
}

/**
 * A request that finds the database locked by another process (its write lock) is tried again after
 * these waits, about 10 s in all. better-sqlite3 waits for a lock by blocking the thread (busy_timeout),
 * so the long-lived hosts open the database with a short busy timeout (store/db.ts busyTimeoutMs) and
 * wait here instead, on a timer: the event loop goes on (other requests, events, the UI) meanwhile. A
 * failed attempt changed nothing (its transaction was rolled back), so trying it again is safe.
 */
export const BUSY_RETRY_MS: readonly number[] = [10, 20, 40, 80, 160, 320, 500, 750, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000];

export function isBusyError(e: unknown): boolean {
  const code = typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
  return /^SQLITE_(BUSY|LOCKED)/.test(code);
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export { INPUT_LIMITS, inputShapeProblem, type InputLimits } from '../../src-shared/bounds';

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
  const retries = options.busyRetryMs ?? BUSY_RETRY_MS;
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
      let value: unknown;
      for (let attempt = 0; ; attempt++) {
        try {
          value = await handler(parsed.data);
          break;
        } catch (e) {
          if (!isBusyError(e)) throw e;
          if (attempt >= retries.length)
            return failed('failed', `the database is busy: another program has been writing to it for ${Math.round(retries.reduce((a, b) => a + b, 0) / 1000)} s; nothing was changed`, 'try again in a moment, or close the other program');
          await wait(retries[attempt]!);
        }
      }
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
