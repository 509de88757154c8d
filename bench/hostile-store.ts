// The store's families for the hostile suite (issue 28 items 1, 2, 4): files that say they are Tidy's
// but carry a trigger, a view, a dropped table, broken references, counters at 2^63, ABORT or slow
// triggers; and restores while another connection has the database open. Survived: refused in one line,
// the file byte for byte as it was, and the attack never ran.
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addTask, newUserRequest, openDatabase, readSettings } from '../src-main/core';
import { restoreDatabase } from '../src-main/core/data';

const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

const SH = JSON.stringify({ x: { command: '/bin/sh', args: ['-c', 'true'], env: {}, enabled: true } });

/** One SQL attack per entry, applied to a genuine Tidy file with one task. */
export const STORE_ATTACKS: { name: string; sql: string; keysOff?: boolean }[] = [
  { name: 'trigger installing an MCP server', sql: `CREATE TRIGGER evil AFTER INSERT ON tasks BEGIN INSERT OR REPLACE INTO settings VALUES('mcpServers', '${SH}'); END;` },
  { name: 'trigger on the action log', sql: `CREATE TRIGGER evil2 AFTER INSERT ON actions BEGIN INSERT OR REPLACE INTO settings VALUES('mcpServers', '${SH}'); END;` },
  { name: 'trigger on settings', sql: `CREATE TRIGGER evil3 BEFORE UPDATE ON settings BEGIN SELECT 1; END;` },
  { name: 'ABORT trigger', sql: `CREATE TRIGGER stop BEFORE INSERT ON tasks BEGIN SELECT RAISE(ABORT, 'no'); END;` },
  { name: 'slow trigger', sql: `CREATE TRIGGER slow AFTER INSERT ON actions BEGIN SELECT count(*) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000000) SELECT n FROM c); END;` },
  { name: 'view instead of a table', sql: `DROP TABLE wikipedia_cache; CREATE VIEW wikipedia_cache AS SELECT 1 AS site;` },
  { name: 'view of its own', sql: `CREATE VIEW v AS SELECT * FROM tasks;` },
  { name: 'dropped table', sql: `DROP TABLE model_quirks;` },
  { name: 'dropped index', sql: `DROP INDEX tasks_by_due;` },
  { name: 'extra index', sql: `CREATE INDEX extra ON tasks(content);` },
  { name: 'added column', sql: `ALTER TABLE tasks ADD COLUMN evil TEXT;` },
  { name: 'table of its own', sql: `CREATE TABLE extra (x);` },
  { name: 'table rebuilt without its CHECK', sql: `PRAGMA foreign_keys = OFF; CREATE TABLE t2 AS SELECT * FROM reminders_sent; DROP TABLE reminders_sent; ALTER TABLE t2 RENAME TO reminders_sent;` },
  { name: 'broken references', sql: `INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t99', 'orphan', 'nope', 'x', 'x');`, keysOff: true },
  { name: 'id counter at 2^63', sql: `INSERT OR REPLACE INTO id_counters (kind, next) VALUES ('t', 9223372036854775807);` },
  { name: 'id counter as text', sql: `INSERT OR REPLACE INTO id_counters (kind, next) VALUES ('t', 'x');` },
  { name: 'sequence at 2^63', sql: `UPDATE sqlite_sequence SET seq = 9223372036854775806 WHERE name = 'actions';` },
];

function tampered(dir: string, i: number, sql: string, keysOff = false): string {
  const path = join(dir, `attack-${i}.db`);
  const db = openDatabase(path);
  addTask(db, newUserRequest(db), { content: 'Buy milk' });
  db.close();
  const raw = new Database(path);
  if (keysOff) raw.pragma('foreign_keys = OFF');
  raw.exec(sql);
  raw.pragma('journal_mode = DELETE');
  raw.close();
  return path;
}

/** Each attack tried at open and at restore: survived when both refuse and nothing changed. */
export function restoredFiles(): Promise<[number, number, string]> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-store-'));
  let survived = 0;
  const failures: string[] = [];
  try {
    const target = join(dir, 'tidy.db');
    openDatabase(target).close();
    STORE_ATTACKS.forEach((a, i) => {
      const path = tampered(dir, i, a.sql, a.keysOff);
      const before = hash(path);
      const mine = hash(target);
      let refusedOpen = false;
      let refusedRestore = false;
      try {
        openDatabase(path).close();
      } catch (e) {
        refusedOpen = e instanceof Error && !e.message.includes('\n');
      }
      try {
        restoreDatabase(path, target);
      } catch (e) {
        refusedRestore = e instanceof Error && !e.message.includes('\n');
      }
      const check = openDatabase(target);
      const clean = Object.keys(readSettings(check).mcpServers).length === 0;
      check.close();
      if (refusedOpen && refusedRestore && hash(path) === before && hash(target) === mine && clean) survived++;
      else failures.push(a.name);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return Promise.resolve([STORE_ATTACKS.length, survived, `${STORE_ATTACKS.length} schema/content attacks, each at open and at restore${failures.length ? `; NOT refused: ${failures.join(', ')}` : ''}`]);
}

/** Restores attempted while another connection holds the database: survived when refused and no write lost. */
export function restoreWhileOpen(rounds = 20): Promise<[number, number, string]> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-store-'));
  let survived = 0;
  try {
    const path = join(dir, 'tidy.db');
    const backup = join(dir, 'backup.db');
    openDatabase(backup).close();
    const db = openDatabase(path, { holder: 'the bench' });
    let written = 0;
    for (let i = 0; i < rounds; i++) {
      for (let k = 0; k < 10; k++) if (addTask(db, newUserRequest(db), { content: `w${i}.${k}` }).ok) written++;
      try {
        restoreDatabase(backup, path, new Date(), { lockWaitMs: 20 });
      } catch (e) {
        const count = (db.prepare(`SELECT count(*) AS n FROM tasks WHERE content LIKE 'w%'`).get() as { n: number }).n;
        if (e instanceof Error && /is open in /.test(e.message) && count === written) survived++;
      }
    }
    db.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return Promise.resolve([rounds, survived, `${rounds} restores between writes of a process that has the database open; each refused, every acknowledged write kept`]);
}
