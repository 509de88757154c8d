import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { migrations as allMigrations, type Migration } from './migrations';
import { StoreError } from './errors';
import { acquireShared } from './lock';
import { dropSearchTriggers, searchIndexCurrent, syncSearchIndex } from './search-index';
import { captureTriggersCurrent, dropCaptureTriggers, syncCaptureTriggers } from './sync-capture';
import { contentProblem, schemaDifference } from './trust';

export type Db = Database.Database;

/** Written into the file header so that Tidy never mistakes another program's SQLite file for its own. */
export const APPLICATION_ID = 0x54494459; // "TIDY"

export { StoreError };

export interface OpenOptions {
  /** Defaults to the full schema; tests pass a prefix to build an older database. */
  migrations?: Migration[];
  /** Path of a better-sqlite3 binary built for another ABI (the Electron app uses this). */
  nativeBinding?: string;
  /**
   * How an existing file is checked for damage before anything is written to it: `always` a full
   * quick_check (the app and `tidy serve`, which open once), `small` only files up to VERIFY_BYTES (a
   * command that opens on every call; quick_check reads the whole file, about 5 ms per MB).
   */
  verify?: 'always' | 'small';
  /** Copy an existing database into the backups folder before a migration changes it (default true). */
  backupBeforeMigration?: boolean;
  /** Who this process is, in another process's refusal to restore ("tidy serve (pid 12)"). */
  holder?: string;
  /** How long to wait for the shared lock while a restore runs (default 10 s). */
  lockWaitMs?: number;
  /**
   * How long a statement waits for another process's write lock (default 5 s). better-sqlite3 waits by
   * blocking the thread: a long-lived host passes a short one and retries without blocking (busy.ts).
   */
  busyTimeoutMs?: number;
}

/** Files up to this size are checked in full at every open, whatever the caller. */
export const VERIFY_BYTES = 32 * 1024 * 1024;

function sqliteCode(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** How long an open waits for another process's migration (it may be copying a large file first). */
const MIGRATION_WAIT_MS = 120_000;

/**
 * Opens (creating if needed) a Tidy database: WAL, foreign keys, migrations. A file that is not a Tidy
 * database, is damaged, was written by a newer Tidy, or whose schema is not the one Tidy's migrations build
 * for its version (store/trust.ts) is refused with a StoreError and left untouched: nothing is written to
 * it before those checks pass. The process holds the database's shared lock (store/lock.ts) until close,
 * so that a restore refuses meanwhile. Migrations, and the backup copy before them, run in one write
 * transaction that re-reads the version inside it: processes that open a new or older file at the same
 * time wait for the first one and then find the file migrated.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const migrations = options.migrations ?? allMigrations;
  const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  const memory = path === ':memory:';
  let exists = !memory && existsSync(path);
  const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};

  if (exists) {
    if (statSync(path).isDirectory()) throw new StoreError(`${path} is a folder, not a database file; pass --db with a file path`);
    try {
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch {
      throw new StoreError(`cannot read and write ${path}; check its permissions or pass --db with another file`);
    }
  } else if (!memory) {
    try {
      mkdirSync(dirname(path), { recursive: true });
    } catch (e) {
      throw new StoreError(`cannot create the folder for ${path} (${message(e)}); pass --db with a writable path`);
    }
  }

  const lock = memory
    ? undefined
    : acquireShared(path, { name: options.holder ?? 'Tidy', waitMs: options.lockWaitMs ?? 10_000, ...binding });
  let db: Db;
  try {
    // Holding the shared lock, no restore is under way: what one left behind (kill -9) is stale.
    if (!memory) removeStaleRestoreCopies(path);
    exists = !memory && existsSync(path);
    db = new Database(path, { fileMustExist: exists, ...binding });
  } catch (e) {
    lock?.release();
    if (e instanceof StoreError) throw e;
    throw new StoreError(`cannot open ${path}: ${message(e)}`);
  }
  if (lock) {
    const close = db.close.bind(db);
    db.close = () => {
      try {
        return close();
      } finally {
        lock.release();
      }
    };
  }

  try {
    db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    // One read transaction: a snapshot, so that another process migrating meanwhile is seen whole or not at all.
    const version = readOnly(db, () => {
      const appId = db.pragma('application_id', { simple: true }) as number;
      const v = db.pragma('user_version', { simple: true }) as number;
      if (appId !== APPLICATION_ID) {
        const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_master`).get() as { n: number };
        if (appId !== 0 || v !== 0 || tables.n > 0) {
          throw new StoreError(`${path} is a SQLite database but not a Tidy one; it was left untouched — pass --db with another file`);
        }
      }
      if (v > latest) {
        throw new StoreError(
          `${path} was written by a newer Tidy (schema ${v}; this Tidy knows up to ${latest}); it was left untouched — update Tidy to open it`,
        );
      }
      // Nothing is written before this: a damaged or foreign file is refused as it is.
      const full = exists && (options.verify === 'always' || statSync(path).size <= VERIFY_BYTES);
      if (full) {
        const result = db.pragma('quick_check(1)', { simple: true }) as string;
        if (result !== 'ok') throw new StoreError(damaged(path, result));
      }
      if (exists) trust(db, path, v, migrations, options.nativeBinding, full);
      return v;
    });
    if (!memory) db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = FULL');
    if (version < latest) migrate(db, path, migrations, version, { ...options, exists });
    // A prefix of the migrations (tests building an older database) has no index to keep yet.
    // The file's own capture triggers are dropped before anything else is written, then made from the registry.
    syncCaptureTriggers(db);
    if (latest >= 4) syncSearchIndex(db);
    return db;
  } catch (e) {
    db.close();
    if (e instanceof StoreError) throw e;
    const code = sqliteCode(e);
    if (code === 'SQLITE_NOTADB') {
      throw new StoreError(`${path} is not a readable Tidy database (${message(e)}); it was left untouched — restore a backup or pass --db with another file`);
    }
    if (code.startsWith('SQLITE_CORRUPT')) throw new StoreError(damaged(path, message(e)));
    if (code === 'SQLITE_BUSY') throw new StoreError(`${path} is busy in another Tidy process (${message(e)}); try again in a moment`);
    throw new StoreError(`cannot open ${path}: ${message(e)}`);
  }
}

function readOnly<T>(db: Db, read: () => T): T {
  db.exec('BEGIN');
  try {
    return read();
  } finally {
    db.exec('ROLLBACK');
  }
}

/** Refuses a file whose schema or counters are not Tidy's own (store/trust.ts), before anything is written. */
function trust(db: Db, path: string, version: number, migrations: Migration[], nativeBinding: string | undefined, references: boolean): void {
  const why = schemaDifference(db, version, migrations, nativeBinding ? { nativeBinding } : {}) ?? contentProblem(db, { references });
  if (why) throw new StoreError(`${path} is not a database Tidy can trust: ${why}; it was left untouched — restore a backup made by \`tidy backup\` or pass --db with another file`);
}

/** Restore copies (`.<name>.<pid>.<time>.tmp`) left beside the database by a restore that was killed. */
function removeStaleRestoreCopies(path: string): void {
  const base = basename(path);
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(`.${base}.`)) continue;
    const rest = name.slice(base.length + 2);
    if (!/^\d+\.\d+\.tmp(-wal|-shm|-journal)?$/.test(rest)) continue;
    try {
      rmSync(join(dirname(path), name), { force: true });
    } catch {
      // not ours to remove after all (permissions): harmless
    }
  }
}

