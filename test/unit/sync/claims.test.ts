// Routine claims: with sync on, a routine runs on one device at a time. Two devices, one routine, both due:
// each claims before it has seen the other's claim, the claims meet in a round, and exactly one runs.
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src-main/core';
import { createLiveRuns, TOOLS, type AgentDeps } from '../../../src-main/core/agent';
import { addRoutine } from '../../../src-main/core/domain/routines';
import { routineHistory, runDue, type RoutineHost } from '../../../src-main/core/routines';
import { routineClaim } from '../../../src-main/core/routines/claims';
import { runSync, setupSync } from '../../../src-main/core/sync/service';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { tempDb, tempDir, userCtx } from '../../support/db';
import { say, ScriptedModel } from '../../fakes/scripted-model';
import { FAST_KDF } from './scenario';

const local = (y: number, mo: number, d: number, h = 0, mi = 0): number => new Date(y, mo - 1, d, h, mi).getTime();

function host(db: Db, clock: { t: number }, owner: string): RoutineHost {
  const deps: AgentDeps = { db, tools: TOOLS, live: createLiveRuns(), createModel: () => new ScriptedModel([say('Watered.')]) };
  return { db, deps: () => Promise.resolve(deps), now: () => clock.t, owner, claims: { settleMs: 0, leaseMs: 36 * 3_600_000 } };
}

describe('routine claims', () => {
  it('two devices, one routine, both due: one run, and the other says which device runs it', async () => {
    const folder = tempDir();
    const target = new FolderTarget(folder);
    const a = tempDb().db;
    const b = tempDb().db;
    const keys = new Map<Db, Uint8Array>([
      [a, (await setupSync(a, { kind: 'folder', url: folder }, 'pass', { name: 'Laptop', kdf: FAST_KDF })).key],
      [b, (await setupSync(b, { kind: 'folder', url: folder }, 'pass', { name: 'Desktop', kdf: FAST_KDF })).key],
    ]);
    const sync = async (...dbs: Db[]): Promise<void> => {
      for (const db of dbs) expect((await runSync(db, keys.get(db)!, target)).problems).toEqual([]);
    };
    const routine = addRoutine(a, userCtx(a), { name: 'Water', request: 'remind me to water the plants', schedule: 'every day at 8am' }, new Date(local(2035, 1, 1)));
    if (!routine.ok) throw new Error(routine.error);
    await sync(a, b, a);
    const clock = { t: local(2035, 1, 1, 8, 1) };
    const ha = host(a, clock, 'Laptop test');
    const hb = host(b, clock, 'Desktop test');

    // both due, neither has seen the other's claim: each claims and waits for a round
    expect(await runDue(ha)).toEqual([]);
    expect(await runDue(hb)).toEqual([]);
    expect(routineClaim(a, routine.value.id, clock.t, { settleMs: 0 })).toEqual({ run: false, reason: 'wait' });
    await sync(a, b, a);
    const ran = [...(await runDue(ha)), ...(await runDue(hb))];
    expect(ran.filter((r) => r.status !== 'skipped').map((r) => r.status)).toEqual(['done']);
    const runs = [...routineHistory(a, routine.value.id), ...routineHistory(b, routine.value.id)];
    expect(runs.filter((r) => r.kind === 'scheduled')).toHaveLength(1);
    const winner = runs.find((r) => r.kind === 'scheduled')!.claimedBy.startsWith('Laptop') ? 'Laptop' : 'Desktop';
    const skipped = runs.find((r) => r.kind === 'skipped')!;
    expect(skipped.message).toBe(`runs on ${winner}, which holds this routine`);
    // nothing more is due on either device for that occurrence
    expect([...(await runDue(ha)), ...(await runDue(hb))]).toEqual([]);

    // the next day the holder runs it at once, the other again leaves it
    clock.t = local(2035, 1, 2, 8, 1);
    await sync(a, b);
    const next = [...(await runDue(ha)), ...(await runDue(hb))];
    expect(next.filter((r) => r.status === 'done')).toHaveLength(1);

    // the holder renewed its claim (36 h here) and then stops syncing: once the claim expires, the other device claims the routine and runs it
    const [holder, other, hOther] = winner === 'Laptop' ? [a, b, hb] : [b, a, ha];
    await sync(holder, other);
    clock.t = local(2035, 1, 3, 8, 1);
    expect((await runDue(hOther)).map((r) => r.status)).toEqual(['skipped']); // the renewed claim still holds
    expect(routineHistory(other, routine.value.id)[0]!.message).toBe(`runs on ${winner}, which holds this routine`);
    clock.t = local(2035, 1, 4, 8, 1);
    expect(await runDue(hOther)).toEqual([]); // expired: claims, waits for a round
    await sync(other);
    expect((await runDue(hOther)).map((r) => r.status)).toEqual(['done']);
  });

  it('with sync off a due routine runs as before', () => {
    const { db } = tempDb();
    expect(routineClaim(db, 'o1', Date.now())).toEqual({ run: true });
  });
});
