/**
 * Who has a database open, as the operating system sees it: every Tidy process that opens a database
 * holds a shared lock on a side file `<db>.lock`, and a restore takes it exclusively or refuses.
 *
 * The lock is SQLite's own file locking, through better-sqlite3 (no other native module): `<db>.lock` is an
 * empty SQLite database in rollback-journal mode; a holder keeps a read transaction open on it (a SHARED
 * lock), a restore asks for `BEGIN EXCLUSIVE` (an EXCLUSIVE lock, refused while any SHARED one is held).
 * SQLite takes these as POSIX advisory byte-range locks (fcntl) on Linux and macOS and as LockFileEx
 * ranges on Windows; the kernel drops them when the process ends however it ends (kill -9, a crash, a
 * power cut), so a lock is never left behind. SQLite also keeps two connections of one process from
 * fooling each other (POSIX locks belong to the process, SQLite tracks them per file).
 *
 * Who holds it is written beside it, in `.<db>.holder-<pid>-<n>.json` ({pid, name}), removed at close
 * or when the process exits; a record whose process is gone (kill -9) is ignored and removed by the next
 * open. The records only name the holder in a refusal: the lock is what decides.
 */
import Database from 'better-sqlite3';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StoreError } from './errors';

export const lockPath = (dbPath: string): string => `${dbPath}.lock`;
/** A holder's record: `.<db>.holder-<pid>-<n>.json` beside the database. */
const recordPrefix = (dbPath: string): string => `.${basename(dbPath)}.holder-`;
const RECORD = /^(\d+)-\d+\.json$/;

export interface DbLock {
  release(): void;
}

export interface Holder {
  pid: number;
  name: string;
}

interface LockOptions {
  nativeBinding?: string;
  /** How long to wait for the lock (a restore in progress, or holders finishing). */
  waitMs: number;
}

const code = (e: unknown): string => (typeof e === 'object' && e !== null && 'code' in e ? String((e as { code: unknown }).code) : '');
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return code(e) === 'EPERM';
  }
}

let counter = 0;

/** This process's records, removed when it exits without closing (a host stopped by a signal). */
const records = new Set<string>();
let exitHook = false;

function removeRecord(record: string): void {
  records.delete(record);
  try {
    rmSync(record, { force: true });
  } catch {
    // already gone
  }
}

function openLockFile(dbPath: string, options: LockOptions): Database.Database {
  const path = lockPath(dbPath);
  let db: Database.Database;
  try {
    db = new Database(path, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {});
  } catch (e) {
    throw new StoreError(`cannot open the lock file ${path} (${message(e)}); check that its folder is writable`);
  }
  db.pragma(`busy_timeout = ${Math.max(0, Math.round(options.waitMs))}`);
  return db;
}

/** The processes that say they hold the lock and still run (stale records are removed). */
export function lockHolders(dbPath: string): Holder[] {
  const dir = dirname(dbPath);
  const prefix = recordPrefix(dbPath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: Holder[] = [];
  for (const name of names) {
    const m = name.startsWith(prefix) ? RECORD.exec(name.slice(prefix.length)) : null;
    if (!m) continue;
    try {
      const pid = Number(m[1]);
      if (!alive(pid)) {
        rmSync(join(dir, name), { force: true });
        continue;
      }
      const h = JSON.parse(readFileSync(join(dir, name), 'utf8').slice(0, 1000)) as Partial<Holder>;
      out.push({ pid, name: typeof h.name === 'string' ? h.name.slice(0, 60) : 'Tidy' });
    } catch {
      // a record being written or removed right now
    }
  }
  return out;
}

/**
 * Holds the database open for this process (see above): waits up to `waitMs` while a restore has it,
 * then refuses in one line. `name` says who this is in another process's refusal ("tidy serve").
 */
export function acquireShared(dbPath: string, options: LockOptions & { name: string }): DbLock {
  const db = openLockFile(dbPath, options);
  try {
    db.exec('BEGIN');
    // A read inside the transaction takes the SHARED lock and keeps it until COMMIT.
    db.prepare('SELECT count(*) FROM sqlite_master').get();
  } catch (e) {
    db.close();
    if (code(e) === 'SQLITE_BUSY') throw new StoreError(`${dbPath} is being restored by another Tidy process; wait for it to finish and try again`);
    throw new StoreError(`cannot lock ${dbPath} (${message(e)} in ${lockPath(dbPath)}); delete that lock file if no Tidy is running and try again`);
  }
  let record: string | undefined;
  try {
    // Records of processes that are gone (kill -9) go first.
    lockHolders(dbPath);
    record = join(dirname(dbPath), `${recordPrefix(dbPath)}${process.pid}-${++counter}.json`);
    writeFileSync(record, JSON.stringify({ pid: process.pid, name: options.name }));
    records.add(record);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const r of [...records]) removeRecord(r);
      });
    }
  } catch {
    // The name is a courtesy for a refusal; the lock is held.
    record = undefined;
  }
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        db.close();
      } finally {
        if (record) removeRecord(record);
      }
    },
  };
}

/**
 * The database for this process alone (a restore): refuses in one line naming who has it open (a
 * running process that took the shared lock) when it cannot be had within `waitMs`.
 */
export function acquireExclusive(dbPath: string, options: LockOptions & { action: string }): DbLock {
  const db = openLockFile(dbPath, options);
  try {
    db.exec('BEGIN EXCLUSIVE');
  } catch (e) {
    db.close();
    if (code(e) !== 'SQLITE_BUSY' && code(e) !== 'SQLITE_LOCKED')
      throw new StoreError(`cannot lock ${dbPath} (${message(e)} in ${lockPath(dbPath)}); nothing was changed`);
    const others = lockHolders(dbPath).filter((h) => h.pid !== process.pid);
    const who = others.length
      ? others.map((h) => `${h.name} (pid ${h.pid})`).slice(0, 3).join(', ') + (others.length > 3 ? ` and ${others.length - 3} more` : '')
      : others.length === 0 && lockHolders(dbPath).length
        ? 'this process'
        : 'another Tidy process';
    throw new StoreError(`${dbPath} is open in ${who}; close it and run the ${options.action} again — nothing was changed`);
  }
  return {
    release() {
      if (!db.open) return;
      try {
        db.exec('ROLLBACK');
      } finally {
        db.close();
      }
    },
  };
}