const damaged = (path: string, why: string): string =>
  `${path} is damaged (${why.split('\n')[0]}); it was left untouched — restore a backup copy of it, recover it with the sqlite3 tool's .recover command, or pass --db with another file`;

/**
 * Copies the database into the backups folder beside it (see core/data/backup.ts) before a migration:
 * VACUUM INTO (on a read-only second connection, as the first holds the write transaction the migration
 * runs in) reads the database in one consistent snapshot and writes only the copy, so nothing is written
 * into the original before the copy exists; the copy gets its name only once it is complete.
 */
function copyBeforeMigration(path: string, from: number, to: number, nativeBinding?: string, now = new Date()): string {
  const dir = join(dirname(path), 'backups');
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const out = join(dir, `tidy-before-schema-${to}-from-${from}-${stamp}.db`);
  const tmp = join(dir, `.${basename(out)}.${process.pid}.tmp`);
  let reader: Db | undefined;
  try {
    mkdirSync(dir, { recursive: true });
    reader = new Database(path, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    reader.prepare(`VACUUM INTO ?`).run(tmp);
    renameSync(tmp, out);
    return out;
  } catch (e) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the folder itself is what failed
    }
    throw new StoreError(`cannot copy ${path} into ${dir} before updating its schema (${message(e)}); the database was left as it was — free some space or make that folder writable`);
  } finally {
    reader?.close();
  }
}

/**
 * Runs the migrations after the file's version in one BEGIN IMMEDIATE transaction, re-reading the version
 * inside it: the first process to get the write lock migrates (and copies the file first), the others
 * wait and then find nothing left to do. Foreign keys cannot be switched inside a transaction: when a
 * pending migration rebuilds a table others refer to, they are off for the whole of it and checked
 * before it commits.
 */
function migrate(db: Db, path: string, migrations: Migration[], from: number, options: OpenOptions & { exists: boolean }): void {
  const latest = migrations[migrations.length - 1]!.version;
  const keysOff = migrations.some((m) => m.version > from && m.foreignKeysOff);
  const busy = db.pragma('busy_timeout', { simple: true }) as number;
  if (keysOff) db.pragma('foreign_keys = OFF');
  db.pragma(`busy_timeout = ${Math.max(busy, MIGRATION_WAIT_MS)}`);
  try {
    db.exec('BEGIN IMMEDIATE');
    try {
      const version = db.pragma('user_version', { simple: true }) as number;
      if (version > latest) throw new StoreError(`${path} was updated by a newer Tidy meanwhile (schema ${version}); it was left as it is — update Tidy to open it`);
      if (version !== from && options.exists) trust(db, path, version, migrations, options.nativeBinding, false);
      if (version < latest) {
        // The file's own search triggers are never run: the index's are made again after the migrations.
        if (latest >= 4 && !searchIndexCurrent(db)) dropSearchTriggers(db);
        if (!captureTriggersCurrent(db)) dropCaptureTriggers(db);
        if (options.exists && version > 0 && options.backupBeforeMigration !== false) copyBeforeMigration(path, version, latest, options.nativeBinding);
        for (const m of migrations) if (m.version > version) m.up(db);
        if (keysOff && (db.pragma('foreign_key_check') as unknown[]).length > 0)
          throw new StoreError(`updating ${path} to schema ${latest} would break references between tables; the database was left as it was`);
        db.pragma(`application_id = ${APPLICATION_ID}`);
        db.pragma(`user_version = ${latest}`);
      }
      db.exec('COMMIT');
    } catch (e) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw e;
    }
  } finally {
    db.pragma(`busy_timeout = ${busy}`);
    if (keysOff) db.pragma('foreign_keys = ON');
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}
