// The CLI's data commands: most command lines run in this process (test/support/cli-inproc.ts); a backup and
// restore, and every export to standard output (written straight to its file descriptor), run the real process.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTask, newUserRequest, openDatabase } from '../../../src-main/core';
import { TIDY_BIN, tidy } from '../../support/cli';
import { tidyIn } from '../../support/cli-inproc';
import { tempDir } from '../../support/db';

const oneLine = (s: string) => s.trim().split('\n').length === 1;
const hash = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');
const withoutTime = (json: string) => json.replace(/"exportedAt": "[^"]*"/, '"exportedAt": ""');

async function seeded(): Promise<{ db: string; dir: string }> {
  const dir = tempDir();
  const db = join(dir, 'tidy.db');
  expect((await tidyIn(db, ['add', 'Bake the cake', '--priority', '3'])).code).toBe(0);
  expect((await tidyIn(db, ['project', 'add', 'Garden'])).code).toBe(0);
  expect((await tidyIn(db, ['add', 'Prune roses', '--project', 'Garden'])).code).toBe(0);
  expect((await tidyIn(db, ['done', 't1'])).code).toBe(0);
  expect((await tidyIn(db, ['list', 'add', 'Groceries'])).code).toBe(0);
  expect((await tidyIn(db, ['list', 'item', 'Groceries', 'milk'])).code).toBe(0);
  return { db, dir };
}

describe('tidy backup, restore, export, import', () => {
  it('backup --out writes a checked copy and prints its path; restore brings it back and keeps the current one aside', async () => {
    const { db, dir } = await seeded();
    const out = join(dir, 'copy.db');
    const b = tidy(db, ['backup', '--out', out]);
    expect(b.code).toBe(0);
    expect(b.stdout).toMatch(new RegExp(`^Backed up to ${out} \\(.* MB, schema \\d+, integrity ok\\)\\n$`));
    expect(existsSync(out)).toBe(true);

    expect((await tidyIn(db, ['add', 'after the backup'])).code).toBe(0);
    const r = tidy(db, ['restore', out]);
    expect(r.code).toBe(0);
    const kept = /kept at (.*)\n/.exec(r.stdout)?.[1];
    expect(kept).toBeDefined();
    expect(JSON.parse((await tidyIn(db, ['tasks', '--all', '--json'])).stdout)).toHaveLength(2);
    expect(JSON.parse((await tidyIn(kept!, ['tasks', '--all', '--json'])).stdout)).toHaveLength(3);
  });

  it('backup without --out goes to the backups folder beside the database', async () => {
    const { db, dir } = await seeded();
    const b = await tidyIn(db, ['backup']);
    expect(b.code).toBe(0);
    expect(b.stdout).toContain(join(dir, 'backups', 'tidy-backup-'));
  });

  it('restore refuses a damaged file and a foreign file with one line, leaving the database as it was', async () => {
    const { db, dir } = await seeded();
    const out = join(dir, 'copy.db');
    expect((await tidyIn(db, ['backup', '--out', out])).code).toBe(0);
    const bytes = readFileSync(out);
    bytes.fill(0x5a, Math.floor(bytes.length / 2), Math.floor(bytes.length / 2) + 8192);
    writeFileSync(out, bytes);
    const before = hash(db);
    const damaged = await tidyIn(db, ['restore', out]);
    expect(damaged.code).toBe(1);
    expect(oneLine(damaged.stderr)).toBe(true);
    expect(damaged.stderr).toMatch(/^tidy: .*copy\.db is damaged/);

    const foreign = join(dir, 'notes.txt');
    writeFileSync(foreign, 'just some notes\n'.repeat(20));
    const r = await tidyIn(db, ['restore', foreign]);
    expect(r).toMatchObject({ code: 1 });
    expect(r.stderr).toMatch(/is not a SQLite database/);
    expect(hash(db)).toBe(before);
    expect((await tidyIn(db, ['restore'])).code).toBe(2);
  });

  it('export json → import tidy into a new database → export json gives the same bytes apart from exportedAt', async () => {
    const { db, dir } = await seeded();
    const first = tidy(db, ['export']);
    expect(first.code).toBe(0);
    const file = join(dir, 'export.json');
    expect((await tidyIn(db, ['export', '--format', 'json', '--out', file])).code).toBe(0);
    expect(withoutTime(readFileSync(file, 'utf8'))).toBe(withoutTime(first.stdout));

    const other = join(dir, 'other.db');
    const imp = await tidyIn(other, ['import', 'tidy', file]);
    expect(imp).toMatchObject({ code: 0 });
    expect(imp.stdout).toMatch(/^Imported 2 projects, 2 tasks, 1 lists \(1 items\)/);
    expect(withoutTime(tidy(other, ['export']).stdout)).toBe(withoutTime(first.stdout));
    // New ids continue after the imported ones.
    expect((await tidyIn(other, ['add', 'new'])).stdout).toBe((await tidyIn(db, ['add', 'new'])).stdout);

    const again = await tidyIn(other, ['import', 'tidy', file]);
    expect(again.code).toBe(1);
    expect(oneLine(again.stderr)).toBe(true);
    expect(again.stderr).toMatch(/the database is not empty/);
  });

  it('export markdown is readable; a wrong format is a usage error', async () => {
    const { db } = await seeded();
    const md = tidy(db, ['export', '--format', 'markdown']);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('### Garden');
    expect(md.stdout).toContain('- [x] Bake the cake (p3)');
    expect(md.stdout).toContain('- [ ] milk');
    const bad = await tidyIn(db, ['export', '--format', 'csv']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format csv is not known/);
  });

  it('import tidy refuses a file of another format with one line and imports nothing', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const file = join(dir, 'todoist.csv');
    writeFileSync(file, 'TYPE,CONTENT\ntask,Buy milk\n');
    const r = await tidyIn(db, ['import', 'tidy', file]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(true);
    expect(r.stderr).toMatch(/not valid JSON/);
    expect(JSON.parse((await tidyIn(db, ['tasks', '--all', '--json'])).stdout)).toEqual([]);
  });

  it('a large export streams through a pipe whole, and a reader that stops early is not an error', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const d = openDatabase(db);
    d.transaction(() => {
      for (let i = 0; i < 5000; i++) addTask(d, newUserRequest(d), { content: `task ${i} with a few words` });
    })();
    d.close();
    const file = join(dir, 'e.json');
    expect((await tidyIn(db, ['export', '--out', file])).code).toBe(0);
    const piped = tidy(db, ['export'], { maxBuffer: 64 * 1024 * 1024 });
    expect(piped.stdout.length).toBeGreaterThan(4_000_000);
    expect(withoutTime(piped.stdout)).toBe(withoutTime(readFileSync(file, 'utf8')));
    const early = spawnSync('bash', ['-c', 'set -o pipefail; "$0" "$1" --db "$2" export | head -c 100 > /dev/null', process.execPath, TIDY_BIN, db], {
      encoding: 'utf8',
    });
    expect(early.stderr).toBe('');
    expect(early.status).toBe(0);
  }, 120_000); // 5,000 tasks and three processes: generous, the machine may be loaded
});

