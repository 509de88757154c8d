import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { APPLICATION_ID, openDatabase, resolveDbPath, schemaVersion, StoreError, userDataDir } from '../../../src-main/core';
import { LATEST_VERSION, migrations, type Migration } from '../../../src-main/core/store/migrations';
import { tempDir } from '../../support/db';

const hash = (p: string): string => createHash('sha256').update(readFileSync(p)).digest('hex');

describe('openDatabase', () => {
  it('creates a new database with WAL, foreign keys, the latest schema and a built-in Inbox', () => {
    const path = join(tempDir(), 'nested', 'tidy.db');
    const db = openDatabase(path);
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(schemaVersion(db)).toBe(LATEST_VERSION);
      expect(db.pragma('application_id', { simple: true })).toBe(APPLICATION_ID);
      expect(db.prepare(`SELECT id, name, builtin FROM projects`).all()).toEqual([{ id: 'inbox', name: 'Inbox', builtin: 1 }]);
    } finally {
      db.close();
    }
  });

  it('reopens an existing database without migrating twice', () => {
    const path = join(tempDir(), 'tidy.db');
    openDatabase(path).close();
    const db = openDatabase(path);
    expect(db.prepare(`SELECT count(*) AS n FROM projects`).get()).toEqual({ n: 1 });
    db.close();
  });

  it('migrates a database written by an older version, keeping its data', () => {
    const path = join(tempDir(), 'tidy.db');
    const first = migrations.slice(0, 1);
    const old = openDatabase(path, { migrations: first });
    old.prepare(`INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t1', 'kept', 'inbox', 'x', 'x')`).run();
    old.close();
    const extra: Migration = {
      version: LATEST_VERSION + 1,
      description: 'test: a later schema change',
      up: (db) => db.exec(`ALTER TABLE tasks ADD COLUMN note TEXT DEFAULT 'migrated'`),
    };
    const db = openDatabase(path, { migrations: [...migrations, extra] });
    try {
      expect(schemaVersion(db)).toBe(LATEST_VERSION + 1);
      expect(db.prepare(`SELECT content, note FROM tasks`).get()).toEqual({ content: 'kept', note: 'migrated' });
    } finally {
      db.close();
    }
  });

  it('rolls back a failing migration and leaves the older version in place', () => {
    const path = join(tempDir(), 'tidy.db');
    openDatabase(path).close();
    const broken: Migration = {
      version: LATEST_VERSION + 1,
      description: 'test: fails half-way',
      up: (db) => {
        db.exec(`CREATE TABLE half (x)`);
        throw new Error('boom');
      },
    };
    expect(() => openDatabase(path, { migrations: [...migrations, broken] })).toThrow(StoreError);
    const db = openDatabase(path);
    expect(schemaVersion(db)).toBe(LATEST_VERSION);
    expect(db.prepare(`SELECT count(*) AS n FROM sqlite_master WHERE name = 'half'`).get()).toEqual({ n: 0 });
    db.close();
  });

  it('refuses a database from a newer Tidy with a clear message and leaves it untouched', () => {
    const path = join(tempDir(), 'tidy.db');
    openDatabase(path).close();
    const raw = new Database(path);
    raw.pragma('journal_mode = DELETE');
    raw.pragma(`user_version = ${LATEST_VERSION + 5}`);
    raw.close();
    const before = hash(path);
    expect(() => openDatabase(path)).toThrow(/newer Tidy .*update Tidy/);
    expect(hash(path)).toBe(before);
    expect(existsSync(`${path}-wal`)).toBe(false);
  });

  it('refuses a file that is not a database and never overwrites it', () => {
    const path = join(tempDir(), 'tidy.db');
    writeFileSync(path, 'my precious notes, not a database '.repeat(200));
    const before = hash(path);
    expect(() => openDatabase(path)).toThrow(/not a readable Tidy database.*left untouched/);
    expect(hash(path)).toBe(before);
  });

  it("refuses another program's SQLite database and leaves it untouched", () => {
    const path = join(tempDir(), 'other.db');
    const raw = new Database(path);
    raw.exec(`CREATE TABLE photos (id INTEGER PRIMARY KEY)`);
    raw.close();
    const before = hash(path);
    expect(() => openDatabase(path)).toThrow(/not a Tidy one/);
    expect(hash(path)).toBe(before);
  });

  it('refuses a folder given as the database path', () => {
    const dir = join(tempDir(), 'folder.db');
    mkdirSync(dir);
    expect(() => openDatabase(dir)).toThrow(/is a folder/);
  });

  it('says when the folder for a new database cannot be created', () => {
    const file = join(tempDir(), 'a-file');
    writeFileSync(file, '');
    expect(() => openDatabase(join(file, 'sub', 'tidy.db'))).toThrow(/cannot create the folder/);
  });
});

describe('database path', () => {
  it('is the Electron user-data folder of the app "Tidy"', () => {
    expect(userDataDir({ XDG_CONFIG_HOME: '/x/cfg' }, 'linux')).toBe('/x/cfg/Tidy');
    expect(userDataDir({}, 'linux')).toMatch(/\/\.config\/Tidy$/);
    expect(userDataDir({}, 'darwin')).toMatch(/Library\/Application Support\/Tidy$/);
  });

  it('honours --db, then TIDY_DB, then the default', () => {
    expect(resolveDbPath('/flag.db', { TIDY_DB: '/env.db' })).toBe('/flag.db');
    expect(resolveDbPath(undefined, { TIDY_DB: '/env.db' })).toBe('/env.db');
    expect(resolveDbPath(undefined, { XDG_CONFIG_HOME: '/c' })).toBe('/c/Tidy/tidy.db');
  });
});

describe('a damaged database', () => {
  /** A Tidy database with some tasks, then garbage written over the middle of the tasks table's first page. */
  function damagedDb(): string {
    const path = join(tempDir(), 'tidy.db');
    const db = openDatabase(path);
    const now = new Date().toISOString();
    const add = db.prepare(`INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES (?, ?, 'inbox', ?, ?)`);
    for (let i = 1; i <= 200; i++) add.run(`t${i}`, `task number ${i} with some words`, now, now);
    const root = (db.prepare(`SELECT rootpage FROM sqlite_master WHERE name = 'tasks'`).get() as { rootpage: number }).rootpage;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const bytes = readFileSync(path);
    bytes.fill(0xa5, (root - 1) * pageSize + 8, (root - 1) * pageSize + 400);
    writeFileSync(path, bytes);
    return path;
  }

  it('is refused with the recovery advice, before anything is written to it', () => {
    const path = damagedDb();
    const before = hash(path);
    expect(() => openDatabase(path)).toThrow(/tidy\.db is damaged \(.*\); it was left untouched — restore a backup copy of it, recover it with the sqlite3 tool's \.recover command/);
    expect(() => openDatabase(path, { verify: 'always' })).toThrow(StoreError);
    expect(hash(path)).toBe(before);
  });

  it('is refused by the CLI in one line, and `undo --last` writes nothing into it', async () => {
    const { tidy } = await import('../../support/cli');
    const path = damagedDb();
    const before = hash(path);
    const r = tidy(path, ['undo', '--last']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tidy: .*tidy\.db is damaged .*left untouched/);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(hash(path)).toBe(before);
  });
});
