// Three devices making random changes and syncing through one folder in random orders, some rounds killed
// after a random step: once every device has synced after the last change, all hold the same cells, and
// each cell holds the change with the latest stamp — nothing lost that last-writer-wins does not overwrite.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cellKey, type Message } from '../../../src-main/core/sync/messages';
import { SyncDevice, syncRound, type RoundStep } from '../../../src-main/core/sync/round';
import { setupTarget } from '../../../src-main/core/sync/setup';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { FAST_KDF, IDS, sorted, T0 } from './scenario';

type Step = { kind: 'change'; dev: number; row: number; column: number; value: string | number | null; advance: number } | { kind: 'sync'; dev: number; kill: RoundStep | null };

const STEPS: RoundStep[] = ['checked', 'recovered', 'wrote', 'sent', 'merged', 'advanced'];
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('change' as const), dev: fc.nat(2), row: fc.nat(2), column: fc.nat(1), value: fc.oneof(fc.string({ maxLength: 3 }), fc.nat(9), fc.constant(null)), advance: fc.integer({ min: -500, max: 1500 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sync' as const), dev: fc.nat(2), kill: fc.option(fc.constantFrom(...STEPS), { freq: 3 }) }) },
);

describe('sync rounds through a folder, three devices, random changes, orders and kills', () => {
  it('converge, and each cell holds its latest-stamped change', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 30 }), async (steps) => {
        const dir = mkdtempSync(join(tmpdir(), 'tidy-sync-prop-'));
        try {
          const target = new FolderTarget(dir);
          const key = await setupTarget(target, 'pw', FAST_KDF);
          const walls = [T0, T0 + 700, T0 - 700];
          const devices = IDS.map((id, i) => new SyncDevice(id, key, () => walls[i]!));
          const made: Message[] = [];
          for (const s of steps) {
            const d = devices[s.dev]!;
            if (s.kind === 'change') {
              walls[s.dev] = walls[s.dev]! + s.advance; // within ±30 × 1.5 s of each other: inside the drift bound
              made.push(d.change('tasks', `t${s.row}`, ['content', 'priority'][s.column]!, s.value));
            } else {
              await syncRound(d, target, { batchMessages: 2, onStep: (at) => { if (at === s.kill) throw new Error('killed'); } }).catch((e: unknown) => {
                if ((e as Error).message !== 'killed') throw e;
              });
            }
          }
          // everyone syncs twice: the first pass sends, the second receives what others sent after
          for (let pass = 0; pass < 2; pass++) for (const d of devices) expect((await syncRound(d, target)).problems).toEqual([]);
          expect(sorted(devices[1]!)).toEqual(sorted(devices[0]!));
          expect(sorted(devices[2]!)).toEqual(sorted(devices[0]!));
          const latest = new Map<string, Message>();
          for (const m of made) if ((latest.get(cellKey(m))?.hlc ?? '') < m.hlc) latest.set(cellKey(m), m);
          expect(devices[0]!.cells.size).toBe(latest.size);
          for (const [k, m] of latest) expect(devices[0]!.cells.get(k)).toEqual({ hlc: m.hlc, value: m.value });
          for (const d of devices) expect(d.outbox).toEqual([]);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 25 },
    );
  });
});
