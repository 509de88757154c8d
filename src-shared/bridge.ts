/**
 * The typed client of the IPC contract. A transport (the Electron preload, the WebSocket client, the
 * in-memory pair of the tests) carries requests and replies as envelopes; `createBridge` turns any of
 * them into the API the UI uses, where a failed request rejects with a BridgeError.
 *
 * Pure and zod-free at run time (the contract is imported as types only), so the renderer can use it.
 */
import type { ChannelName, EventName, EventPayload, Input, Output } from './ipc';
import type { FailureCode, FailureDetails } from './result';

/**
 * Why a request failed:
 * - `failed`: the request was understood and refused (no such task, name taken, …): show error and hint.
 * - `invalid_input`: the payload does not match the contract; nothing was changed.
 * - `unknown_channel`: the channel is not in the contract.
 * - `forbidden`: the caller is not allowed (foreign frame, missing token).
 * - `disconnected`: the transport is down (web host stopped, page opened without its token).
 * - `internal`: a bug on the main side; the details are in its log.
 */
export type ErrorCode = 'failed' | 'invalid_input' | 'unknown_channel' | 'forbidden' | 'disconnected' | 'internal';

export interface Failed {
  ok: false;
  code: ErrorCode;
  error: string;
  hint: string;
  /** For a `failed` request: what kind of refusal (src-shared/result.ts), and its structured facts. */
  reason?: FailureCode;
  details?: FailureDetails;
}

/** The envelope every transport carries back for a request. */
export type Reply<T = unknown> = { ok: true; value: T } | Failed;

type Unsubscribe = () => void;

/** What a transport offers. The preload's `window.tidy` and the WebSocket client both are one. */
export interface Transport {
  invoke<C extends ChannelName>(channel: C, input: Input<C>): Promise<Reply<Output<C>>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): Unsubscribe;
}

/** Channels whose input may be left out entirely (every field optional). */
type InputArgs<C extends ChannelName> = object extends Input<C> ? [input?: Input<C>] : [input: Input<C>];

/** The API the UI uses: `await api.invoke('tasks.list', { project: 'inbox' })`, `api.on('data.changed', …)`. */
export interface Bridge {
  invoke<C extends ChannelName>(channel: C, ...input: InputArgs<C>): Promise<Output<C>>;
  on<E extends EventName>(event: E, listener: (payload: EventPayload<E>) => void): Unsubscribe;
}

/** A request that failed: `message` is what went wrong, `hint` what to do instead. */
export class BridgeError extends Error {
  override name = 'BridgeError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint: string,
    readonly reason?: FailureCode,
    readonly details?: FailureDetails,
  ) {
    super(message);
  }
}

export const failed = (code: ErrorCode, error: string, hint: string): Failed => ({ ok: false, code, error, hint });

/** The listeners of a transport's events, by event name: what its `on` adds to and what it calls when an event comes. */
export function createListeners() {
  const byEvent = new Map<string, Set<(payload: unknown) => void>>();
  return {
    on(event: string, listener: (payload: never) => void): Unsubscribe {
      let set = byEvent.get(event);
      if (!set) byEvent.set(event, (set = new Set()));
      const l = listener as (payload: unknown) => void;
      set.add(l);
      return () => {
        set.delete(l);
      };
    },
    emit(event: string, payload: unknown): void {
      for (const l of [...(byEvent.get(event) ?? [])]) l(payload);
    },
    /** Whether anyone listens to anything. */
    any: (): boolean => [...byEvent.values()].some((set) => set.size > 0),
  };
}

export function createBridge(transport: Transport): Bridge {
  return {
    async invoke<C extends ChannelName>(channel: C, ...args: InputArgs<C>): Promise<Output<C>> {
      const reply = await transport.invoke(channel, (args[0] ?? {}) as Input<C>);
      if (reply.ok) return reply.value;
      throw new BridgeError(reply.code, reply.error, reply.hint, reply.reason, reply.details);
    },
    on: (event, listener) => transport.on(event, listener),
  };
}
