/** A value fetched through the bridge, with its state; and the one way slices fetch into one. */
import { toProblem, type Problem } from '../lib/problem';
import type { AppState } from './types';

/** `value` keeps the last good data while a refetch runs or after it fails. */
export interface Loadable<T> {
  value: T | null;
  loading: boolean;
  problem: Problem | null;
}

export const idle = <T>(): Loadable<T> => ({ value: null, loading: false, problem: null });
export const loaded = <T>(value: T): Loadable<T> => ({ value, loading: false, problem: null });

/** The keys of the state that hold a Loadable, and what each holds. */
type LoadableKey = { [K in keyof AppState]: AppState[K] extends Loadable<unknown> ? K : never }[keyof AppState];
export type ValueOf<K extends LoadableKey> = AppState[K] extends Loadable<infer T> ? T : never;

type Set = (patch: (s: AppState) => Partial<AppState>) => void;

/**
 * Fetches into `state[key]`: loading while it runs, then the value or the problem. A fetch that answers
 * undefined has nothing to show any more (its view was closed or switched meanwhile) and changes nothing else.
 */
export async function loadInto<K extends LoadableKey>(set: Set, key: K, fetch: () => Promise<ValueOf<K> | undefined>): Promise<void> {
  // The computed key loses the link between K and its value type; each patch keeps the rest of the entry.
  const patch = (change: Partial<Loadable<ValueOf<K>>>) => set((s) => ({ [key]: { ...s[key], ...change } }) as Partial<AppState>);
  patch({ loading: true });
  try {
    const value = await fetch();
    patch(value === undefined ? { loading: false } : { value, loading: false, problem: null });
  } catch (e) {
    patch({ loading: false, problem: toProblem(e) });
  }
}
