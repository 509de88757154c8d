import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { keyAccount, setupSync } from '../../../src-main/core/sync/service';
import { memoryHost } from '../../support/host';
import { tempDir } from '../../support/db';
import { FAST_KDF } from './scenario';

describe('background sync in a host (the app, tidy serve)', () => {
  it('a change made in the window is sent by itself shortly after; a target gone is an error in one line with what to do', async () => {
    const h = memoryHost(undefined, { sync: { debounceMs: 30, intervalMs: 0 } });
    const folder = tempDir();
    const r = await setupSync(h.db, { kind: 'folder', url: folder }, 'pass phrase', { name: 'Desktop', kdf: FAST_KDF });
    await h.deps.secrets.set(keyAccount(r.device), Buffer.from(r.key).toString('base64'));
    await h.call('tasks.add', { content: 'Water the plants' });
    await expect.poll(async () => (await h.call('sync.status', {})).lastSyncedAt, { timeout: 20_000, interval: 50 }).not.toBeNull();
    expect((await h.call('sync.status', {})).pending).toBe(0);

    rmSync(folder, { recursive: true, force: true });
    await h.call('tasks.add', { content: 'Feed the cat' });
    await expect.poll(async () => (await h.call('sync.status', {})).error, { timeout: 20_000, interval: 50 }).not.toBeNull();
    const s = await h.call('sync.status', {});
    expect(s.error!.text).not.toContain('\n');
    expect(s.error!.hint.length).toBeGreaterThan(0);
    expect(s.pending).toBeGreaterThan(0);
  });
});
