/**
 * The renderer's one store: typed slices combined, middleware applied once to the whole (zustand's
 * slices pattern), the bridge passed in so that tests run it with a fake and no DOM.
 */
import { createStore } from 'zustand/vanilla';
import { createJSONStorage, persist, subscribeWithSelector, type StateStorage } from 'zustand/middleware';
import { createActionsSlice } from '../features/actions/slice';
import { createCaptureSlice } from '../features/capture/slice';
import { createCalendarSlice } from '../features/calendar/slice';
import { createChatSlice } from '../features/chat/slice';
import { createRoutinesSlice } from '../features/routines/slice';
import { createMemorySlice } from '../features/memory/slice';
import { createDataSlice, createRichSlice, createTasksSlice } from '../features/tasks/slice';
import { createNavSlice } from '../store/nav';
import { createSettingsSlice, createTransferSlice } from '../features/settings/slice';
import type { AppState, AppStore, Deps } from '../store/types';
import { refreshViews } from '../store/views';

export type { AppState, AppStore, Deps } from '../store/types';

interface StoreOptions extends Partial<Omit<Deps, 'api'>> {
  api: Deps['api'];
  /** Where UI preferences (the trace panel open or not) are kept; localStorage in the app, memory in tests. */
  storage?: StateStorage;
}

const memoryStorage = (): StateStorage => {
  const m = new Map<string, string>();
  return { getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
};

/**
 * Writes a key only when its value changed. The persist middleware writes after every state change; in a
 * page that is a synchronous localStorage write on every streamed piece of an answer, for a value (the trace
 * panel open or not) that hardly ever changes.
 */
export function writeOnChange(storage: StateStorage): StateStorage {
  const last = new Map<string, string>();
  return {
    getItem: (k) => storage.getItem(k),
    setItem: (k, v) => {
      if (last.get(k) === v) return;
      last.set(k, v);
      return storage.setItem(k, v);
    },
    removeItem: (k) => {
      last.delete(k);
      return storage.removeItem(k);
    },
  };
}

const animationFrame = (): Deps['nextFrame'] =>
  typeof requestAnimationFrame === 'function' ? (flush) => void requestAnimationFrame(flush) : null;

export function createAppStore(options: StoreOptions): AppStore {
  const deps: Deps = { api: options.api, now: options.now ?? Date.now, nextFrame: options.nextFrame === undefined ? animationFrame() : options.nextFrame };
  const storage = writeOnChange(options.storage ?? memoryStorage());
  return createStore<AppState>()(
    subscribeWithSelector(
      persist(
        (...a) => ({
          ...createNavSlice(...a),
          ...createDataSlice(deps)(...a),
          ...createActionsSlice(deps)(...a),
          ...createSettingsSlice(deps)(...a),
          ...createChatSlice(deps)(...a),
          ...createCaptureSlice(deps)(...a),
          ...createTasksSlice(deps)(...a),
          ...createRichSlice(deps)(...a),
          ...createCalendarSlice(deps)(...a),
          ...createTransferSlice(deps)(...a),
          ...createRoutinesSlice(deps)(...a),
          ...createMemorySlice(deps)(...a),
        }),
        {
          name: 'tidy.ui',
          version: 1,
          storage: createJSONStorage(() => storage),
          partialize: (s) => ({ traceOpen: s.traceOpen, tracePinned: s.tracePinned }),
        },
      ),
    ),
  );
}

/**
 * Wires the store to the bridge's events: data changes refetch what the views show (store/views.ts), agent events fold into
 * their runs. Returns the unsubscribe.
 */
export function connectStore(store: AppStore, api: Deps['api']): () => void {
  const offs = [
    api.on('data.changed', ({ topics }) => void refreshViews(store.getState(), topics)),
    // Sections, comments, labels and filters: shown in several views, refetched once.
    api.on('data.changed', ({ topics }) => void store.getState().refreshRich(topics)),
    api.on('agent.event', (event) => store.getState().receive(event)),
    api.on('reminder.due', ({ task }) => store.getState().receiveReminder(task)),
    api.on('routine.notice', (notice) => store.getState().receiveRoutineNotice(notice)),
  ];
  return () => {
    for (const off of offs) off();
  };
}
