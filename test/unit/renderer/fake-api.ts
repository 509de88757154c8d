/** A fake bridge for store tests: scripted channel handlers, recorded calls, and events pushed by hand. */
import { BridgeError, type Bridge } from '../../../src-shared/bridge';
import type { ChannelName, EventName, EventPayload, Input, Output } from '../../../src-shared/ipc';

export type FakeHandlers = { [C in ChannelName]?: (input: Input<C>) => Output<C> | Promise<Output<C>> };

export interface FakeApi {
  api: Bridge;
  handlers: FakeHandlers;
  calls: { channel: ChannelName; input: unknown }[];
  callsTo(channel: ChannelName): unknown[];
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
}

export function fakeApi(handlers: FakeHandlers = {}): FakeApi {
  const listeners = new Map<string, Set<(payload: unknown) => void>>();
  const calls: FakeApi['calls'] = [];
  const api: Bridge = {
    async invoke(channel: ChannelName, input?: unknown) {
      calls.push({ channel, input: input ?? {} });
      const handler = handlers[channel] as ((input: unknown) => unknown) | undefined;
      if (!handler) throw new BridgeError('unknown_channel', `the fake has no handler for ${channel}`, 'script it in the test');
      return (await handler(input ?? {})) as never;
    },
    on(event, listener) {
      let set = listeners.get(event);
      if (!set) listeners.set(event, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => set.delete(l);
    },
  };
  return {
    api,
    handlers,
    calls,
    callsTo: (channel) => calls.filter((c) => c.channel === channel).map((c) => c.input),
    emit: (event, payload) => {
      for (const l of listeners.get(event) ?? []) l(payload);
    },
  };
}

/** A promise and its resolve, to hold a fake reply until the test lets it go. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void; reject: (e: unknown) => void } {
  let resolve!: (value: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets pending promise callbacks run. */
export const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
