// Background sync: when a long-lived host (the app, `tidy serve`) runs sync rounds by itself. A round runs
// shortly after the last local change (debounced), on a timer, when the window gains focus, and on "Sync
// now"; never two at once (a trigger during a round asks for one more round after it); a failed round
// backs off (30 s, 1 min, 2 min, 5 min, then every 15 min) until one succeeds or the user asks. The
// clock and the round are injected: the scheduler itself touches neither the database nor the target.

/** What a round found: ran (synced or failed inside), sync off on this database, or no key to sync with. */
export type RoundOutcome = 'done' | 'off' | 'locked';

export interface Timers {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // a pending round never keeps a process alive
    (t as { unref?: () => void }).unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface BackgroundOptions {
  /** One round: resolves with its outcome, rejects when it failed (the scheduler then backs off). */
  round: () => Promise<RoundOutcome>;
  timers?: Timers;
  /** Wait after the last local change (default 2 s). */
  debounceMs?: number;
  /** A round at least this often while sync is on (default 5 min); 0: no timer. */
  intervalMs?: number;
  /** Focus starts a round only when none ran for this long (default 30 s): switching windows is not a reason to sync each time. */
  focusAfterMs?: number;
  /** Waits after 1, 2, 3… failed rounds in a row; the last repeats. */
  backoffMs?: readonly number[];
  /** Whether changes, focus and the timer start rounds (false: only `now()`). */
  auto?: boolean;
  /** Called whenever `state()` may have changed (a round started or ended). */
  onState?: () => void;
}

export interface BackgroundState {
  running: boolean;
  /** Failed rounds in a row. */
  failures: number;
  /** When the next round is due by a timer (ms), or null. */
  nextAt: number | null;
  lastRunAt: number | null;
  lastOutcome: RoundOutcome | 'failed' | null;
}

export interface BackgroundSync {
  /** A local change was committed: a round soon after the last one. */
  changed(): void;
  /** The window gained focus. */
  focus(): void;
  /** "Sync now": a round as soon as none runs (backoff or not); resolves when that round has ended. */
  now(): Promise<RoundOutcome | 'failed'>;
  state(): BackgroundState;
  /** Stops every timer; resolves once a running round has ended. */
  stop(): Promise<void>;
}

export const DEFAULT_BACKOFF_MS: readonly number[] = [30_000, 60_000, 120_000, 300_000, 900_000];

export function startBackgroundSync(options: BackgroundOptions): BackgroundSync {
  const timers = options.timers ?? realTimers;
  const debounceMs = options.debounceMs ?? 2_000;
  const intervalMs = options.intervalMs ?? 300_000;
  const focusAfterMs = options.focusAfterMs ?? 30_000;
  const backoff = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const auto = options.auto ?? true;
  let timer: unknown = null;
  let nextAt: number | null = null;
  let running: Promise<void> | null = null;
  let again = false;
  let failures = 0;
  let stopped = false;
  let lastRunAt: number | null = null;
  let lastOutcome: BackgroundState['lastOutcome'] = null;
  /** Callers of now() waiting for the next round to end. */
  let waiters: ((o: RoundOutcome | 'failed') => void)[] = [];

  const notify = (): void => {
    try {
      options.onState?.();
    } catch {
      // a listener's failure is not the scheduler's
    }
  };

  /** Sets the one timer to fire at `at` (an earlier one already set wins unless `force`). */
  const schedule = (delay: number, force = false): void => {
    if (stopped) return;
    const at = timers.now() + delay;
    if (!force && nextAt !== null && nextAt <= at) return;
    if (timer !== null) timers.clearTimeout(timer);
    nextAt = at;
    timer = timers.setTimeout(() => {
      timer = null;
      nextAt = null;
      start();
    }, delay);
  };

  const backoffDelay = (): number => backoff[Math.min(failures, backoff.length) - 1] ?? intervalMs;

  /** After a round: the next one by the timer (or backoff), or at once when asked for during it. */
  const after = (): void => {
    if (stopped) return;
    if (again) {
      again = false;
      if (waiters.length > 0) return start();
      if (failures === 0) return schedule(debounceMs, true);
    }
    if (failures > 0) schedule(backoffDelay(), true);
    else if (auto && intervalMs > 0 && lastOutcome !== 'off') schedule(intervalMs, true);
    else if (timer !== null) {
      timers.clearTimeout(timer);
      timer = null;
      nextAt = null;
    }
  };

  function start(): void {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (timer !== null) {
      timers.clearTimeout(timer);
      timer = null;
      nextAt = null;
    }
    const mine = waiters;
    waiters = [];
    running = (async () => {
      let outcome: RoundOutcome | 'failed';
      try {
        outcome = await options.round();
        failures = 0;
      } catch {
        outcome = 'failed';
        failures++;
      }
      lastRunAt = timers.now();
      lastOutcome = outcome;
      running = null;
      for (const w of mine) w(outcome);
      after();
      notify();
    })();
    notify();
  }

  // a first round soon after the host starts: what other devices sent while it was away
  if (auto) schedule(debounceMs);

  return {
    changed() {
      if (!auto || stopped) return;
      if (running) {
        again = true;
        return;
      }
      // while backing off, a change waits for the backoff (the target or the network is not there)
      if (failures > 0) return;
      schedule(debounceMs, true);
    },
    focus() {
      if (!auto || stopped || running || failures > 0) return;
      if (lastRunAt !== null && timers.now() - lastRunAt < focusAfterMs) return;
      start();
    },
    now() {
      if (stopped) return Promise.resolve('off' as const);
      const p = new Promise<RoundOutcome | 'failed'>((resolve) => waiters.push(resolve));
      if (running) again = true;
      else start();
      return p;
    },
    state: () => ({ running: running !== null, failures, nextAt, lastRunAt, lastOutcome }),
    async stop() {
      stopped = true;
      if (timer !== null) timers.clearTimeout(timer);
      timer = null;
      nextAt = null;
      const r = running;
      if (r) await r;
      for (const w of waiters.splice(0)) w('off');
    },
  };
}
