// Names that must be unique, made on two devices at once (sync/names.ts): the later-made row is renamed
// "Errands (Desktop)" on every device, nothing waits, every task stays with its project, and the rename is
// said in one line by `tidy sync` (runSync's `renamed`) and the status.
import { describe, expect, it } from 'vitest';
import { addTask, createProject, makeList, type Db } from '../../../src-main/core';
import { createSection } from '../../../src-main/core/domain/sections';
import { TRACKED_TABLES } from '../../../src-main/core/store/entities';
import { listConflicts } from '../../../src-main/core/sync/conflicts';
import { baseName, NAME_RULES } from '../../../src-main/core/sync/names';
import { applyMessages } from '../../../src-main/core/sync/store-device';
import { listDevices, runSync, settleDeviceName, setupSync, syncStatus, waitingText } from '../../../src-main/core/sync/service';
import { FolderTarget } from '../../../src-main/core/sync/targets/folder';
import { okValue, tempDb, tempDir, userCtx } from '../../support/db';
import { FAST_KDF } from './scenario';

const state = (db: Db): Record<string, unknown[]> => Object.fromEntries(TRACKED_TABLES.map((t) => [t, db.prepare(`SELECT * FROM ${t} ORDER BY id`).all()]));
const names = (db: Db, table: string): string[] => (db.prepare(`SELECT name FROM ${table} ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
const tasksIn = (db: Db, project: string): string[] =>
  (db.prepare(`SELECT t.content FROM tasks t JOIN projects p ON p.id = t.project_id WHERE p.name = ? ORDER BY t.content`).all(project) as { content: string }[]).map((r) => r.content);
const labelsOf = (db: Db, task: string): string[] =>
  (db.prepare(`SELECT l.name FROM task_labels tl JOIN labels l ON l.id = tl.label_id JOIN tasks t ON t.id = tl.task_id WHERE t.content = ?`).all(task) as { name: string }[]).map((r) => r.name);

/** The wall clock moves past this millisecond: a row made next is made strictly later (creation times have ms precision). */
function nextMillisecond(): void {
  const t = Date.now();
  while (Date.now() <= t) {
    // spin: at most a millisecond
  }
}

describe('names two devices made', () => {
  it('the later-made project, list, section and label is renamed after its device on both; every task stays with its project; nothing waits; said once', async () => {
    const folder = tempDir();
    const target = new FolderTarget(folder);
    const laptop = tempDb().db;
    const desktop = tempDb().db;
    const a = await setupSync(laptop, { kind: 'folder', url: folder }, 'pass phrase', { name: 'Laptop', kdf: FAST_KDF });
    const b = await setupSync(desktop, { kind: 'folder', url: folder }, 'pass phrase', { name: 'Desktop', kdf: FAST_KDF });
    await runSync(laptop, a.key, target);
    await runSync(desktop, b.key, target);

    // offline on both: Laptop first, then Desktop, the same names (and Laptop also has the name Desktop's would get)
    const make = (db: Db, mine: string): void => {
      const ctx = userCtx(db);
      const errands = okValue(createProject(db, ctx, { name: 'Errands' }));
      okValue(addTask(db, ctx, { content: `milk from ${mine}`, project: errands.id, labels: ['urgent'] }));
      okValue(addTask(db, ctx, { content: `stamps from ${mine}`, project: errands.id }));
      okValue(makeList(db, ctx, { name: 'Groceries' }));
      okValue(createSection(db, ctx, { project: 'inbox', name: 'Later' }));
    };
    make(laptop, 'Laptop');
    okValue(createProject(laptop, userCtx(laptop), { name: 'errands (desktop)' }));
    nextMillisecond();
    make(desktop, 'Desktop');

    const first = await runSync(laptop, a.key, target); // sends; nothing of Desktop's yet
    expect(first.renamed).toEqual([]);
    const second = await runSync(desktop, b.key, target); // Laptop's rows arrive: Desktop's own are the later ones
    expect(second.problems).toEqual([]);
    expect(second.pending).toBe(0);
    const lines = [
      'Two devices made a project “Errands”; Desktop\'s is now “Errands (Desktop) 2”',
      'Two devices made a label “urgent”; Desktop\'s is now “urgent (Desktop)”',
      'Two devices made a list “Groceries”; Desktop\'s is now “Groceries (Desktop)”',
      'Two devices made a section “Later”; Desktop\'s is now “Later (Desktop)”',
    ].sort();
    expect([...second.renamed].sort()).toEqual(lines);
    const third = await runSync(laptop, a.key, target); // Desktop's rows arrive: Laptop makes the same renames
    expect([...third.renamed].sort()).toEqual(lines);
    await runSync(desktop, b.key, target);
    const last = await runSync(laptop, a.key, target);
    expect(last.renamed).toEqual([]); // each rename is said once, on each device

    for (const db of [laptop, desktop]) {
      expect(names(db, 'projects')).toEqual(['Errands', 'Errands (Desktop) 2', 'Inbox', 'errands (desktop)']);
      expect(tasksIn(db, 'Errands')).toEqual(['milk from Laptop', 'stamps from Laptop']);
      expect(tasksIn(db, 'Errands (Desktop) 2')).toEqual(['milk from Desktop', 'stamps from Desktop']);
      expect(labelsOf(db, 'milk from Laptop')).toEqual(['urgent']);
      expect(labelsOf(db, 'milk from Desktop')).toEqual(['urgent (Desktop)']);
      expect(names(db, 'lists')).toEqual(['Groceries', 'Groceries (Desktop)']);
      expect(names(db, 'sections')).toEqual(['Later', 'Later (Desktop)']);
      expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get()).toEqual({ n: 0 });
      expect(db.prepare(`SELECT COUNT(*) AS n FROM projects WHERE name_key != lower(name)`).get()).toEqual({ n: 0 });
      const status = syncStatus(db);
      expect([...(status.renamed ?? [])].sort()).toEqual(lines);
      expect(waitingText(status.waiting!)).toBeNull();
      // the task's (project's) history of edits does not show a rename as an overwritten value
      const renamed = db.prepare(`SELECT id FROM projects WHERE name = 'Errands (Desktop) 2'`).get() as { id: string };
      expect(listConflicts(db, 'projects', renamed.id)).toEqual([]);
    }
    expect(state(desktop)).toEqual(state(laptop));
  }, 60_000);

  it('three devices all called "vm": a renamed row says which vm by its id, nothing is suffixed twice, all agree; the devices then take "vm 2" and "vm 3"', async () => {
    const folder = tempDir();
    const target = new FolderTarget(folder);
    const dbs = [tempDb().db, tempDb().db, tempDb().db];
    const setups: { key: Uint8Array; device: string }[] = [];
    for (const db of dbs) setups.push(await setupSync(db, { kind: 'folder', url: folder }, 'pass phrase', { name: 'vm', kdf: FAST_KDF }));
    for (const [i, db] of dbs.entries()) {
      okValue(createProject(db, userCtx(db), { name: i === 2 ? 'errands' : 'Errands' }));
      nextMillisecond();
    }
    const said: string[] = [];
    const round = async (i: number): Promise<void> => {
      const r = await runSync(dbs[i]!, setups[i]!.key, target);
      expect(r.problems).toEqual([]);
      said.push(...r.renamed.filter((line) => line.startsWith('Another device')));
    };
    // the order that stacked suffixes before: the middle device renames first, with what it knows then
    for (const i of [1, 0, 1, 2]) await round(i);
    for (let pass = 0; pass < 2; pass++) for (const i of [2, 0, 1]) await round(i);
    const part = (i: number): string => setups[i]!.device.slice(0, 6);
    for (const db of dbs) {
      expect(names(db, 'projects')).toEqual(['Errands', `Errands (vm ${part(1)})`, 'Inbox', `errands (vm ${part(2)})`].sort());
      expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_pending`).get()).toEqual({ n: 0 });
      expect(state(db)).toEqual(state(dbs[0]!));
    }
    // and the devices' names are made unique: the two that were not first to be called "vm" take "vm 2", "vm 3"
    // (each learns of the others by syncing: two that both took "vm 2" settle it a round after they meet)
    for (let pass = 0; pass < 2; pass++) for (const i of [2, 0, 1]) await round(i);
    const deviceNames = (db: Db): string[] => listDevices(db).map((d) => d.name ?? '').sort();
    expect(deviceNames(dbs[0]!)).toEqual(['vm', 'vm 2', 'vm 3']);
    for (const db of dbs) expect(deviceNames(db)).toEqual(deviceNames(dbs[0]!));
    expect(dbs.map((db) => syncStatus(db).name).sort()).toEqual(['vm', 'vm 2', 'vm 3']);
    expect(said.sort()).toEqual(['Another device is called “vm” too; this device is now “vm 2”', 'Another device is called “vm” too; this device is now “vm 2”', 'Another device is called “vm 2” too; this device is now “vm 3”'].sort());
    // a name made on two of them from now on says which by the new names
    okValue(createProject(dbs[0]!, userCtx(dbs[0]!), { name: 'Garden' }));
    nextMillisecond();
    okValue(createProject(dbs[1]!, userCtx(dbs[1]!), { name: 'Garden' }));
    for (let pass = 0; pass < 2; pass++) for (const i of [0, 1, 2]) await round(i);
    const gardenOf1 = `Garden (${syncStatus(dbs[1]!).name})`;
    for (const db of dbs) expect(names(db, 'projects').filter((n) => n.startsWith('Garden'))).toEqual(['Garden', gardenOf1]);
  }, 60_000);

  it('a device gives up a name another device had first: "Pixel 7 2", "vm 3" after "vm 2", long names stay within 80 characters', async () => {
    const { db } = tempDb();
    const mine = await setupSync(db, { kind: 'folder', url: tempDir() }, 'pass phrase', { name: 'Pixel 7', kdf: FAST_KDF });
    const stamp = (n: number, device: string): string => `2035-01-01T12:00:00.000Z-000${n}-${device}`;
    const cell = db.prepare(`INSERT INTO sync_cells (tbl, row, col, hlc) VALUES ('sync_devices', ?, 'name', ?) ON CONFLICT DO UPDATE SET hlc = excluded.hlc`);
    const device = db.prepare(`INSERT INTO sync_devices (device, name) VALUES (?, ?) ON CONFLICT DO UPDATE SET name = excluded.name`);
    const other = '00000000000000b2';
    cell.run(mine.device, stamp(5, mine.device));
    expect(settleDeviceName(db, Date.now())).toBeNull(); // no other device yet
    device.run(other, 'PIXEL 7');
    cell.run(other, stamp(9, other)); // a later stamp: the other gives it up, not this one
    expect(settleDeviceName(db, Date.now())).toBeNull();
    cell.run(other, stamp(1, other));
    expect(settleDeviceName(db, Date.now())).toEqual({ from: 'Pixel 7', to: 'Pixel 7 2' });
    expect(syncStatus(db).name).toBe('Pixel 7 2');
    expect(db.prepare(`SELECT value FROM sync_outbox WHERE tbl = 'sync_devices' AND row = ? ORDER BY seq DESC LIMIT 1`).get(mine.device)).toEqual({ value: 'Pixel 7 2' });
    // two that gave up "vm" both took "vm 2": the one with the later stamp of it goes on to "vm 3"
    db.prepare(`UPDATE sync_state SET name = 'vm 2'`).run();
    db.prepare(`UPDATE sync_devices SET name = 'vm 2' WHERE device = ?`).run(mine.device);
    device.run('00000000000000c3', 'vm');
    device.run(other, 'vm 2');
    expect(settleDeviceName(db, Date.now())).toEqual({ from: 'vm 2', to: 'vm 3' });
    // the longest name a device may have, and a name of pattern characters
    const long = `${'é'.repeat(79)}x`;
    db.prepare(`UPDATE sync_state SET name = ?`).run(long);
    device.run(other, long.toUpperCase());
    const renamed = settleDeviceName(db, Date.now());
    expect(renamed?.to).toBe(`${'é'.repeat(78)} 2`);
    expect(renamed!.to.length).toBeLessThanOrEqual(80);
  });

  it('the name before a rename: one suffix of the row\'s device taken off, any other text kept', () => {
    expect(baseName('Errands (vm)', ['vm'])).toBe('Errands');
    expect(baseName('Errands (VM 3f9a0c) 12', ['vm', 'vm 3f9a0c'])).toBe('Errands');
    expect(baseName('Errands (vm) (vm)', ['vm'])).toBe('Errands (vm)');
    expect(baseName('Errands (Laptop)', ['vm'])).toBe('Errands (Laptop)');
    expect(baseName('Errands (vm) 1', ['vm'])).toBe('Errands (vm) 1');
    expect(baseName(' (vm)', ['vm'])).toBe(' (vm)');
    // a device name with pattern characters is matched as text
    expect(baseName('Errands (a.*(b) 2', ['a.*(b'])).toBe('Errands');
    expect(baseName('Errands (aXXb)', ['a.*(b'])).toBe('Errands (aXXb)');
    // long names and labels: linear, whole
    const long = `${'x '.repeat(60_000)}(vm)`;
    expect(baseName(long, ['vm'.repeat(40), 'vm'])).toBe(long.slice(0, -5));
  });

  it('a received rename record that is not whole is ignored; a waiting change is worded by its reason', () => {
    const { db } = tempDb();
    const hlc = '2035-01-01T12:00:00.000Z-0000-00000000000000b2';
    const bad = [
      'not json',
      '{"renamed":true}',
      JSON.stringify({ renamed: true, tbl: 'tasks', row: 't1', from: 'a', to: 'b', device: '00000000000000b2', lostHlc: hlc, kept: 't2' }),
      JSON.stringify({ renamed: true, tbl: 'projects', row: 'p1', from: 'a', to: 'b', device: 'x; DROP TABLE projects', lostHlc: hlc, kept: 'p2' }),
      JSON.stringify({ renamed: true, tbl: 'projects', row: 'p1', from: 'a', to: 'b'.repeat(2_000_000), device: '00000000000000b2', lostHlc: hlc, kept: 'p2' }),
      JSON.stringify({ renamed: true, tbl: 'projects', row: 'p1', from: 'a', to: 'b', device: '00000000000000b2', lostHlc: 'elsewhere', kept: 'p2' }),
      `{"renamed":true,"deep":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ];
    expect(() => applyMessages(db, bad.map((value) => ({ hlc, table: 'sync_conflicts', row: hlc, column: 'record', value })))).not.toThrow();
    expect(db.prepare(`SELECT COUNT(*) AS n FROM sync_conflicts`).get()).toEqual({ n: 0 });
    expect(waitingText({ newer: 2, rows: 1, refused: 0 })).toBe('3 received changes waiting: 2 made by a newer Tidy (update Tidy on this device), 1 for a row not arrived yet');
    expect(waitingText({ newer: 0, rows: 0, refused: 1 })).toBe('1 received change waiting: 1 not valid here (kept, not applied)');
  });

  it('settles every unique name index the schema has', () => {
    const { db } = tempDb();
    const sql = (db.prepare(`SELECT tbl_name, sql FROM sqlite_master WHERE sql IS NOT NULL AND tbl_name NOT LIKE 'sync_%'`).all() as { tbl_name: string; sql: string }[]).filter(
      (r) => /UNIQUE INDEX \w+ ON \w+\s*\([^)]*name_key/i.test(r.sql) || /name_key TEXT NOT NULL UNIQUE/i.test(r.sql),
    );
    expect([...new Set(sql.map((r) => r.tbl_name))].sort()).toEqual(Object.keys(NAME_RULES).sort());
  });
});
