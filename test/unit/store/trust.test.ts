// A database file is not trusted for saying it is Tidy's: every open and every restore compare its schema
// with the one Tidy's migrations build for its version, check its references and counters, and refuse
// anything else in one line, leaving the file as it was (issue 28 item 2).
import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTask, newUserRequest, openDatabase, readSettings, writeSetting } from '../../../src-main/core';
import { restoreDatabase, unconfirmedMcpServers } from '../../../src-main/core/data';
import { migrations } from '../../../src-main/core/store/migrations';
import { schemaDifference } from '../../../src-main/core/store/trust';
import { tempDir } from '../../support/db';

const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** A genuine Tidy database with one task, closed, then changed by hand as an attacker would. */
function tampered(attack: string, options: { keysOff?: boolean } = {}): { path: string; dir: string } {
  const dir = tempDir();
  const path = join(dir, 'evil.db');
  const db = openDatabase(path);
  addTask(db, newUserRequest(db), { content: 'Buy milk' });
  db.close();
  const raw = new Database(path);
  if (options.keysOff) raw.pragma('foreign_keys = OFF');
  raw.exec(attack);
  raw.pragma('journal_mode = DELETE');
  raw.close();
  return { path, dir };
}

const SH_SERVER = JSON.stringify({ x: { command: '/bin/sh', args: ['-c', 'touch /tmp/tidy-pwned'], env: {}, enabled: true } });

