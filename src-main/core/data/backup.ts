/**
 * Backups of Tidy's database: a copy on demand (`tidy backup`), a daily copy with retention, a copy before
 * any migration (store/db.ts), and restoring a copy (`tidy restore`). Every copy is made with SQLite's own
 * means (the online backup API or VACUUM INTO), never by copying a live file, so it is consistent while the
 * app or another command writes; and every copy is checked before it is given its final name.
 */
import Database from 'better-sqlite3';
import { closeSync, copyFileSync, existsSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { APPLICATION_ID, StoreError, type Db } from '../store/db';
import { lockHolders, acquireExclusive } from '../store/lock';
import { LATEST_VERSION, migrations } from '../store/migrations';
import { dropSearchTriggers } from '../store/search-index';
import { contentProblem, schemaDifference } from '../store/trust';

/** The folder beside the database where automatic backups and the copies kept aside go. */
export const backupsDir = (dbPath: string): string => join(dirname(dbPath), 'backups');

export interface BackupInfo {
  path: string;
  bytes: number;
  schemaVersion: number;
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e)).split('\n')[0]!;

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

function hasSqliteHeader(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.equals(SQLITE_MAGIC);
  } finally {
    closeSync(fd);
  }
}

/**
 * Checks that `path` is a whole Tidy database this Tidy can open: a SQLite file, Tidy's application_id, a
 * full integrity_check, and a schema version from 1 up to this Tidy's. Returns the schema version, or
 * throws a StoreError whose message is one line naming the file. Opens the file read-only.
 */
