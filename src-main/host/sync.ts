/**
 * Sync in a long-lived host (the app, `tidy serve`): the background scheduler (core/sync/background.ts)
 * over the host's database of the moment, the key from the OS keychain (or unlocked for this session with
 * the passphrase, held in memory only), and the status the window shows. A round's changes reach every
 * window as `data.changed`; the status as the `sync` topic.
 */
import type { SyncView } from '../../src-shared/ipc';
import { DATA_TOPICS } from '../../src-shared/topics';
import { DomainError, KeychainUnavailableError, type Db, type SecretStore } from '../core';
import { startBackgroundSync, type BackgroundSync, type RoundOutcome } from '../core/sync/background';
import { listSettled } from '../core/sync/kept';
import { keyAccount, listDevices, openTarget, passwordAccount, runSync, targetOf, waitingCounts, waitingText, type TargetSpec } from '../core/sync/service';
import { joinTarget } from '../core/sync/setup';
import { readSyncState } from '../core/sync/store-device';
import type { EventHub } from './hub';

export const UNLOCK_HINT = 'Enter the passphrase in Settings → Sync';
export const SETUP_COMMAND = 'tidy sync setup --folder PATH   (or --webdav URL --user NAME)';

export interface SyncHostOptions {
  db: () => Db;
  secrets: SecretStore;
  hub: EventHub;
  /** Rounds by themselves (on change, timer, focus); false: only on Sync now. */
  auto?: boolean;
  env?: Record<string, string | undefined>;
  /** For tests: the scheduler's timing. */
  debounceMs?: number;
  intervalMs?: number;
}

export interface SyncHost {
  status(): SyncView;
  now(): Promise<SyncView>;
  focus(): SyncView;
  unlock(passphrase: string, password?: string): Promise<SyncView>;
  readonly running: boolean;
  stop(): Promise<void>;
}

interface Problem {
  text: string;
  hint: string;
}

const oneLine = (s: string): string => s.split('\n')[0]!.slice(0, 300);

/** What to do about an error recorded without one (by `tidy sync` in a terminal, or a bug). */
function hintFor(text: string): string {
  if (/passphrase/i.test(text)) return UNLOCK_HINT;
  if (/update Tidy/i.test(text)) return 'Update Tidy on this device';
  if (/clock/i.test(text)) return 'Set this computer’s clock right, then Sync now';
  return 'Check that the sync folder or server can be reached, then Sync now';
}

