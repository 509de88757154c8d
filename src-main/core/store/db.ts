import Database from 'better-sqlite3';
import { accessSync, constants, existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { migrations as allMigrations, type Migration } from './migrations';
import { syncSearchIndex } from './search-index';

export type Db = Database.Database;

/** Written into the file header so that Tidy never mistakes another program's SQLite file for its own. */
export const APPLICATION_ID = 0x54494459; // "TIDY"

/** A database that cannot be used as it is. The message is one line and says what to do. */
export class StoreError extends Error {
  override name = 'StoreError';
}

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
}

/** Files up to this size are checked in full at every open, whatever the caller. */
export const VERIFY_BYTES = 32 * 1024 * 1024;

function sqliteCode(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '';
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Opens (creating if needed) a Tidy database: WAL, foreign keys, migrations. A file that is not a Tidy
 * database, is damaged, or was written by a newer Tidy is refused with a StoreError and left untouched:
 * nothing is written to it before those checks pass.
 */
export function openDatabase(path: string, options: OpenOptions = {}): Db {
  const migrations = options.migrations ?? allMigrations;
  const latest = migrations.length ? migrations[migrations.length - 1]!.version : 0;
  const memory = path === ':memory:';
  const exists = !memory && existsSync(path);

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

  let db: Db;
  try {
    db = new Database(path, { fileMustExist: exists, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) });
  } catch (e) {
    throw new StoreError(`cannot open ${path}: ${message(e)}`);
  }

  try {
    const appId = db.pragma('application_id', { simple: true }) as number;
    const version = db.pragma('user_version', { simple: true }) as number;
    if (appId !== APPLICATION_ID) {
      const tables = db.prepare(`SELECT count(*) AS n FROM sqlite_master`).get() as { n: number };
      if (appId !== 0 || version !== 0 || tables.n > 0) {
        throw new StoreError(`${path} is a SQLite database but not a Tidy one; it was left untouched — pass --db with another file`);
      }
    }
    if (version > latest) {
      throw new StoreError(
        `${path} was written by a newer Tidy (schema ${version}; this Tidy knows up to ${latest}); it was left untouched — update Tidy to open it`,
      );
    }
    // Nothing is written before this: a damaged file is refused as it is.
    if (exists && (options.verify === 'always' || statSync(path).size <= VERIFY_BYTES)) {
      const result = db.pragma('quick_check(1)', { simple: true }) as string;
      if (result !== 'ok') throw new StoreError(damaged(path, result));
    }
    // An update that goes wrong (or a Tidy that is rolled back) must not cost the user their data.
    if (exists && version > 0 && version < latest && options.backupBeforeMigration !== false) copyBeforeMigration(db, path, version, latest);
    if (!memory) db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 5000');
    migrate(db, migrations, version);
    // A prefix of the migrations (tests building an older database) has no index to keep yet.
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
    throw new StoreError(`cannot open ${path}: ${message(e)}`);
  }
}

const damaged = (path: string, why: string): string =>
  `${path} is damaged (${why.split('\n')[0]}); it was left untouched — restore a backup copy of it, recover it with the sqlite3 tool's .recover command, or pass --db with another file`;

/**
 * Copies the database into the backups folder beside it (see core/data/backup.ts) before a migration:
 * VACUUM INTO reads the database in one consistent snapshot and writes only the copy, so nothing is
 * written into the original before the copy exists; the copy gets its name only once it is complete.
 */
function copyBeforeMigration(db: Db, path: string, from: number, to: number, now = new Date()): string {
  const dir = join(dirname(path), 'backups');
  const stamp = now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  const out = join(dir, `tidy-before-schema-${to}-from-${from}-${stamp}.db`);
  const tmp = join(dir, `.${basename(out)}.${process.pid}.tmp`);
  try {
    mkdirSync(dir, { recursive: true });
    db.prepare(`VACUUM INTO ?`).run(tmp);
    renameSync(tmp, out);
    return out;
  } catch (e) {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // the folder itself is what failed
    }
    throw new StoreError(`cannot copy ${path} into ${dir} before updating its schema (${message(e)}); the database was left as it was — free some space or make that folder writable`);
  }
}

function migrate(db: Db, migrations: Migration[], from: number): void {
  for (const m of migrations) {
    if (m.version <= from) continue;
    // foreign_keys cannot change inside a transaction; a rebuild checks the keys itself before committing.
    if (m.foreignKeysOff) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        m.up(db);
        if (m.foreignKeysOff && (db.pragma('foreign_key_check') as unknown[]).length > 0)
          throw new StoreError(`migration ${m.version} would break references between tables; the database was left as it was`);
        db.pragma(`application_id = ${APPLICATION_ID}`);
        db.pragma(`user_version = ${m.version}`);
      })();
    } finally {
      if (m.foreignKeysOff) db.pragma('foreign_keys = ON');
    }
  }
}

export function schemaVersion(db: Db): number {
  return db.pragma('user_version', { simple: true }) as number;
}
