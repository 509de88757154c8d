// The folder target (write-new-only, atomic, hostile names and files) and whole sync rounds through it.
import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../../src-main/core/fail';
import { SyncDevice, syncRound } from '../../../src-main/core/sync/round';
import { setupTarget } from '../../../src-main/core/sync/setup';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { convergeScenario, FAST_KDF, IDS, killScenario } from './scenario';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tidy-sync-folder-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('folder target', () => {
  it('writes new files only, never overwriting, and leaves no temp file behind', async () => {
    const t = new FolderTarget(dir);
    expect(await t.writeNew(`${IDS[0]}/0000000001.batch`, new Uint8Array([1, 2, 3]))).toBe('written');
    expect(await t.writeNew(`${IDS[0]}/0000000001.batch`, new Uint8Array([9]))).toBe('exists');
    expect(await t.read(`${IDS[0]}/0000000001.batch`)).toEqual(new Uint8Array([1, 2, 3]));
    expect(readdirSync(join(dir, IDS[0]))).toEqual(['0000000001.batch']);
    expect(await t.read('nothing.batch')).toBeNull();
    expect(await t.list('nowhere')).toEqual([]);
    await t.remove(`${IDS[0]}/0000000001.batch`);
    await t.remove(`${IDS[0]}/0000000001.batch`);
    expect(await t.list(IDS[0])).toEqual([]);
  });

  it('refuses unsafe paths, skips hostile names and links in listings, and refuses a huge file', async () => {
    const t = new FolderTarget(join(dir, 'target'));
    mkdirSync(join(dir, 'target'));
    writeFileSync(join(dir, 'outside.txt'), 'secret');
    for (const bad of ['../outside.txt', '/etc/passwd', 'a/../../outside.txt', '.hidden', 'a/b/c', '', 'a\\..\\b']) {
      await expect(t.read(bad)).rejects.toThrow(/unsafe path/);
      await expect(t.writeNew(bad, new Uint8Array(1))).rejects.toThrow(/unsafe path/);
    }
    writeFileSync(join(dir, 'target', '.tmp-partial'), 'x');
    writeFileSync(join(dir, 'target', 'bad name;rm'), 'x');
    symlinkSync(join(dir, 'outside.txt'), join(dir, 'target', 'link.batch'));
    writeFileSync(join(dir, 'target', 'big.batch'), Buffer.alloc(2048));
    expect(await t.list('')).toEqual([{ name: 'big.batch', dir: false }]);
    await expect(t.read('link.batch')).rejects.toThrow(); // O_NOFOLLOW: a link is not followed out of the folder
    const err = await t.read('big.batch', 1024).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).error).toMatch(/larger than/);
  });
});

describe('sync rounds through a folder', () => {
  it('sets up, joins, refuses a wrong passphrase, converges three devices, stores no plaintext', async () => {
    await convergeScenario(new FolderTarget(dir));
  });

  it('completes on the next round after a kill after any step', async () => {
    const t = new FolderTarget(dir);
    const devices = await convergeScenario(t);
    await killScenario(t, devices);
  });

  it('receives in order and waits at a gap (a file the synced folder has not delivered yet)', async () => {
    const t = new FolderTarget(dir);
    const [a, b] = await convergeScenario(t);
    a!.change('tasks', 'g', 'content', 'two');
    await syncRound(a!, t); // batch 2
    a!.change('tasks', 'g', 'content', 'three');
    await syncRound(a!, t); // batch 3
    const second = join(dir, a!.id, '0000000002.batch');
    renameSync(second, join(dir, 'held')); // batch 2 is "still on its way"
    const r = await syncRound(b!, t);
    expect(r.received).toBe(0);
    expect(b!.cells.get('tasks\u0000g\u0000content')).toBeUndefined();
    renameSync(join(dir, 'held'), second);
    await syncRound(b!, t);
    expect(b!.cells.get('tasks\u0000g\u0000content')?.value).toBe('three');
    expect(b!.cursors.get(a!.id)).toBe(3);
  });

  it('reports a tampered or foreign batch as a problem and still syncs the other devices', async () => {
    const t = new FolderTarget(dir);
    const [a, b, c] = await convergeScenario(t);
    a.change('tasks', 'x', 'content', 'from a');
    c.change('tasks', 'y', 'content', 'from c');
    await syncRound(a, t);
    await syncRound(c, t);
    writeFileSync(join(dir, a!.id, '0000000003.batch'), 'not ours at all');
    writeFileSync(join(dir, a!.id, '0000000002.batch'), Buffer.alloc(100, 7)); // overwrite a's real batch 2 (a hostile store)
    mkdirSync(join(dir, 'ffffffffffffffff'));
    writeFileSync(join(dir, 'ffffffffffffffff', '0000000001.batch'), Buffer.alloc(10));
    writeFileSync(join(dir, 'README.txt'), 'not a device');
    const r = await syncRound(b!, t);
    expect(r.problems).toHaveLength(2);
    expect(r.problems.join('\n')).toMatch(/not a Tidy batch|integrity/);
    expect(b!.cells.get('tasks\u0000y\u0000content')?.value).toBe('from c');
    expect(b!.cells.get('tasks\u0000x\u0000content')).toBeUndefined();
    expect(b!.cursors.get(a!.id)).toBe(1); // not past the bad file: restored, it is read next time
  });

  it('refuses a target set up again with another passphrase, and one with no header', async () => {
    const t = new FolderTarget(dir);
    const [a] = await convergeScenario(t);
    rmSync(join(dir, 'tidy-sync.json'));
    await expect(syncRound(a!, t)).rejects.toThrow(/not set up for sync/);
    const other = new SyncDevice(IDS[0], new Uint8Array(32));
    await setupTarget(t, 'another passphrase', FAST_KDF);
    await expect(syncRound(a!, t)).rejects.toThrow(/another passphrase/);
    await expect(syncRound(other, t)).rejects.toThrow(/another passphrase/);
  });
});
