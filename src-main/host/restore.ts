/**
 * Restoring from the window (Settings → Your data → Restore): the uploaded file becomes a checked Tidy
 * database in a folder of its own before the host lets go of its database. A backup (.db, a SQLite file)
 * is checked as `tidy restore` checks it; a JSON export (`tidy export`, "Export as JSON") is imported into
 * a new database, as `tidy import tidy` does. Either way a bad file is refused in one line here, while the
 * host's database is still open and untouched.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../core';
import { checkDatabaseFile, importTidyExport } from '../core/data';
import { StoreError } from '../core/store/db';
import type { UploadedFile } from './uploads';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

interface StagedRestore {
  /** A checked Tidy database to restore from. */
  path: string;
  from: 'backup' | 'export';
  /** Removes the staged files. */
  dispose(): void;
}

/** A name fit for a one-line message: printable, at most 80 characters. */
const shown = (name: string): string => {
  const clean = name.replace(/[\p{Cc}\p{Cf}]/gu, '').trim().slice(0, 80);
  return clean || 'the file';
};

/** The upload as a checked database file (see above), or a StoreError in one line naming the file. */
export function stageRestoreFile(file: UploadedFile, nativeBinding?: string): StagedRestore {
  const name = shown(file.name);
  const dir = mkdtempSync(join(tmpdir(), 'tidy-restore-'));
  const dispose = (): void => rmSync(dir, { recursive: true, force: true });
  try {
    if (file.bytes.subarray(0, 16).equals(SQLITE_MAGIC)) {
      const path = join(dir, 'backup.db');
      writeFileSync(path, file.bytes);
      checkDatabaseFile(path, name, nativeBinding);
      return { path, from: 'backup', dispose };
    }
    const first = file.bytes.subarray(0, 64).toString('utf8').trimStart()[0];
    if (first !== '{') throw new StoreError(`${name} is neither a Tidy backup (.db) nor a Tidy JSON export; pick a file made by "Back up now" or "Export as JSON"`);
    const json = join(dir, 'export.json');
    writeFileSync(json, file.bytes);
    const path = join(dir, 'from-export.db');
    const db = openDatabase(path, { backupBeforeMigration: false, holder: 'a restore being prepared', ...(nativeBinding ? { nativeBinding } : {}) });
    try {
      importTidyExport(db, json);
    } catch (e) {
      // Its messages name the staged copy: name the user's file instead.
      if (e instanceof StoreError) throw new StoreError(e.message.split(json).join(name).split('\n')[0]!);
      throw e;
    } finally {
      db.close();
    }
    return { path, from: 'export', dispose };
  } catch (e) {
    dispose();
    throw e;
  }
}