describe('tidy import todoist', () => {
  const FIXTURES = join(import.meta.dirname, '../../fixtures/todoist');

  it('--dry-run says what would be created and changes nothing; the import creates it, says how to undo, and undo takes it all back', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    expect((await tidyIn(db, ['add', 'already here'])).code).toBe(0);
    const dry = await tidyIn(db, ['import', 'todoist', join(FIXTURES, 'todoist-backup.zip'), '--dry-run']);
    expect(dry.stderr).toBe('');
    expect(dry.stdout).toMatch(/^Would import 11 tasks into 3 projects \(nothing changed\):\n/);
    expect(dry.stdout).toContain("new project 'Home Renovation': 6 tasks in 2 sections (Kitchen 🍳, Garden)");
    expect(dry.stdout).toContain('3 descriptions and 2 comments');
    expect(dry.stdout).toContain("into project 'Inbox': 2 tasks");
    expect(JSON.parse((await tidyIn(db, ['tasks', '--all', '--json'])).stdout)).toHaveLength(1);
    expect(existsSync(join(dir, 'backups'))).toBe(false);

    const r = await tidyIn(db, ['import', 'todoist', join(FIXTURES, 'todoist-backup.zip')]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Imported 11 tasks into 3 projects:\n/);
    expect(r.stdout).toMatch(/A backup from just before is at .*tidy-before-import-.*\.db\n/);
    const run = /tidy undo --run (u\d+)\n$/.exec(r.stdout)?.[1];
    expect(run).toBeDefined();
    expect(JSON.parse((await tidyIn(db, ['tasks', '--json'])).stdout)).toHaveLength(12);
    expect((await tidyIn(db, ['undo', '--run', run!])).code).toBe(0);
    expect(JSON.parse((await tidyIn(db, ['tasks', '--json'])).stdout).map((t: { content: string }) => t.content)).toEqual(['already here']);
  });

  it('export --format ical writes the imported tasks with due dates as VTODOs', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    expect((await tidyIn(db, ['import', 'todoist', join(FIXTURES, 'Home Renovation.csv')])).code).toBe(0);
    const r = tidy(db, ['export', '--format', 'ical']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^BEGIN:VCALENDAR\r\n/);
    expect(r.stdout.match(/BEGIN:VTODO/g)).toHaveLength(6);
    expect(r.stdout).toContain('DUE;VALUE=DATE:20261205\r\n');
    expect((await tidyIn(db, ['export', '--format', 'pdf'])).stderr).toMatch(/use --format json, markdown or ical/);
  });

  it('a malformed file gets one line naming the row, and nothing is imported', async () => {
    const dir = tempDir();
    const db = join(dir, 'tidy.db');
    const file = join(dir, 'Bad.csv');
    writeFileSync(file, 'TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT\ntask,fine,,1,1\ntask,broken,,9,1\n');
    const r = await tidyIn(db, ['import', 'todoist', file]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(true);
    expect(r.stderr).toMatch(/Bad\.csv, line 3: PRIORITY "9" is not 1, 2, 3 or 4/);
    expect(JSON.parse((await tidyIn(db, ['tasks', '--all', '--json'])).stdout)).toEqual([]);
    const missing = await tidyIn(db, ['import', 'todoist', join(dir, 'nope.csv')]);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toBe(true);
  });
});
