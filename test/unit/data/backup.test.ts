import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTask, newUserRequest, openDatabase } from '../../../src-main/core';
import { autoBackup, backupDatabase, backupsDir, checkDatabaseFile, restoreDatabase, retentionPlan } from '../../../src-main/core/data';
import { migrations } from '../../../src-main/core/store/migrations';
import { okValue, tempDb, tempDir } from '../../support/db';
import { exportString, populate } from './fixture';

const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
/** The database file and its -wal, as they are on disk. */
const hashAll = (path: string): string => hash(path) + (existsSync(`${path}-wal`) ? hash(`${path}-wal`) : '');

describe('backupDatabase', () => {
  it('writes a checked copy with the same data', async () => {
    const { db, dir } = tempDb();
    populate(db, 5);
    const out = join(dir, 'copies', 'b.db');
    const info = await backupDatabase(db, out);
    expect(info.path).toBe(out);
    expect(info.schemaVersion).toBe(migrations.at(-1)!.version);
    expect(checkDatabaseFile(out)).toBe(migrations.at(-1)!.version);
    // One self-contained file: opening it never needs (or leaves) a -wal beside it.
    const raw = new Database(out, { readonly: true });
    expect(raw.pragma('journal_mode', { simple: true })).toBe('delete');
    raw.close();
    expect(db.prepare(`SELECT name FROM pragma_database_list WHERE name NOT IN ('main', 'temp')`).all()).toEqual([]); // the copy was detached
    const copy = openDatabase(out);
    try {
      expect(exportString(copy)).toBe(exportString(db));
    } finally {
      copy.close();
    }
    // No temporary file left (opening it made its lock file, which stays: store/lock.ts).
    expect(readdirSync(join(dir, 'copies')).filter((n) => n !== 'b.db.lock')).toEqual(['b.db']);
  });

  it('refuses a folder as --out, and leaves nothing behind', async () => {
    const { db, dir } = tempDb();
    await expect(backupDatabase(db, dir)).rejects.toThrow(/is a folder/);
  });
});

describe('retention', () => {
  it('keeps exactly 7 daily + 4 weekly over 60 simulated days, never the one just made nor foreign files', async () => {
    const { db, path } = tempDb();
    const dir = backupsDir(path);
    await autoBackup(db, path, new Date(2026, 0, 1, 9));
    writeFileSync(join(dir, 'my-notes.db'), 'mine');
    writeFileSync(join(dir, 'tidy-2020-01-01.db.bak'), 'not a daily name');
    const start = new Date(2026, 0, 1, 9);
    for (let d = 0; d < 60; d++) {
      const now = new Date(start.getFullYear(), start.getMonth(), start.getDate() + d, 9);
      const r = await autoBackup(db, path, now);
      expect(r.made === null).toBe(d === 0); // day 0 was already made above
      // A second call the same day makes nothing.
      expect((await autoBackup(db, path, new Date(now.getTime() + 3_600_000))).made).toBeNull();
    }
    const daily = readdirSync(dir).filter((n) => /^tidy-\d{4}-\d{2}-\d{2}\.db$/.test(n)).sort();
    expect(daily).toHaveLength(11);
    // The 7 newest days (Feb 23 – Mar 1), then one per week for the 4 weeks before.
    expect(daily.slice(-7)).toEqual(['tidy-2026-02-23.db', 'tidy-2026-02-24.db', 'tidy-2026-02-25.db', 'tidy-2026-02-26.db', 'tidy-2026-02-27.db', 'tidy-2026-02-28.db', 'tidy-2026-03-01.db']);
    // Weeks start on Monday: the newest of each (Sundays here) stands for it.
    expect(daily.slice(0, 4)).toEqual(['tidy-2026-02-01.db', 'tidy-2026-02-08.db', 'tidy-2026-02-15.db', 'tidy-2026-02-22.db']);
    expect(readdirSync(dir)).toContain('my-notes.db');
    expect(readdirSync(dir)).toContain('tidy-2020-01-01.db.bak');
  });

  it('never deletes the backup just made, even when the clock went back', () => {
    const names = Array.from({ length: 60 }, (_, i) => `tidy-${new Date(Date.UTC(2026, 2, 1 + i)).toISOString().slice(0, 10)}.db`);
    const plan = retentionPlan([...names, 'tidy-2025-01-01.db'], 'tidy-2025-01-01.db');
    expect(plan.keep).toContain('tidy-2025-01-01.db');
    expect(plan.remove).not.toContain('tidy-2025-01-01.db');
    expect(plan.keep).toHaveLength(12);
  });
});

