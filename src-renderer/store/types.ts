/** The combined store's type and what every slice is given. Slices are typed against the whole state (zustand's slices pattern). */
import type { StateCreator } from 'zustand';
import type { Bridge } from '../../src-shared/bridge';
import type { ActionsSlice } from './actions';
import type { CaptureSlice } from './capture';
import type { CalendarSlice } from './calendar';
import type { ChatSlice } from './chat';
import type { DataSlice } from './data';
import type { NavSlice } from './nav';
import type { SettingsSlice } from './settings';
import type { TasksSlice } from './tasks';
import type { TransferSlice } from './transfer';

export type AppState = NavSlice & DataSlice & ActionsSlice & SettingsSlice & ChatSlice & CaptureSlice & TasksSlice & CalendarSlice & TransferSlice;

/** The middleware applied to the combined store (store/index.ts), in order; slices see their mutators. */
export type Mutators = [['zustand/subscribeWithSelector', never], ['zustand/persist', unknown]];

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
