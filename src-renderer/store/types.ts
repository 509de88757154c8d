/** The combined store's type and what every slice is given. Slices are typed against the whole state (zustand's slices pattern). */
import type { Mutate, StateCreator, StoreApi } from 'zustand';
import type { Bridge } from '../../src-shared/bridge';

/**
 * The whole state. It starts empty here: each slice adds itself where it is written, by declaration
 * merging, so the store core names no feature (imports run downward only):
 *
 *   declare module '../../store/types' {
 *     interface AppState extends TasksSlice {}
 *   }
 *
 * app/store.ts composes the slices' creators into the one store.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface AppState {}

/** The middleware applied to the combined store (app/store.ts), in order; slices see their mutators. */
type Mutators = [['zustand/subscribeWithSelector', never], ['zustand/persist', unknown]];

export type SliceCreator<T> = StateCreator<AppState, Mutators, [], T>;

/** What slices depend on, passed in so that tests can give fakes. */
export interface Deps {
  /** The typed bridge (src-renderer/api.ts in the app, a fake in tests). */
  api: Bridge;
  /** Milliseconds since the epoch; tests pin it. */
  now: () => number;
  /**
   * Runs `flush` before the next frame is drawn (requestAnimationFrame in a page). Streamed text pieces
   * wait for it, so pieces arriving faster than the screen refreshes are folded in with one update.
   * Null applies every piece at once (tests without a screen).
   */
  nextFrame: ((flush: () => void) => void) | null;
}

/** The one store, with its middleware (app/store.ts makes it). */
export type AppStore = Mutate<StoreApi<AppState>, Mutators>;