export function checkDatabaseFile(path: string, name = path, nativeBinding?: string): number {
  let st;
  try {
    st = statSync(path);
  } catch {
    throw new StoreError(`${name} does not exist; pass the path of a Tidy backup file`);
  }
  if (!st.isFile()) throw new StoreError(`${name} is not a file; pass the path of a Tidy backup file`);
  if (st.size < 100 || !hasSqliteHeader(path)) throw new StoreError(`${name} is not a SQLite database; pass a backup made by \`tidy backup\``);
  let db: Db | undefined;
  try {
    db = new Database(path, { readonly: true, fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    const appId = db.pragma('application_id', { simple: true }) as number;
    if (appId !== APPLICATION_ID) throw new StoreError(`${name} is a SQLite database but not a Tidy one; pass a backup made by \`tidy backup\``);
    const version = db.pragma('user_version', { simple: true }) as number;
    if (version > LATEST_VERSION)
      throw new StoreError(`${name} was written by a newer Tidy (schema ${version}; this Tidy knows up to ${LATEST_VERSION}); update Tidy to use it`);
    if (version < 1) throw new StoreError(`${name} has no Tidy schema; pass a backup made by \`tidy backup\``);
    const rows = db.pragma('integrity_check(1)', { simple: true }) as string;
    if (rows !== 'ok') throw new StoreError(`${name} is damaged (${rows.split('\n')[0]}); pick another backup`);
    // Not trusted for saying it is Tidy's: its schema must be the one Tidy builds for its version (store/trust.ts).
    const why = schemaDifference(db, version, migrations) ?? contentProblem(db, { references: true });
    if (why) throw new StoreError(`${name} is not a database Tidy made (${why}); pick another backup`);
    return version;
  } catch (e) {
    if (e instanceof StoreError) throw e;
    throw new StoreError(`${name} is damaged or unreadable (${message(e)}); pick another backup`);
  } finally {
    db?.close();
  }
}

function removeQuietly(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`, `${path}-journal`]) {
    try {
      rmSync(p, { force: true });
    } catch {
      // nothing more can be done; the error that matters is reported by the caller
    }
  }
}

/**
 * Makes a copy self-contained: rollback-journal mode, so that it is one file (opening it never creates a
 * -wal or -shm beside it, and copying it copies everything).
 */
function standalone(path: string, nativeBinding?: string): void {
  const db = new Database(path, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    db.pragma('journal_mode = DELETE');
  } finally {
    db.close();
  }
}

/**
 * What a restored or imported file may not bring in as it is: settings that start programs. Every MCP
 * server in `value` (the JSON of the mcpServers setting) comes in switched off and marked
 * `unconfirmed: 'restored'` until the user switches it on (`tidy mcp enable NAME` or the window's switch).
 * A value that is not an object of servers is dropped (null).
 */
export function unconfirmedMcpServers(value: unknown): Record<string, unknown> | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, unknown> = {};
  for (const [name, server] of Object.entries(value)) {
    if (typeof server !== 'object' || server === null || Array.isArray(server)) continue;
    out[name] = { ...server, enabled: false, unconfirmed: 'restored' };
  }
  return out;
}

/** Switches off the MCP servers of a staged copy (see unconfirmedMcpServers); the copy is Tidy's to change. */
function quarantineMcpServers(path: string, nativeBinding?: string): void {
  const db = new Database(path, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
  try {
    // The file's own search triggers never run (the next open makes Tidy's): not even on this write.
    dropSearchTriggers(db);
    const row = db.prepare(`SELECT value FROM settings WHERE key = 'mcpServers'`).get() as { value: string } | undefined;
    if (!row) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(row.value);
    } catch {
      parsed = null;
    }
    const safe = unconfirmedMcpServers(parsed);
    if (safe === null) db.prepare(`DELETE FROM settings WHERE key = 'mcpServers'`).run();
    else db.prepare(`UPDATE settings SET value = ? WHERE key = 'mcpServers'`).run(JSON.stringify(safe));
  } finally {
    db.close();
  }
}

/** A temporary name in the same folder as `path`, so that the final rename is atomic. */
const tempName = (path: string): string => join(dirname(path), `.${basename(path)}.${process.pid}.${Date.now()}.tmp`);

/**
 * The checks of checkDatabaseFile, made through the connection that was backed up (ATTACH), because the
 * desktop app loads better-sqlite3 with its own native binding (src-main/app/native.ts) and a second
 * `new Database` there would load the wrong one. Also makes the copy standalone (see above).
 */
function checkCopy(db: Db, copy: string, name: string): number {
  db.prepare(`ATTACH DATABASE ? AS tidy_copy`).run(copy);
  try {
    db.pragma('tidy_copy.journal_mode = DELETE');
    if (db.pragma('tidy_copy.application_id', { simple: true }) !== APPLICATION_ID) throw new StoreError(`${name} is not a Tidy database`);
    const version = db.pragma('tidy_copy.user_version', { simple: true }) as number;
    if (version < 1 || version > LATEST_VERSION) throw new StoreError(`${name} has schema ${version}, which this Tidy does not know`);
    const result = db.pragma('tidy_copy.integrity_check(1)', { simple: true }) as string;
    if (result !== 'ok') throw new StoreError(`${name} is damaged (${result.split('\n')[0]})`);
    return version;
  } finally {
    db.prepare(`DETACH DATABASE tidy_copy`).run();
  }
}

/**
 * Copies the open database to `out` with `VACUUM INTO`: one read transaction, so the copy is a consistent
 * snapshot however hard another process writes (WAL readers never wait for writers), and it cannot be
 * restarted by those writes as SQLite's page-by-page online backup is (which, under a write storm, kept
 * a backup of a large file going for minutes). The copy is checked, and only then given its name; an
 * existing `out` is replaced only by a checked copy.
 */
export async function backupDatabase(db: Db, out: string): Promise<BackupInfo> {
  try {
    mkdirSync(dirname(out), { recursive: true });
  } catch (e) {
    throw new StoreError(`cannot create the folder for ${out} (${message(e)}); pass --out with a writable path`);
  }
  if (existsSync(out) && statSync(out).isDirectory()) throw new StoreError(`${out} is a folder; pass --out with a file path`);
  const tmp = tempName(out);
  try {
    db.prepare('VACUUM INTO ?').run(tmp);
    const schemaVersion = checkCopy(db, tmp, out);
    renameSync(tmp, out);
    return { path: out, bytes: statSync(out).size, schemaVersion };
  } catch (e) {
    removeQuietly(tmp);
    if (e instanceof StoreError) throw new StoreError(`the backup failed its check (${e.message}); the database was not changed — try again`);
    throw new StoreError(`cannot write the backup to ${out} (${message(e)}); pass --out with a writable path with free space`);
  }
}

const pad = (n: number): string => String(n).padStart(2, '0');
/** The local calendar day of `d`, YYYY-MM-DD: a daily backup belongs to the user's day. */
export const localDay = (d: Date): string => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
/** A compact local timestamp for file names: 2026-11-23T175530. */
export const stamp = (d: Date): string => `${localDay(d)}T${pad(d.getHours())}${pad(d.getMinutes())}${pad(d.getSeconds())}`;

/** Daily backups are named tidy-YYYY-MM-DD.db; only files named so are ever deleted by retention. */
const DAILY = /^tidy-(\d{4})-(\d{2})-(\d{2})\.db$/;
export const KEEP_DAILY = 7;
export const KEEP_WEEKLY = 4;

/** Days since 1970-01-01 of a YYYY-MM-DD date, and its Monday-based week. */
function dayNumber(y: number, m: number, d: number): number {
  return Math.floor(Date.UTC(y, m - 1, d) / 86_400_000);
}
const weekOf = (day: number): number => Math.floor((day + 3) / 7); // 1970-01-01 was a Thursday

/**
 * Which daily backup files to delete: the newest KEEP_DAILY are kept, then the newest file of each of
 * the KEEP_WEEKLY most recent weeks among the older ones; `protect` (the file just made) is never deleted.
 * Dates come from the file names, not from file times, which copying or syncing changes.
 */
export function retentionPlan(names: string[], protect?: string): { keep: string[]; remove: string[] } {
  const dated = names
    .map((name) => {
      const m = DAILY.exec(name);
      return m ? { name, day: dayNumber(Number(m[1]), Number(m[2]), Number(m[3])) } : null;
    })
    .filter((x): x is { name: string; day: number } => x !== null && Number.isFinite(x.day))
    .sort((a, b) => b.day - a.day || (a.name < b.name ? 1 : -1));
  const keep = new Set(dated.slice(0, KEEP_DAILY).map((x) => x.name));
  const weeks = new Set<number>();
  for (const x of dated.slice(KEEP_DAILY)) {
    if (weeks.size >= KEEP_WEEKLY) break;
    const w = weekOf(x.day);
    if (weeks.has(w)) continue;
    weeks.add(w);
    keep.add(x.name);
  }
  if (protect) keep.add(protect);
  return { keep: dated.filter((x) => keep.has(x.name)).map((x) => x.name), remove: dated.filter((x) => !keep.has(x.name)).map((x) => x.name) };
}

export interface AutoBackupResult {
  /** The backup made now, or null when today's already existed. */
  made: BackupInfo | null;
  removed: string[];
}

/**
 * The daily backup, for the app and `tidy serve` to call at start (and once a day if they stay up): at
 * most one per local day in backupsDir(dbPath), then retention (7 daily + 4 weekly). Files there that
 * Tidy did not name as daily backups are never touched.
 */
export async function autoBackup(db: Db, dbPath: string, now: Date = new Date()): Promise<AutoBackupResult> {
  const dir = backupsDir(dbPath);
  const name = `tidy-${localDay(now)}.db`;
  const target = join(dir, name);
  const made = existsSync(target) ? null : await backupDatabase(db, target);
  const { remove } = retentionPlan(readdirSync(dir), name);
  for (const n of remove) rmSync(join(dir, n), { force: true });
  return { made, removed: remove };
}

/**
 * Daily backups for a process that stays up (the app, `tidy serve`): one attempt now, then every hour
 * (autoBackup makes at most one a day). A failure is one line in the log, never the end of the process.
 * Returns a function that stops it. `db` may be a function giving the connection of the moment (a host that
 * restores a backup from the window closes its connection and opens a new one).
 */
export function scheduleAutoBackups(current: Db | (() => Db), dbPath: string, log: (line: string) => void, everyMs = 3_600_000): () => void {
  if (dbPath === ':memory:') return () => {};
  let running = false;
  const tick = (): void => {
    const db = typeof current === 'function' ? current() : current;
    if (running || !db.open) return;
    running = true;
    autoBackup(db, dbPath)
      .catch((e: unknown) => log(`the daily backup failed: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => {
        running = false;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}

export interface RestoreResult {
  /** Where the database that was replaced is kept, or null when there was none. */
  keptAt: string | null;
  schemaVersion: number;
}

/**
 * Replaces the database at `dbPath` with the backup `file`. The backup is checked first (checkDatabaseFile)
 * and copied beside the database, where the copy is checked again; the current database (with its -wal)
 * is then copied into backupsDir, and only then does the checked copy take its place by an atomic rename.
 * Any refusal leaves the current database as it was. Tidy should not be running on that database meanwhile.
 * Opens files with better-sqlite3's default binding unless `nativeBinding` names another (the desktop app's).
 */
export function restoreDatabase(file: string, dbPath: string, now: Date = new Date(), options: { lockWaitMs?: number; nativeBinding?: string } = {}): RestoreResult {
  const binding = options.nativeBinding;
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st) throw new StoreError(`${file} does not exist; pass the path of a Tidy backup file`);
  if (st.isDirectory()) throw new StoreError(`${file} is a folder, not a backup file; pass the path of a Tidy backup file in it (tidy-*.db)`);
  if (!st.isFile()) throw new StoreError(`${file} is not a file; pass the path of a Tidy backup file`);
  if (resolve(file) === resolve(dbPath)) throw new StoreError(`${file} is the database itself; pass a backup file`);
  if (existsSync(dbPath) && !statSync(dbPath).isFile()) throw new StoreError(`${dbPath} is not a file; pass --db with the database file to replace`);
  mkdirSync(dirname(dbPath), { recursive: true });
  // No other Tidy may have it open (store/lock.ts): one that did would go on writing into the file replaced.
  const lock = acquireExclusive(dbPath, { action: 'restore', waitMs: options.lockWaitMs ?? 2000, ...(binding ? { nativeBinding: binding } : {}) });
  const staged = tempName(dbPath);
  try {
    // Only the copy is ever opened: checking a file in place could leave a -wal or -shm beside it.
    copyFileSync(file, staged);
    const schemaVersion = checkDatabaseFile(staged, file, binding);
    standalone(staged, binding);
    quarantineMcpServers(staged, binding);
    for (const side of ['-wal', '-shm', '-journal']) rmSync(`${staged}${side}`, { force: true });

    let keptAt: string | null = null;
    if (existsSync(dbPath)) {
      settle(dbPath, binding);
      const dir = backupsDir(dbPath);
      mkdirSync(dir, { recursive: true });
      keptAt = join(dir, `tidy-before-restore-${stamp(now)}.db`);
      for (let n = 2; existsSync(keptAt); n++) keptAt = join(dir, `tidy-before-restore-${stamp(now)}-${n}.db`);
      // Copied beside the database under a temporary name (which the next open removes if a kill cuts the
      // copy off, store/db.ts), then renamed into backups/: a cut-off copy is never listed as a backup.
      const keptTmp = tempName(dbPath);
      try {
        copyFileSync(dbPath, keptTmp);
        if (existsSync(`${dbPath}-wal`) && statSync(`${dbPath}-wal`).size > 0) {
          copyFileSync(`${dbPath}-wal`, `${keptTmp}-wal`);
          renameSync(`${keptTmp}-wal`, `${keptAt}-wal`);
        }
        renameSync(keptTmp, keptAt);
      } finally {
        for (const side of ['', '-wal']) removeQuietly(`${keptTmp}${side}`);
      }
      // A -wal left beside the new file would be replayed into it: remove the old one first (its content
      // is in the copy kept aside, and was checkpointed into the file just before).
      for (const side of ['-wal', '-shm', '-journal']) rmSync(`${dbPath}${side}`, { force: true });
    }
    renameSync(staged, dbPath);
    return { keptAt, schemaVersion };
  } catch (e) {
    removeQuietly(staged);
    if (e instanceof StoreError) throw e;
    throw new StoreError(`cannot restore into ${dbPath} (${message(e)}); the current database was left as it was`);
  } finally {
    lock.release();
  }
}

/**
 * Moves everything in the current database's -wal into the file, so the file alone is the whole database.
 * A busy checkpoint means another Tidy is using it: refuse rather than pull the file from under it. A
 * damaged current database (perhaps the reason for the restore) is not an obstacle: it is kept aside as it is.
 */
function settle(dbPath: string, nativeBinding?: string): void {
  let db: Db | undefined;
  let busy = false;
  try {
    db = new Database(dbPath, { fileMustExist: true, ...(nativeBinding ? { nativeBinding } : {}) });
    db.pragma('busy_timeout = 2000');
    // A first read rolls back a hot rollback journal, which would otherwise be replayed into the new file.
    db.prepare(`SELECT count(*) FROM sqlite_master`).get();
    const [r] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number; log: number; checkpointed: number }[];
    busy = r !== undefined && r.busy !== 0;
  } catch (e) {
    const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '';
    if (code === 'SQLITE_BUSY') busy = true;
  } finally {
    db?.close();
  }
  if (busy) {
    const who = lockHolders(dbPath).filter((h) => h.pid !== process.pid)[0];
    throw new StoreError(`${dbPath} is open in ${who ? `${who.name} (pid ${who.pid})` : 'another Tidy (the app or `tidy serve`)'}; close it and run the restore again — nothing was changed`);
  }
}

/** A backup file Tidy made (daily, on demand, before an import or a restore), as the UI shows it. */
export interface BackupFileInfo {
  path: string;
  /** When it was written (the file's time), ISO 8601. */
  at: string;
  bytes: number;
}

/** The newest backup in backupsDir(dbPath) (files named tidy-*.db), or null when there is none. */
export function lastBackup(dbPath: string): BackupFileInfo | null {
  if (dbPath === ':memory:' || dbPath === '') return null;
  let names: string[];
  try {
    names = readdirSync(backupsDir(dbPath));
  } catch {
    return null;
  }
  let best: BackupFileInfo | null = null;
  for (const name of names) {
    if (!/^tidy-.*\.db$/.test(name)) continue;
    const path = join(backupsDir(dbPath), name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    if (!best || st.mtimeMs > Date.parse(best.at)) best = { path, at: new Date(st.mtimeMs).toISOString(), bytes: st.size };
  }
  return best;
}

/** A backup on demand into the backups folder (the UI's "Back up now"): backups/tidy-backup-<time>.db. */
export async function backupNow(db: Db, dbPath: string, now: Date = new Date()): Promise<BackupFileInfo> {
  if (dbPath === ':memory:' || dbPath === '') throw new StoreError('this database lives in memory only; there is no file to back up');
  let out = join(backupsDir(dbPath), `tidy-backup-${stamp(now)}.db`);
  for (let n = 2; existsSync(out); n++) out = join(backupsDir(dbPath), `tidy-backup-${stamp(now)}-${n}.db`);
  const info = await backupDatabase(db, out);
  return { path: info.path, at: new Date(statSync(info.path).mtimeMs).toISOString(), bytes: info.bytes };
}
