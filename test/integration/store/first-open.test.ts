// Processes that open a new or an older database at the same moment: the first migrates (and copies the
// older file first) under one write lock, the others wait and find it migrated (issue 28 item 4).
import Database from 'better-sqlite3';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src-main/core';
import { migrations } from '../../../src-main/core/store/migrations';
import { tidyAsync } from '../../support/cli-async';
import { tempDir } from '../../support/db';

const LONG = 600_000;

const contents = (db: string): string[] => {
  const raw = new Database(db, { readonly: true });
  try {
    return (raw.prepare(`SELECT content FROM tasks ORDER BY content`).all() as { content: string }[]).map((r) => r.content);
  } finally {
    raw.close();
  }
};

describe('first open races', () => {
  it(
    // Each new file is raced by PER_FILE processes started at once: one creates and migrates it, the others
    // wait for its write lock and find it migrated. Three race as five did (a creator, a waiter, a waiter
    // behind a waiter) without starting five Node processes at once on a loaded 2-core CI machine (where
    // five once failed a run and passed only on the retry); eight files still give eight fresh races.
    '8 new files × 3 concurrent tidy add: all 24 captures succeed',
    async () => {
      const PER_FILE = [0, 1, 2];
      const dir = tempDir();
      const failures: string[] = [];
      for (let f = 0; f < 8; f++) {
        const db = join(dir, `new-${f}.db`);
        const runs = PER_FILE.map((i) => tidyAsync(db, ['add', `capture ${f}.${i}`]).done);
        for (const r of await Promise.all(runs)) if (r.code !== 0) failures.push(r.stderr.trim());
        expect(contents(db)).toEqual(PER_FILE.map((i) => `capture ${f}.${i}`));
      }
      expect(failures).toEqual([]);
    },
    LONG,
  );

  it(
    'an older file opened by 5 processes at once is migrated once, with one backup copy',
    async () => {
      const dir = tempDir();
      const db = join(dir, 'tidy.db');
      const old = openDatabase(db, { migrations: migrations.slice(0, 6) });
      // Written as schema 6 wrote it (the domain of today may need columns of later schemas).
      old.exec(`INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t1', 'from schema 6', 'inbox', '2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z');
        INSERT INTO id_counters (kind, next) VALUES ('t', 2);`);
      old.close();

      const runs = [0, 1, 2, 3, 4].map((i) => tidyAsync(db, ['add', `capture ${i}`]).done);
      const results = await Promise.all(runs);
      expect(results.filter((r) => r.code !== 0).map((r) => r.stderr.trim())).toEqual([]);
      expect(contents(db)).toEqual(['capture 0', 'capture 1', 'capture 2', 'capture 3', 'capture 4', 'from schema 6']);
      const copies = readdirSync(join(dir, 'backups')).filter((n) => n.startsWith('tidy-before-schema-'));
      expect(copies).toHaveLength(1);
      expect(copies[0]).toMatch(new RegExp(`^tidy-before-schema-${migrations.at(-1)!.version}-from-6-`));
      const raw = new Database(db, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
      raw.close();
    },
    LONG,
  );
});
