// Issue 34's Done-when, on real stores: three devices (three real databases, changed through the domain
// operations) add, edit and complete tasks, make projects and labels of the same few names on devices whose names collide (so partitioned
// devices make the same name: sync/names.ts renames the later-made), undo and redo requests, while partitioned (a device syncs only
// when the run says so) and reconnecting in random orders, through a folder, writing snapshots (at random and
// every 3 batches) and pruning the batches every device has read. Once every device has synced
// after the last change, all hold the same rows and the same action log, nothing waits, and every request
// with a change in effect can be undone (with --cascade) on every device.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addTask, completeTask, createProject, listTasks, redoRequest, undoLast, undoRequest, updateTask, type Db } from '../../../src-main/core';
import { TRACKED_TABLES } from '../../../src-main/core/store/entities';
import { runSync, setupSync } from '../../../src-main/core/sync/service';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { tempDb, tempDir, userCtx } from '../../support/db';
import { FAST_KDF } from './scenario';

type Cmd =
  | { op: 'add'; dev: number; text: string; project: number; label: string | null }
  | { op: 'project'; dev: number; name: string }
  | { op: 'edit'; dev: number; pick: number; text: string }
  | { op: 'complete'; dev: number; pick: number }
  | { op: 'undo'; dev: number }
  | { op: 'undoOne'; dev: number; pick: number }
  | { op: 'redo'; dev: number; pick: number }
  | { op: 'sync'; dev: number }
  | { op: 'snapshot'; dev: number };

const dev = fc.integer({ min: 0, max: 2 });
const word = fc.constantFrom('milk', 'dentist', 'report', 'tyres', 'flowers', 'taxes');
const cmd: fc.Arbitrary<Cmd> = fc.oneof(
  fc.record({ op: fc.constant('add' as const), dev, text: word, project: fc.nat(4), label: fc.option(fc.constantFrom('urgent', 'home'), { freq: 3 }) }),
  fc.record({ op: fc.constant('add' as const), dev, text: word, project: fc.nat(4), label: fc.constant(null) }),
  fc.record({ op: fc.constant('project' as const), dev, name: fc.constantFrom('Errands', 'Home') }),
  fc.record({ op: fc.constant('edit' as const), dev, pick: fc.nat(20), text: word }),
  fc.record({ op: fc.constant('complete' as const), dev, pick: fc.nat(20) }),
  fc.record({ op: fc.constant('undo' as const), dev }),
  fc.record({ op: fc.constant('undoOne' as const), dev, pick: fc.nat(20) }),
  fc.record({ op: fc.constant('undoOne' as const), dev, pick: fc.nat(20) }),
  fc.record({ op: fc.constant('redo' as const), dev, pick: fc.nat(20) }),
  fc.record({ op: fc.constant('sync' as const), dev }),
  fc.record({ op: fc.constant('sync' as const), dev }),
  fc.record({ op: fc.constant('snapshot' as const), dev }),
);
// the devices' names collide (three machines left at the host name): a rename's suffix must still say which
// device, and renames made with what each device knew then must agree
const DEVICE_NAMES = ['vm', 'vm', 'VM'];
// small thresholds, so snapshots are written and batches pruned within a run
const tuning = { snapshotAfter: 3, reportEvery: 1 };

const LOG_COLUMNS = 'id, request_id, source, tool, args, result, changes, summary, what, created_at, undone_at, undoes';
function state(db: Db): unknown {
  const out: Record<string, unknown[]> = {};
  for (const t of TRACKED_TABLES) out[t] = db.prepare(`SELECT * FROM ${t} ORDER BY id`).all();
  out['actions'] = db.prepare(`SELECT ${LOG_COLUMNS} FROM actions ORDER BY id`).all();
  return out;
}

// A run found to fail, kept: an edit on a device that had a task another device then removed with its project
// (undo of the add, then of the project's creation); undoing the edit leaves the task removed (actions/undo.ts).
const FAILED_ONCE: [Cmd[]] = [
  [
    { op: 'add', dev: 1, text: 'milk', project: 1, label: null },
    { op: 'snapshot', dev: 1 },
    { op: 'snapshot', dev: 2 },
    { op: 'undoOne', dev: 1, pick: 3 },
    { op: 'add', dev: 0, text: 'milk', project: 0, label: null },
    { op: 'edit', dev: 2, pick: 0, text: 'taxes' },
    { op: 'sync', dev: 0 },
    { op: 'undoOne', dev: 1, pick: 0 },
  ],
];

