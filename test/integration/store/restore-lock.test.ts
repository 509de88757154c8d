// A restore while another Tidy process has the database open is refused, naming that process, and no
// write that process acknowledged is lost (issue 28 item 1); the lock is the OS's, so kill -9 frees it.
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import Database from 'better-sqlite3';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { openDatabase } from '../../../src-main/core';
import { restoreDatabase } from '../../../src-main/core/data';
import { REPO, TIDY_BIN, tidy } from '../../support/cli';
import { tidyAsync } from '../../support/cli-async';
import { tempDir } from '../../support/db';
import { startServe } from '../../support/serve';

const LONG = 180_000;

function backupOf(dir: string): { db: string; backup: string } {
  const db = join(dir, 'tidy.db');
  expect(tidy(db, ['add', 'Before the backup']).code).toBe(0);
  const backup = join(dir, 'backup.db');
  expect(tidy(db, ['backup', '--out', backup]).code).toBe(0);
  return { db, backup };
}

const taskCount = (db: string, like: string): number => {
  const raw = new Database(db, { readonly: true });
  try {
    return (raw.prepare(`SELECT count(*) AS n FROM tasks WHERE content LIKE ?`).get(like) as { n: number }).n;
  } finally {
    raw.close();
  }
};

describe('restore while Tidy runs', () => {
  it(
    'refuses while tidy mcp writes, naming it; every write it acknowledged is on disk',
    async () => {
      const { db, backup } = backupOf(tempDir());
      const client = new Client({ name: 'Writer', version: '1' });
      const transport = new StdioClientTransport({ command: process.execPath, args: [TIDY_BIN, '--db', db, 'mcp'], stderr: 'pipe' });
      await client.connect(transport);
      onTestFinished(() => client.close());
      const pid = transport.pid;

      let acknowledged = 0;
      let restore: Promise<{ code: number; stderr: string }> | undefined;
      for (let i = 0; i < 60; i++) {
        const r = await client.callTool({ name: 'add_task', arguments: { content: `written ${i}` } });
        if (!r.isError) acknowledged++;
        // The restore is attempted while writes go on.
        if (i === 10) restore = tidyAsync(db, ['restore', backup]).done;
      }
      const refused = await restore!;
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toHaveLength(1);
      expect(refused.stderr).toMatch(new RegExp(`is open in tidy mcp \\(pid ${pid}\\); close it and run the restore again — nothing was changed`));
      expect(acknowledged).toBe(60);
      await client.close();

      expect(taskCount(db, 'written %')).toBe(acknowledged);
      // Once it has closed, the restore goes ahead.
      const ok = tidy(db, ['restore', backup]);
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
      expect(taskCount(db, 'written %')).toBe(0);
    },
    LONG,
  );

  it(
    'refuses while tidy serve has it open, naming it',
    async () => {
      const { db, backup } = backupOf(tempDir());
      const served = await startServe(db);
      onTestFinished(() => served.stop());
      const r = tidy(db, ['restore', backup]);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(new RegExp(`is open in tidy serve \\(pid ${served.process.pid}\\); close it and run the restore again — nothing was changed`));
      await served.stop();
      expect(tidy(db, ['restore', backup]).code).toBe(0);
    },
    LONG,
  );

  it(
    'the lock dies with its process: after kill -9 of the holder the restore goes ahead',
    async () => {
      const { db, backup } = backupOf(tempDir());
      // A child that opens the database and holds it until killed.
      const child = spawn(process.execPath, ['--import', 'tsx', '-e', `import('./src-main/core/index.ts').then(({ openDatabase }) => { openDatabase(${JSON.stringify(db)}, { holder: 'a test child' }); console.log('open'); setInterval(() => {}, 1000); })`], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
      await new Promise<void>((resolve) => child.stdout.on('data', (d: Buffer) => d.toString().includes('open') && resolve()));
      expect(() => restoreDatabase(backup, db, new Date(), { lockWaitMs: 100 })).toThrow(new RegExp(`is open in a test child \\(pid ${child.pid}\\)`));
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
      expect(restoreDatabase(backup, db).schemaVersion).toBeGreaterThan(0);
    },
    LONG,
  );

  it('refuses in this process too while a connection here has it open', () => {
    const { db, backup } = backupOf(tempDir());
    const open = openDatabase(db);
    try {
      expect(() => restoreDatabase(backup, db, new Date(), { lockWaitMs: 50 })).toThrow(/is open in this process; close it and run the restore again — nothing was changed/);
    } finally {
      open.close();
    }
    expect(restoreDatabase(backup, db).keptAt).not.toBeNull();
  }, LONG);
});

describe('restore leftovers and mistakes', () => {
  it('a restore copy left by a restore killed with -9 is removed at the next open', () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    expect(tidy(db, ['add', 'x']).code).toBe(0);
    const left = ['.tidy.db.4242.1700000000000.tmp', '.tidy.db.4242.1700000000000.tmp-journal'];
    for (const name of left) writeFileSync(join(dir, name), Buffer.alloc(1024));
    writeFileSync(join(dir, '.notes.db.1.2.tmp'), 'not ours');
    expect(tidy(db, ['add', 'y']).code).toBe(0);
    for (const name of left) expect(existsSync(join(dir, name))).toBe(false);
    expect(readdirSync(dir)).toContain('.notes.db.1.2.tmp');
  }, LONG);

  it('tidy restore DIR/ names the folder as the problem', () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    expect(tidy(db, ['add', 'x']).code).toBe(0);
    mkdirSync(join(dir, 'backups'), { recursive: true });
    const r = tidy(db, ['restore', `${join(dir, 'backups')}/`]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/backups is a folder, not a backup file; pass the path of a Tidy backup file in it/);
    expect(r.stderr).not.toMatch(/tidy\.db/);
  }, LONG);

  it('the trigger attack of the issue: the backup is refused and no MCP server is ever installed', () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const evil = join(dir, 'evil.db');
    expect(tidy(evil, ['add', 'x']).code).toBe(0);
    const raw = new Database(evil);
    raw.exec(
      `CREATE TRIGGER evil AFTER INSERT ON tasks BEGIN INSERT OR REPLACE INTO settings VALUES('mcpServers', '{"x":{"command":"/bin/sh","args":["-c","touch ${dir}/pwned"]}}'); END;`,
    );
    raw.pragma('journal_mode = DELETE');
    raw.close();
    expect(tidy(db, ['add', 'mine']).code).toBe(0);
    const r = tidy(db, ['restore', evil]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/evil\.db is not a database Tidy made \(it has a trigger evil on tasks that Tidy's schema \d+ does not have\); pick another backup/);
    expect(tidy(db, ['add', 'after']).code).toBe(0);
    expect(tidy(db, ['mcp', 'list']).stdout).toMatch(/No MCP servers/);
    // Opened directly, the file is refused as well.
    const direct = tidy(evil, ['add', 'y']);
    expect(direct.code).toBe(1);
    expect(direct.stderr).toMatch(/is not a database Tidy can trust: it has a trigger evil on tasks/);
    expect(existsSync(join(dir, 'pwned'))).toBe(false);
  }, LONG);
});
