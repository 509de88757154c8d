/** A host of the IPC contract over one database: the handlers, the dispatcher and the event hub that both transports share. */
import type { Db } from '../core';
import { DATABASE_TOPICS } from '../../src-shared/topics';
import { cancelRun, createLiveRuns } from '../core/agent';
import { createDispatch, type Dispatch } from './dispatch';
import { createHandlers, createRoutineHost, type HostDeps } from './handlers';
import { startScheduler } from '../core/routines';
import { createSessionSecretStore } from '../core';
import { createEventHub, type EventHub } from './hub';
import { startReminders, type ReminderOptions } from '../core/reminders';

/**
 * The busy timeout of a long-lived host's connection (the app, `tidy serve`): a statement that finds
 * another process's write lock gives up after this, and the request waits on a timer and is tried again
 * (dispatch.ts BUSY_RETRY_MS) instead of blocking the event loop for seconds.
 */
export const HOST_BUSY_TIMEOUT_MS = 20;

export interface Host {
  readonly hub: EventHub;
  readonly dispatch: Dispatch;
  /** Stops watching the database, cancels the runs going on and waits (a few seconds at most) until they have ended. */
  close(): Promise<void>;
}

export interface HostOptions {
  /** How often to look for changes other processes (the `tidy` CLI) committed; 0 turns it off. */
  watchMs?: number;
  /** Announce tasks whose due time comes as `reminder.due` events (the app and `tidy serve`; off in tests unless asked). */
  reminders?: boolean | ReminderOptions;
  /** Run routines when they are due (the app and `tidy serve`; off in tests unless asked). `intervalMs`: how often to look. */
  routines?: boolean | { intervalMs?: number };
}

export function createHost(deps: HostDeps, options: HostOptions = {}): Host {
  const hub = createEventHub();
  const live = createLiveRuns();
  // One session store for the handlers and the routine runner, so a key kept for this session serves both.
  const withSession = { ...deps, session: deps.session ?? createSessionSecretStore() };
  const dispatch = createDispatch(createHandlers({ ...withSession, hub, live }), hub);
  const scheduler = options.routines
    ? startScheduler(createRoutineHost({ ...withSession, hub, live }), {
        ...(options.routines === true ? {} : options.routines),
        onError: (e) => hub.emit('routine.notice', { kind: 'failed', routineId: '', routineName: '', text: `routines could not run: ${e instanceof Error ? e.message : String(e)}` }),
      })
    : null;
  const reminders = options.reminders
    ? startReminders(deps.db, (task) => hub.emit('reminder.due', { task }), options.reminders === true ? {} : options.reminders)
    : null;
  const stopWatching =
    options.watchMs === 0 ? () => {} : watchExternalChanges(deps.db, () => hub.emit('data.changed', { topics: [...DATABASE_TOPICS] }), options.watchMs);
  return {
    hub,
    dispatch,
    async close() {
      stopWatching();
      reminders?.stop();
      scheduler?.stop();
      for (const runId of [...live.keys()]) cancelRun({ live }, runId);
      // A cancelled run still writes its end to the trace: leave the database open until it has.
      for (const deadline = Date.now() + 5000; live.size > 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 20));
    },
  };
}

/**
 * Calls `changed` when another connection (the CLI, a second host) commits to the database.
 * SQLite's data_version changes exactly then, and not for this connection's own writes.
 * https://www.sqlite.org/pragma.html#pragma_data_version
 */
export function watchExternalChanges(db: Db, changed: () => void, everyMs = 1000): () => void {
  const version = (): number => db.pragma('data_version', { simple: true }) as number;
  let last = version();
  const timer = setInterval(() => {
    if (!db.open) return;
    const now = version();
    if (now !== last) {
      last = now;
      changed();
    }
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
