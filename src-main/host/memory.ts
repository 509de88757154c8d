/**
 * An in-memory transport (VS Code's createProtocolPair): the real dispatcher and hub with no process
 * boundary. Every payload is copied through JSON, as the WebSocket does, so a handler that returns
 * something a real transport could not carry fails here too.
 */
import { createListeners, type Reply, type Transport } from '../../src-shared/bridge';
import type { ChannelName, Input, Output } from '../../src-shared/ipc';
import type { Dispatch } from './dispatch';
import type { EventHub } from './hub';

const copy = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

export interface MemoryTransport extends Transport {
  /** Stops listening to the hub. */
  close(): void;
}

export function createMemoryTransport(dispatch: Dispatch, hub: EventHub): MemoryTransport {
  const listeners = createListeners();
  const stop = hub.subscribe(({ event, payload }) => listeners.emit(event, copy(payload)));
  return {
    async invoke<C extends ChannelName>(channel: C, input: Input<C>) {
      // The dispatcher answers for any channel; the contract says what this one's value is.
      return copy(await dispatch(channel, copy(input))) as Reply<Output<C>>;
    },
    on: (event, listener) => listeners.on(event, listener),
    close: stop,
  };
}
