/**
 * Sync's status for the window (Settings → Sync and the sidebar's status line), fetched once and again
 * whenever the host says it changed (the `sync` topic: a round started or ended, a change waits to be sent).
 * The window gaining focus asks the host for a round (it runs one only when none ran for a while).
 */
import { useEffect, useState } from 'react';
import type { SyncView } from '../../../src-shared/ipc';
import { api } from '../../api';

type Listener = (s: SyncView) => void;
let current: SyncView | null = null;
const listeners = new Set<Listener>();
let started = false;
let inFlight = false;
let again = false;

function publish(s: SyncView): void {
  current = s;
  for (const l of [...listeners]) l(s);
}

async function refresh(): Promise<void> {
  if (inFlight) {
    again = true;
    return;
  }
  inFlight = true;
  try {
    publish(await api.invoke('sync.status', {}));
  } catch {
    // the status stays as it was; the next change refreshes it
  } finally {
    inFlight = false;
    if (again) {
      again = false;
      void refresh();
    }
  }
}

function start(): void {
  if (started) return;
  started = true;
  api.on('data.changed', ({ topics }) => {
    if (topics.includes('sync') || topics.includes('tasks') || topics.includes('actions')) void refresh();
  });
  window.addEventListener('focus', () => {
    if (current?.on) void api.invoke('sync.now', { focus: true }).then(publish, () => undefined);
  });
  void refresh();
}

/** The status of the moment (null until the first answer). */
export function useSync(): SyncView | null {
  const [s, setS] = useState<SyncView | null>(current);
  useEffect(() => {
    start();
    listeners.add(setS);
    if (current) setS(current);
    return () => void listeners.delete(setS);
  }, []);
  return s;
}

/** Sync now (or unlock with the passphrase, then sync): the status after the round. */
export async function syncNow(): Promise<SyncView> {
  const s = await api.invoke('sync.now', {});
  publish(s);
  return s;
}

export async function unlockSync(passphrase: string, password?: string): Promise<SyncView> {
  const s = await api.invoke('sync.unlock', { passphrase, ...(password ? { password } : {}) });
  publish(s);
  return s;
}