export function createSyncHost(options: SyncHostOptions): SyncHost {
  const { secrets, hub } = options;
  /** Keys and WebDAV passwords unlocked for this session, by device. */
  const session = new Map<string, { key: Uint8Array; password?: string }>();
  let problem: Problem | null = null;
  /** The device whose key was looked for and not found (the status says what to do). */
  let locked: string | null = null;
  let emitting = false;

  const emit = (topics: readonly string[]): void => {
    emitting = true;
    try {
      hub.emit('data.changed', { topics: [...topics] as never });
    } finally {
      emitting = false;
    }
  };

  const keychain = async (account: string): Promise<string | undefined> => {
    try {
      return await secrets.get(account);
    } catch (e) {
      if (e instanceof KeychainUnavailableError) return undefined;
      throw e;
    }
  };

  async function round(): Promise<RoundOutcome> {
    const db = options.db();
    const state = readSyncState(db);
    if (!state) {
      problem = null;
      locked = null;
      return 'off';
    }
    const spec: TargetSpec = targetOf(state);
    const unlocked = session.get(state.device);
    const saved = unlocked ? undefined : await keychain(keyAccount(state.device));
    const key = unlocked?.key ?? (saved ? new Uint8Array(Buffer.from(saved, 'base64')) : undefined);
    if (!key) {
      locked = state.device;
      problem = null;
      return 'locked';
    }
    locked = null;
    if (spec.kind === 'webdav' && spec.user) spec.password = unlocked?.password ?? (await keychain(passwordAccount(state.device))) ?? options.env?.['TIDY_WEBDAV_PASSWORD'] ?? '';
    try {
      const summary = await runSync(db, key, openTarget(spec));
      problem = summary.problems[0] ? { text: oneLine(summary.problems[0]), hint: hintFor(summary.problems[0]) } : null;
      if (Object.keys(summary.changed).length > 0) emit([...DATA_TOPICS, 'sync']);
      // queued while this round received (a merged text, a conflict's record, an edit meanwhile): the next round soon
      if ((db.prepare(`SELECT COUNT(*) AS n FROM sync_outbox`).get() as { n: number }).n > 0) queueMicrotask(() => bg.changed());
      return 'done';
    } catch (e) {
      problem =
        e instanceof DomainError ? { text: oneLine(e.error), hint: e.hint } : { text: oneLine(e instanceof Error ? e.message : String(e)), hint: hintFor(String(e)) };
      throw e;
    }
  }

  const bg: BackgroundSync = startBackgroundSync({
    round,
    auto: options.auto ?? false,
    ...(options.debounceMs !== undefined ? { debounceMs: options.debounceMs } : {}),
    ...(options.intervalMs !== undefined ? { intervalMs: options.intervalMs } : {}),
    onState: () => emit(['sync']),
  });

  // a change committed here (a request of any window) or by another process: a round soon after
  const dataTopics = new Set<string>(DATA_TOPICS);
  const unsubscribe = hub.subscribe((m) => {
    if (emitting || m.event !== 'data.changed') return;
    if (m.payload.topics.some((t) => dataTopics.has(t))) bg.changed();
  });

  function status(): SyncView {
    const db = options.db();
    const s = readSyncState(db);
    const running = bg.state().running;
    const setup = SETUP_COMMAND;
    if (!s)
      return {
        on: false,
        kind: null,
        target: null,
        user: null,
        name: null,
        device: null,
        lastSyncedAt: null,
        pending: 0,
        waiting: 0,
        waitingText: null,
        renamed: [],
        devices: [],
        running,
        locked: false,
        error: null,
        setup,
      };
    const count = (sql: string): number => (db.prepare(sql).get() as { n: number }).n;
    const isLocked = locked === s.device && !session.has(s.device);
    const waiting = waitingCounts(db);
    const error = isLocked ? null : (problem ?? (s.last_error ? { text: oneLine(s.last_error), hint: hintFor(s.last_error) } : null));
    return {
      on: true,
      kind: s.target_kind,
      target: s.target_url,
      user: s.target_user,
      name: s.name,
      device: s.device,
      lastSyncedAt: s.last_synced_at,
      pending: count(`SELECT COUNT(*) AS n FROM sync_outbox`),
      waiting: waiting.newer + waiting.rows + waiting.refused,
      waitingText: waitingText(waiting),
      renamed: listSettled(db, { limit: 5 }).map((r) => r.text),
      devices: listDevices(db).map((d) => ({ name: d.name ?? `device ${d.device.slice(0, 6)}`, lastSeen: d.lastSeen, self: d.self })),
      running,
      locked: isLocked,
      error,
      setup,
    };
  }

  return {
    status,
    async now() {
      await bg.now();
      return status();
    },
    focus() {
      bg.focus();
      return status();
    },
    async unlock(passphrase, password) {
      const db = options.db();
      const state = readSyncState(db) ?? (() => {
        throw new DomainError('Sync is not set up on this device.', `Set it up in a terminal: ${SETUP_COMMAND}`);
      })();
      const spec = targetOf(state);
      if (spec.kind === 'webdav' && spec.user) spec.password = password ?? (await keychain(passwordAccount(state.device))) ?? '';
      const key = await joinTarget(openTarget(spec), passphrase);
      session.set(state.device, { key, ...(password !== undefined ? { password } : {}) });
      locked = null;
      await bg.now();
      return status();
    },
    get running() {
      return bg.state().running;
    },
    async stop() {
      unsubscribe();
      await bg.stop();
    },
  };
}