describe('restoreDatabase', () => {
  async function setup(): Promise<{ path: string; backup: string; dir: string }> {
    const { db, path, dir } = tempDb();
    populate(db, 4);
    const backup = join(dir, 'good.db');
    await backupDatabase(db, backup);
    okValue(addTask(db, newUserRequest(db), { content: 'made after the backup' }));
    db.close();
    return { path, backup, dir };
  }

  it('replaces the database with the backup and keeps the current one aside', async () => {
    const { path, backup } = await setup();
    const before = hashAll(path);
    const r = restoreDatabase(backup, path);
    expect(r.keptAt).toMatch(/backups\/tidy-before-restore-.*\.db$/);
    const kept = openDatabase(r.keptAt!);
    const now = openDatabase(path);
    try {
      expect(kept.prepare(`SELECT count(*) AS n FROM tasks WHERE content = 'made after the backup'`).get()).toEqual({ n: 1 });
      expect(now.prepare(`SELECT count(*) AS n FROM tasks WHERE content = 'made after the backup'`).get()).toEqual({ n: 0 });
      expect(now.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      kept.close();
      now.close();
    }
    expect(before).not.toBe(hashAll(path));
  });

  function refused(file: string, path: string, pattern: RegExp): void {
    const before = hashAll(path);
    const listing = readdirSync(join(path, '..')).sort();
    let message = '';
    try {
      restoreDatabase(file, path);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(pattern);
    expect(message).not.toContain('\n');
    expect(hashAll(path)).toBe(before);
    expect(readdirSync(join(path, '..')).sort()).toEqual(listing); // no staged copy left
  }

  it('refuses a damaged backup (bytes overwritten in the middle) and leaves the database untouched', async () => {
    const { path, backup } = await setup();
    const size = readFileSync(backup).length;
    const fd = openSync(backup, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0xa5), 0, 4096, Math.floor(size / 2 / 4096) * 4096);
    closeSync(fd);
    refused(backup, path, /is damaged/);
  });

  it('refuses a foreign SQLite file, a text file, a newer schema and a missing file', async () => {
    const { path, dir } = await setup();
    const foreign = join(dir, 'other.sqlite');
    const f = new Database(foreign);
    f.exec(`CREATE TABLE tasks (id TEXT); INSERT INTO tasks VALUES ('x')`);
    f.close();
    refused(foreign, path, /is a SQLite database but not a Tidy one/);
    const textFile = join(dir, 'notes.txt');
    writeFileSync(textFile, 'hello '.repeat(100));
    refused(textFile, path, /is not a SQLite database/);
    const newer = join(dir, 'newer.db');
    const n = new Database(newer);
    n.pragma('application_id = 1414087769');
    n.pragma('user_version = 999');
    n.close();
    refused(newer, path, /newer Tidy \(schema 999/);
    refused(join(dir, 'missing.db'), path, /does not exist/);
  });

  it('restores an older schema (migrated, with its own copy, when next opened) and into a place with no database yet', () => {
    const dir = tempDir();
    const old = join(dir, 'old.db');
    const o = openDatabase(old, { migrations: migrations.slice(0, 3) });
    o.prepare(`INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t1', 'from schema 3', 'inbox', 'x', 'x')`).run();
    o.close();
    const path = join(dir, 'live', 'tidy.db');
    expect(restoreDatabase(old, path)).toEqual({ keptAt: null, schemaVersion: 3 });
    const db = openDatabase(path);
    try {
      expect(db.prepare(`SELECT content FROM tasks`).all()).toEqual([{ content: 'from schema 3' }]);
    } finally {
      db.close();
    }
    expect(readdirSync(join(dir, 'live', 'backups'))).toHaveLength(1);
    expect(() => restoreDatabase(path, path)).toThrow(/is the database itself/);
  });

  it('refuses while another Tidy holds the database in a transaction', async () => {
    const { path, backup } = await setup();
    const other = openDatabase(path);
    try {
      // A write in progress: the checkpoint cannot finish.
      other.prepare('BEGIN IMMEDIATE').run();
      other.prepare(`INSERT INTO settings (key, value) VALUES ('x', '1')`).run();
      // The shared lock of the open connection refuses it first (store/lock.ts); here it is this process's.
      refused(backup, path, /is open in this process; close it and run the restore again — nothing was changed/);
    } finally {
      other.prepare('COMMIT').run();
      other.close();
    }
  });
});

describe('a copy before every migration', () => {
  it('copies a schema-3 database before migrating it; the copy opens at version 3', () => {
    const dir = tempDir();
    const path = join(dir, 'tidy.db');
    const old = openDatabase(path, { migrations: migrations.slice(0, 3) });
    old.prepare(`INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t1', 'kept in the copy', 'inbox', 'x', 'x')`).run();
    old.close();
    const db = openDatabase(path);
    db.close();
    const copies = readdirSync(join(dir, 'backups'));
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatch(/^tidy-before-schema-\d+-from-3-\d{8}T\d{6}Z\.db$/);
    const copy = new Database(join(dir, 'backups', copies[0]!), { readonly: true });
    try {
      expect(copy.pragma('user_version', { simple: true })).toBe(3);
      expect(copy.pragma('application_id', { simple: true })).toBe(0x54494459);
      expect(copy.prepare(`SELECT content FROM tasks`).all()).toEqual([{ content: 'kept in the copy' }]);
    } finally {
      copy.close();
    }
    // Opening again (nothing to migrate) makes no new copy; nor does creating a new database.
    openDatabase(path).close();
    openDatabase(join(dir, 'new.db')).close();
    expect(readdirSync(join(dir, 'backups'))).toHaveLength(1);
  });

  it('refuses to migrate when the copy cannot be written, and leaves the file as it was', () => {
    const dir = tempDir();
    const path = join(dir, 'tidy.db');
    openDatabase(path, { migrations: migrations.slice(0, 3) }).close();
    const before = hashAll(path);
    writeFileSync(join(dir, 'backups'), 'a file where the folder should be');
    expect(() => openDatabase(path)).toThrow(/cannot copy .* before updating its schema/);
    expect(hashAll(path)).toBe(before);
    const check = new Database(path, { readonly: true });
    expect(check.pragma('user_version', { simple: true })).toBe(3);
    check.close();
  });
});

describe('daily backups while the app or tidy serve runs', () => {
  it('makes today’s backup at start and logs instead of throwing when it cannot', async () => {
    const { scheduleAutoBackups, backupsDir } = await import('../../../src-main/core/data');
    const { tempDb: fresh } = await import('../../support/db');
    const { db, path } = fresh();
    const lines: string[] = [];
    const stop = scheduleAutoBackups(db, path, (l) => lines.push(l));
    const deadline = Date.now() + 10_000;
    const { readdirSync, existsSync } = await import('node:fs');
    while (!(existsSync(backupsDir(path)) && readdirSync(backupsDir(path)).some((n) => /^tidy-\d{4}-\d{2}-\d{2}\.db$/.test(n)))) {
      if (Date.now() > deadline) throw new Error(`no daily backup; log: ${lines.join(' | ')}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    stop();
    expect(lines).toEqual([]);
    // A closed database is skipped, not an error.
    db.close();
    const stop2 = scheduleAutoBackups(db, path, (l) => lines.push(l));
    stop2();
    expect(lines).toEqual([]);
  });
});
