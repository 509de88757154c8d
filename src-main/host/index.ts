/** A host of the IPC contract over one database: the handlers, the dispatcher and the event hub that both transports share. */
import type { Db } from '../core';
import { DATABASE_TOPICS } from '../../src-shared/topics';
import { cancelRun, createLiveRuns } from '../core/agent';
import { createDispatch, type Dispatch, type Handlers } from './dispatch';
import { createHandlers, createRoutineHost, type HostDeps } from './handlers';
import { createUploads } from './uploads';
import { createToolServices } from '../core/agent';
import { restoreDatabase, type RestoreResult } from '../core/data';
import { lockHolders } from '../core/store/lock';
import { StoreError } from '../core/store/db';
import { fail } from '../core';
import { startScheduler } from '../core/routines';
import { createSessionSecretStore } from '../core';
import { createEventHub, type EventHub } from './hub';
import { startReminders, type ReminderOptions } from '../core/reminders';
import { createSyncHost, type SyncHost } from './sync';

/**
 * The busy timeout of a long-lived host's connection (the app, `tidy serve`): a statement that finds
 * another process's write lock gives up after this, and the request waits on a timer and is tried again
 * (dispatch.ts BUSY_RETRY_MS) instead of blocking the event loop for seconds.
 */
export const HOST_BUSY_TIMEOUT_MS = 20;

export interface Host {
  readonly hub: EventHub;
  readonly dispatch: Dispatch;
  /** The database of the moment: a restore from the window closes the one the host was given and opens the restored file. */
  readonly db: Db;
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
  /**
   * Opens the database file again, the way the host's was opened: given, the window may restore a backup
   * (`data.restore`); without it, that channel refuses and points at `tidy restore`.
   */
  reopen?: () => Db;
  /** The better-sqlite3 binding the database was opened with (the desktop app's), for the restore's own opens. */
  nativeBinding?: string;
  /**
   * Sync in the background while sync is on (the app and `tidy serve`): after a change, on a timer, on focus.
   * Without it (tests) a round runs only on Sync now.
   */
  sync?: boolean | { debounceMs?: number; intervalMs?: number };
}

export function createHost(deps: HostDeps, options: HostOptions = {}): Host {
  const hub = createEventHub();
  const live = createLiveRuns();
  // One session store, upload store and tool services for the host's life, across a restore: a key kept for
  // this session serves the handlers and the routine runner, before and after.
  const lasting = { ...deps, session: deps.session ?? createSessionSecretStore(), uploads: deps.uploads ?? createUploads(), services: deps.services ?? createToolServices() };
  let db = deps.db;
  let handlers: Handlers;
  let stopServices: () => void = () => {};
  // One sync for the host's life, over the database of the moment (a key unlocked for this session outlives a restore).
  const sync: SyncHost = createSyncHost({
    db: () => db,
    secrets: deps.secrets,
    hub,
    auto: Boolean(options.sync),
    env: deps.env ?? {},
    ...(typeof options.sync === 'object' ? options.sync : {}),
  });

  /** The handlers, routines, reminders and watch over the database of the moment. */
  const start = (): void => {
    const current = { ...lasting, db, hub, live, sync, ...(options.reopen ? { restore } : {}), ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) };
    handlers = createHandlers(current);
    const scheduler = options.routines
      ? startScheduler(createRoutineHost(current), {
          ...(options.routines === true ? {} : options.routines),
          onError: (e) => hub.emit('routine.notice', { kind: 'failed', routineId: '', routineName: '', text: `routines could not run: ${e instanceof Error ? e.message : String(e)}` }),
        })
      : null;
    const reminders = options.reminders
      ? startReminders(db, (task) => hub.emit('reminder.due', { task }), options.reminders === true ? {} : options.reminders)
      : null;
    const stopWatching =
      options.watchMs === 0 ? () => {} : watchExternalChanges(db, () => hub.emit('data.changed', { topics: [...DATABASE_TOPICS] }), options.watchMs);
    stopServices = () => {
      stopWatching();
      reminders?.stop();
      scheduler?.stop();
    };
  };

  /**
   * Replaces the database with the checked file `path` (host/restore.ts staged it): the host's connection is
   * closed, the file swapped by the same path `tidy restore` takes (store lock, the current file kept aside),
   * and the database opened again, whatever happened. Refused, changing nothing, while a request of this
   * host runs or another Tidy process has the database open.
   */
  function restore(path: string): RestoreResult {
    const reopen = options.reopen;
    if (!reopen || db.name === ':memory:' || db.name === '')
      return fail('this window cannot restore its database', 'quit Tidy and run: tidy restore <file>');
    if (live.size > 0) return fail('a request is still running; nothing was restored', 'wait for it to finish (or stop it), then restore again');
    if (sync.running) return fail('a sync round is running; nothing was restored', 'wait a moment for it to end, then restore again');
    const dbPath = db.name;
    const others = lockHolders(dbPath).filter((h) => h.pid !== process.pid);
    if (others.length > 0) {
      const who = others.slice(0, 3).map((h) => `${h.name} (pid ${h.pid})`).join(', ');
      return fail(`the database is open in ${who}; nothing was restored`, 'close that program, then restore again');
    }
    stopServices();
    db.close();
    let result: RestoreResult | undefined;
    let problem: unknown;
    try {
      result = restoreDatabase(path, dbPath, new Date(), options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
    } catch (e) {
      problem = e;
    }
    // Opened again either way: a refused restore left the file as it was.
    db = reopen();
    start();
    if (problem instanceof StoreError) return fail(problem.message.split('\n')[0]!, 'nothing was restored; close the other Tidy or pick another file');
    if (problem !== undefined) throw problem;
    return result!;
  }

  start();
  // The handlers of the moment: a restore makes new ones over the new connection.
  const dispatch = createDispatch(new Proxy({} as Handlers, { get: (_, channel) => handlers[channel as keyof Handlers] }), hub);
  return {
    hub,
    dispatch,
    get db() {
      return db;
    },
    async close() {
      stopServices();
      await sync.stop();
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
function watchExternalChanges(db: Db, changed: () => void, everyMs = 1000): () => void {
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
