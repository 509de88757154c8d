// The sync round scenarios every target must pass (a folder in test/unit/sync, a real WebDAV server in
// test/integration/sync): set up and join, a wrong passphrase refused, three devices converging, no
// plaintext on the target, and a round killed after every step completing on the next one.
import { expect } from 'vitest';
import { DomainError } from '../../../src-main/core/fail';
import type { KdfParams } from '../../../src-main/core/sync/crypto';
import { HEADER_FILE, parseBatchName } from '../../../src-main/core/sync/layout';
import { SyncDevice, syncRound, type RoundStep } from '../../../src-main/core/sync/round';
import { joinTarget, setupTarget } from '../../../src-main/core/sync/setup';
import type { SyncTarget } from '../../../src-main/core/sync/targets/target';

export const FAST_KDF: KdfParams = { name: 'argon2id', memoryKiB: 64, iterations: 1, parallelism: 1 };
export const T0 = Date.UTC(2035, 0, 1, 12, 0, 0);
export const IDS = ['00000000000000a1', '00000000000000b2', '00000000000000c3'] as const;
export const SECRET_WORDS = ['Dentist', 'Alice', 'ring', 'surprise'];

/** Every file on the target, by path (header + batches). */
export async function allFiles(target: SyncTarget): Promise<Map<string, Uint8Array>> {
  const out = new Map<string, Uint8Array>();
  for (const e of await target.list('')) {
    if (!e.dir) out.set(e.name, (await target.read(e.name))!);
    else for (const f of await target.list(e.name)) if (!f.dir) out.set(`${e.name}/${f.name}`, (await target.read(`${e.name}/${f.name}`))!);
  }
  return out;
}

export const sorted = (d: SyncDevice): [string, unknown][] => [...d.cells].sort(([a], [b]) => (a < b ? -1 : 1));

async function refusal(p: Promise<unknown>): Promise<DomainError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(DomainError);
    return e as DomainError;
  }
  throw new Error('expected a refusal');
}

/** Setup, join, wrong passphrase, three devices converge, no plaintext: returns the devices for more. */
export async function convergeScenario(target: SyncTarget): Promise<SyncDevice[]> {
  const keyA = await setupTarget(target, 'horse battery staple', FAST_KDF);
  expect((await refusal(setupTarget(target, 'other', FAST_KDF))).error).toMatch(/already set up/);
  expect((await refusal(joinTarget(target, 'wrong passphrase'))).error).toBe('Wrong passphrase for this sync target.');
  const keyB = await joinTarget(target, 'horse battery staple');
  const keyC = await joinTarget(target, 'horse battery staple');
  let now = T0;
  const [a, b, c] = [new SyncDevice(IDS[0], keyA, () => now), new SyncDevice(IDS[1], keyB, () => now + 2), new SyncDevice(IDS[2], keyC, () => now - 2)];
  a.change('tasks', 't1', 'content', 'Dentist on Friday');
  a.change('tasks', 't1', 'priority', 2);
  b.change('tasks', 't2', 'content', 'Buy a ring for Alice, surprise');
  now += 1000;
  c.change('tasks', 't1', 'priority', 1); // later than a's: wins
  b.change('tasks', 't1', 'archived', true);
  const first = await syncRound(a, target);
  expect(first).toMatchObject({ sent: 2, batches: 1, received: 0, problems: [] });
  await syncRound(b, target);
  await syncRound(c, target);
  const last = await syncRound(a, target);
  expect(last.problems).toEqual([]);
  expect(last.received).toBe(3);
  await syncRound(b, target);
  await syncRound(c, target);
  expect(sorted(b)).toEqual(sorted(a));
  expect(sorted(c)).toEqual(sorted(a));
  expect(a.cells.size).toBe(4);
  expect(a.cells.get('tasks\u0000t1\u0000priority')?.value).toBe(1);
  // the overwritten value is reported, for "changed on Laptop, overwritten by Desktop"
  const overwrite = last.applied.find((x) => x.message.column === 'priority');
  expect(overwrite?.previous?.value).toBe(2);

  const files = await allFiles(target);
  expect([...files.keys()].sort()).toEqual([HEADER_FILE, `${IDS[0]}/0000000001.batch`, `${IDS[1]}/0000000001.batch`, `${IDS[2]}/0000000001.batch`].sort());
  const everything = Buffer.concat([...files.values()]).toString('latin1');
  for (const w of [...SECRET_WORDS, 'horse battery']) expect(everything).not.toContain(w);
  return [a, b, c];
}

const STEPS: RoundStep[] = ['checked', 'recovered', 'wrote', 'sent', 'merged', 'advanced'];

/** For every step of a round: a round killed right after it leaves both sides consistent and the next round completes. */
export async function killScenario(target: SyncTarget, [a, b]: SyncDevice[]): Promise<void> {
  let n = 0;
  for (const killAt of STEPS) {
    n++;
    a.change('tasks', `k${n}`, 'content', `kill after ${killAt}`);
    b.change('tasks', `k${n}`, 'priority', n % 4);
    await syncRound(b, target);
    const before = a.nextSeq();
    await expect(
      syncRound(a, target, {
        batchMessages: 1, // several batches, so a kill can fall between two of them
        onStep: (s) => {
          if (s === killAt) throw new Error(`killed after ${s}`);
        },
      }),
    ).rejects.toThrow(`killed after ${killAt}`);
    // the target holds whole batch files only: every one readable by b
    const check = await syncRound(b, target);
    expect(check.problems).toEqual([]);
    const again = await syncRound(a, target);
    expect(again.problems).toEqual([]);
    expect(a.outbox).toEqual([]);
    expect(a.nextSeq()).toBeGreaterThan(before);
    await syncRound(b, target);
    expect(sorted(b)).toEqual(sorted(a));
    // a's batches are numbered without gaps or doubles: no message was sent twice under two numbers
    const seqs = (await target.list(a.id)).map((e) => parseBatchName(e.name)).filter((s) => s !== null);
    expect(seqs.sort((x, y) => x - y)).toEqual(Array.from({ length: a.nextSeq() - 1 }, (_, i) => i + 1));
  }
}
