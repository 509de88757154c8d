import type { EventName, EventPayload } from '../../src-shared/ipc';

/** One event with its payload, discriminated on `event` so a listener can narrow it. */
export type HubMessage = { [E in EventName]: { event: E; payload: EventPayload<E> } }[EventName];
export type HubListener = (message: HubMessage) => void;

/** The events of the IPC contract, fanned out to every connected window and web client. */
export interface EventHub {
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  subscribe(listener: HubListener): () => void;
}

export function createEventHub(onListenerError: (e: unknown) => void = (e) => console.error('tidy: an event listener failed:', e)): EventHub {
  const listeners = new Set<HubListener>();
  return {
    emit(event, payload) {
      const message = { event, payload } as HubMessage;
      for (const l of [...listeners]) {
        // One broken window must not keep the others from hearing the event.
        try {
          l(message);
        } catch (e) {
          onListenerError(e);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
