import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { newUserRequest, openDatabase, type ActionContext, type Db } from '../../src-main/core';
import { TRACKED_TABLES } from '../../src-main/core/store/entities';

/** A fresh temp folder, removed when the test ends. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A fresh database file in a temp folder, closed and removed when the test ends. */
export function tempDb(): { db: Db; path: string; dir: string } {
  const dir = tempDir();
  const path = join(dir, 'tidy.db');
  const db = openDatabase(path);
  onTestFinished(() => {
    db.close();
  });
  return { db, path, dir };
}

/** A request id for changes made by hand in a test. */
export const userCtx = (db: Db): ActionContext => newUserRequest(db);

/** Every row of the tracked tables (the entity registry) and the settings, for before/after comparisons. */
export function snapshot(db: Db): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const t of [...TRACKED_TABLES, 'settings']) {
    out[t] = db.prepare(`SELECT * FROM ${t} ORDER BY ${t === 'settings' ? 'key' : 'id'}`).all();
  }
  return out;
}

/** Unwraps an ok result or fails the test with the domain's message. */
export function okValue<T>(r: { ok: true; value: T } | { ok: false; error: string; hint: string }): T {
  if (!r.ok) throw new Error(`expected success, got: ${r.error} (${r.hint})`);
  return r.value;
}