describe('three real stores syncing through a folder', () => {
  it('converge to the same rows and log, and every request can be undone on every device', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { minLength: 4, maxLength: 24 }), async (cmds) => {
        const folder = tempDir();
        const target = new FolderTarget(folder);
        const dbs = [tempDb().db, tempDb().db, tempDb().db];
        const keys: Uint8Array[] = [];
        for (const [i, db] of dbs.entries()) keys.push((await setupSync(db, { kind: 'folder', url: folder }, 'pass phrase', { kdf: FAST_KDF, name: DEVICE_NAMES[i] })).key);
        const sync = async (i: number, snapshot = false): Promise<void> => {
          const r = await runSync(dbs[i]!, keys[i]!, target, { tuning, snapshot });
          expect(r.problems).toEqual([]);
        };
        // every run starts with the same names made on partitioned devices, then goes on at random
        const start: Cmd[] = [
          { op: 'project', dev: 0, name: 'Errands' },
          { op: 'project', dev: 1, name: 'Errands' },
          { op: 'project', dev: 2, name: 'errands' },
          // and a project two devices have, which one may undo while the other adds into it (sync/kept.ts)
          { op: 'project', dev: 0, name: 'Shop' },
          { op: 'sync', dev: 0 },
          { op: 'sync', dev: 1 },
        ];
        for (const c of [...start, ...cmds]) {
          const db = dbs[c.dev]!;
          const open = listTasks(db).tasks;
          const pick = <T,>(list: T[], n: number): T | undefined => (list.length ? list[n % list.length] : undefined);
          if (c.op === 'add') {
            // into a project this device has (the Inbox among them), which another device may be undoing meanwhile (sync/kept.ts)
            const projects = db.prepare(`SELECT id FROM projects WHERE archived_at IS NULL ORDER BY id`).all() as { id: string }[];
            addTask(db, userCtx(db), { content: `${c.text} ${c.dev}`, project: pick(projects, c.project)!.id, ...(c.label ? { labels: [c.label] } : {}) });
          }
          else if (c.op === 'project') createProject(db, userCtx(db), { name: c.name }); // refused when this device has it already
          else if (c.op === 'edit') {
            const t = pick(open, c.pick);
            if (t) updateTask(db, userCtx(db), { task: t.id, content: `${c.text} edited on ${c.dev}` });
          } else if (c.op === 'complete') {
            const t = pick(open, c.pick);
            if (t) completeTask(db, userCtx(db), { task: t.id });
          } else if (c.op === 'undo') undoLast(db, { ctx: userCtx(db) });
          else if (c.op === 'undoOne') {
            // any request in effect (a project's creation while another device adds into it: sync/kept.ts); refused when later changes touched it
            const live = db.prepare(`SELECT DISTINCT request_id FROM actions WHERE undone_at IS NULL AND undoes IS NULL AND changes != '[]' ORDER BY seq`).all() as { request_id: string }[];
            const r = pick(live, c.pick);
            if (r) undoRequest(db, r.request_id, { ctx: userCtx(db) });
          }
          else if (c.op === 'redo') {
            const undone = db.prepare(`SELECT DISTINCT request_id FROM actions WHERE undone_at IS NOT NULL AND undoes IS NULL ORDER BY seq`).all() as { request_id: string }[];
            const r = pick(undone, c.pick);
            if (r) redoRequest(db, r.request_id, { ctx: userCtx(db) });
          } else await sync(c.dev, c.op === 'snapshot');
        }
        // everyone reconnects: two passes carry every change to every device; a name two devices made may take
        // more (a rename made with what one device knew meets another's): at most four
        for (let pass = 0; pass < 4; pass++) {
          for (const i of [2, 0, 1]) await sync(i);
          const now = JSON.stringify(state(dbs[0]!));
          if (pass >= 1 && dbs.every((d) => JSON.stringify(state(d)) === now)) break;
        }
        const want = state(dbs[0]!);
        for (const db of dbs) {
          expect(state(db)).toEqual(want);
          expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get()).toEqual({ n: 0 });
        }
        // every request with a change in effect can be undone on every device (tried, then rolled back)
        const requests = dbs[0]!.prepare(`SELECT DISTINCT request_id FROM actions WHERE undone_at IS NULL AND changes != '[]' AND undoes IS NULL`).all() as { request_id: string }[];
        for (const db of dbs) {
          for (const { request_id } of requests) {
            db.exec('BEGIN IMMEDIATE');
            try {
              const r = undoRequest(db, request_id, { ctx: userCtx(db), cascade: true });
              expect(r.ok ? 'ok' : `${r.error}`).toBe('ok');
            } finally {
              db.exec('ROLLBACK');
            }
          }
        }
      }),
      // SYNC_PROPERTY_RUNS runs more; SYNC_PROPERTY_SEED replays a failing run's seed
      {
        numRuns: Number(process.env['SYNC_PROPERTY_RUNS'] ?? 6),
        ...(process.env['SYNC_PROPERTY_SEED'] ? { seed: Number(process.env['SYNC_PROPERTY_SEED']) } : {}),
        // (device ids are random, and which device's row wins a name with them: tried 8 times)
        examples: Array.from({ length: 8 }, () => FAILED_ONCE),
      },
    );
  }, 240_000 * Math.max(1, Number(process.env['SYNC_PROPERTY_RUNS'] ?? 6) / 6));
});