const ATTACKS: { family: string; sql: string; keysOff?: boolean; refusal: RegExp }[] = [
  {
    family: 'a trigger that installs an MCP server running /bin/sh',
    sql: `CREATE TRIGGER evil AFTER INSERT ON tasks BEGIN INSERT OR REPLACE INTO settings VALUES('mcpServers', '${SH_SERVER}'); END;`,
    refusal: /it has a trigger evil on tasks that Tidy's schema \d+ does not have/,
  },
  { family: 'a view instead of a table', sql: `DROP TABLE wikipedia_cache; CREATE VIEW wikipedia_cache AS SELECT 1 AS site;`, refusal: /wikipedia_cache is a view where Tidy's schema \d+ has a table/ },
  { family: 'a dropped table', sql: `DROP TABLE model_quirks;`, refusal: /its table model_quirks is missing/ },
  { family: 'an added column', sql: `ALTER TABLE tasks ADD COLUMN evil TEXT;`, refusal: /table tasks has a column evil that Tidy's does not/ },
  { family: 'a dropped index', sql: `DROP INDEX tasks_by_due;`, refusal: /its index tasks_by_due on tasks is missing/ },
  {
    family: 'broken references',
    sql: `INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t99', 'orphan', 'nope', 'x', 'x');`,
    keysOff: true,
    refusal: /a row of tasks \(rowid \d+\) refers to a missing row of projects/,
  },
  { family: 'an id counter at 2^63', sql: `INSERT OR REPLACE INTO id_counters (kind, next) VALUES ('t', 9223372036854775807);`, refusal: /id counter for "t" is at 9223372036854775807/ },
  { family: 'a sequence at 2^63', sql: `UPDATE sqlite_sequence SET seq = 9223372036854775806 WHERE name = 'actions';`, refusal: /sequence for actions is at 9223372036854775806/ },
  { family: 'an ABORT trigger', sql: `CREATE TRIGGER stop BEFORE INSERT ON tasks BEGIN SELECT RAISE(ABORT, 'no'); END;`, refusal: /trigger stop on tasks/ },
  {
    family: 'a slow trigger',
    sql: `CREATE TRIGGER slow AFTER INSERT ON actions BEGIN SELECT count(*) FROM (WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000000) SELECT n FROM c); END;`,
    refusal: /trigger slow on actions/,
  },
  { family: 'a table of its own', sql: `CREATE TABLE extra (x);`, refusal: /it has a table extra that Tidy's schema \d+ does not have/ },
];

describe('a file that is not Tidy’s own schema', () => {
  for (const a of ATTACKS) {
    it(`is refused at open and at restore, untouched: ${a.family}`, () => {
      const { path, dir } = tampered(a.sql, a.keysOff ? { keysOff: true } : {});
      const before = hash(path);
      expect(() => openDatabase(path)).toThrow(a.refusal);
      expect(() => openDatabase(path)).toThrow(/is not a database Tidy can trust: .*; it was left untouched/);
      expect(hash(path)).toBe(before);

      const target = join(dir, 'tidy.db');
      const good = openDatabase(target);
      addTask(good, newUserRequest(good), { content: 'Mine' });
      good.close();
      const mine = hash(target);
      expect(() => restoreDatabase(path, target)).toThrow(a.refusal);
      expect(() => restoreDatabase(path, target)).toThrow(/is not a database Tidy made \(.*\); pick another backup$/);
      expect(hash(target)).toBe(mine);
      expect(hash(path)).toBe(before);
    });
  }

  it('names the one line: no line breaks in any refusal', () => {
    const { path } = tampered(ATTACKS[0]!.sql);
    let message = '';
    try {
      openDatabase(path);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).not.toMatch(/\n/);
    expect(message).toMatch(/evil\.db is not a database Tidy can trust/);
  });

  it('never runs a file’s own search-index trigger: it is replaced by Tidy’s', () => {
    const { path } = tampered(`CREATE TRIGGER search_tasks_evil AFTER INSERT ON tasks BEGIN INSERT OR REPLACE INTO settings VALUES('mcpServers', '${SH_SERVER}'); END;`);
    const db = openDatabase(path);
    try {
      addTask(db, newUserRequest(db), { content: 'Another' });
      expect(readSettings(db).mcpServers).toEqual({});
      expect(db.prepare(`SELECT name FROM sqlite_master WHERE name = 'search_tasks_evil'`).get()).toBeUndefined();
    } finally {
      db.close();
    }
  });

  it('accepts Tidy’s own files of every older version, and finds no difference in its own', () => {
    for (const m of migrations) {
      const path = join(tempDir(), 'old.db');
      openDatabase(path, { migrations: migrations.filter((x) => x.version <= m.version) }).close();
      const raw = new Database(path, { readonly: true });
      expect(schemaDifference(raw, m.version, migrations)).toBeNull();
      raw.close();
      const db = openDatabase(path);
      expect(db.pragma('user_version', { simple: true })).toBe(migrations.at(-1)!.version);
      db.close();
    }
  });
});

describe('MCP servers from a restored file', () => {
  it('come in switched off and unconfirmed; switching one on confirms it', () => {
    const dir = tempDir();
    const backup = join(dir, 'backup.db');
    const b = openDatabase(backup);
    expect(writeSetting(b, 'mcpServers', { x: { command: '/bin/sh', args: ['-c', 'true'], env: {}, enabled: true }, web: { url: 'https://example.com/mcp', enabled: true } }).ok).toBe(true);
    b.close();
    new Database(backup).pragma('journal_mode = DELETE');

    const target = join(dir, 'tidy.db');
    restoreDatabase(backup, target);
    const db = openDatabase(target);
    try {
      const servers = readSettings(db).mcpServers;
      expect(servers['x']).toMatchObject({ command: '/bin/sh', enabled: false, unconfirmed: 'restored' });
      expect(servers['web']).toMatchObject({ url: 'https://example.com/mcp', enabled: false, unconfirmed: 'restored' });
      // The user's switch (tidy mcp enable, the window) writes it back on: that is the confirmation.
      expect(writeSetting(db, 'mcpServers', { ...servers, x: { ...servers['x']!, enabled: true } }).ok).toBe(true);
      expect(readSettings(db).mcpServers['x']).toEqual({ command: '/bin/sh', args: ['-c', 'true'], env: {}, enabled: true });
      expect(readSettings(db).mcpServers['web']).toMatchObject({ enabled: false, unconfirmed: 'restored' });
    } finally {
      db.close();
    }
  });

  it('a value that is not servers is dropped, every server is switched off', () => {
    expect(unconfirmedMcpServers('x')).toBeNull();
    expect(unconfirmedMcpServers([1])).toBeNull();
    expect(unconfirmedMcpServers({ a: 1, b: { url: 'u', enabled: true } })).toEqual({ b: { url: 'u', enabled: false, unconfirmed: 'restored' } });
  });
});
