// The CLI's everyday commands against a temp database. Most command lines run in this process
// (test/support/cli-inproc.ts); the exit codes, TIDY_DB, help, --version and the locale run the real process.
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { TIDY_BIN, tidy } from '../../support/cli';
import { tidyIn } from '../../support/cli-inproc';
import { tempDir } from '../../support/db';

const oneLine = (s: string) => s.trim().split('\n').length === 1;

/** The fields of schema 12 of a task that has none of them. */
const PLAIN = { description: null, parentId: null, section: null, labels: [], deadline: null, durationMin: null };

describe('tidy CLI (temp database)', () => {
  it('captures to the inbox, organises by hand, and undoes a whole command', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(await tidyIn(db, ['add', 'Bake', 'the', 'birthday', 'cake'])).toMatchObject({ code: 0, stdout: 'Added t1 "Bake the birthday cake" to Inbox — undo: tidy undo a1\n' });
    expect((await tidyIn(db, ['add', 'Write bio', '--priority', '2'])).stdout).toBe('Added t2 "Write bio" to Inbox, p2 — undo: tidy undo a2\n');
    const created = await tidyIn(db, ['project', 'add', 'Birthday Celebration']);
    expect(created).toMatchObject({ code: 0, stdout: "Created project 'Birthday Celebration' (a3; undo with: tidy undo a3)\n" });
    expect((await tidyIn(db, ['move', 't1', 'birthday', 'celebration'])).code).toBe(0);

    const tasks = JSON.parse((await tidyIn(db, ['tasks', '--json'])).stdout) as unknown[];
    expect(tasks).toEqual([
      { id: 't1', content: 'Bake the birthday cake', projectId: 'p1', project: 'Birthday Celebration', status: 'open', priority: 4, due: null, ...PLAIN },
      { id: 't2', content: 'Write bio', projectId: 'inbox', project: 'Inbox', status: 'open', priority: 2, due: null, ...PLAIN },
    ]);
    expect(JSON.parse((await tidyIn(db, ['tasks', '--inbox', '--json'])).stdout)).toHaveLength(1);
    expect(JSON.parse((await tidyIn(db, ['projects', '--json'])).stdout)).toEqual([
      { id: 'inbox', name: 'Inbox', openTasks: 1, archived: false },
      { id: 'p1', name: 'Birthday Celebration', openTasks: 1, archived: false },
    ]);

    const log = JSON.parse((await tidyIn(db, ['log', '--json'])).stdout) as Record<string, unknown>[];
    expect(Object.keys(log[0]!)).toEqual(['id', 'runId', 'tool', 'args', 'summary', 'what', 'createdAt', 'undoneAt']);
    // what each did, as data: the verb, the kind of thing, which one, how many, and what it reverses
    expect(log[0]!['what']).toEqual({ verb: 'moved', kind: 'task', id: 't1', name: 'Bake the birthday cake', count: 1, reverses: null });
    expect(log[1]!['what']).toEqual({ verb: 'created', kind: 'project', id: 'p1', name: 'Birthday Celebration', count: 1, reverses: null });
    expect(log.map((e) => [e['id'], e['tool'], e['summary'], e['undoneAt']])).toEqual([
      ['a4', 'move_task', "Moved 'Bake the birthday cake' to Birthday Celebration", null],
      ['a3', 'create_project', "Created project 'Birthday Celebration'", null],
      ['a2', 'add_task', "Added 'Write bio' to Inbox", null],
      ['a1', 'add_task', "Added 'Bake the birthday cake' to Inbox", null],
    ]);

    const refused = await tidyIn(db, ['undo', 'a3']);
    expect(refused.code).toBe(1);
    expect(oneLine(refused.stderr)).toBe(true);
    expect(refused.stderr).toContain('a4');
    expect((await tidyIn(db, ['undo', 'a3', '--cascade'])).stdout).toBe(
      "Undid a4: Moved 'Bake the birthday cake' to Birthday Celebration (undo a5 to redo)\nUndid a3: Created project 'Birthday Celebration' (undo a6 to redo)\n",
    );
    expect(JSON.parse((await tidyIn(db, ['projects', '--json'])).stdout)).toHaveLength(1);
    const runOfUndo = (JSON.parse((await tidyIn(db, ['log', '--json'])).stdout) as { runId: string }[])[0]!.runId;
    expect((await tidyIn(db, ['undo', '--run', runOfUndo])).code).toBe(0);
    expect((JSON.parse((await tidyIn(db, ['tasks', '--json'])).stdout) as { project: string }[])[0]!.project).toBe('Birthday Celebration');
  });

  it('reads the quick-add grammar in add, natural dates in edit, and says so when it cannot', async () => {
    const db = join(tempDir(), 'tidy.db');
    await tidyIn(db, ['project', 'add', 'Birthday', 'Celebration']);
    const added = await tidyIn(db, ['add', 'Buy milk tomorrow #birthday celebration p1']);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Added t1 "Buy milk" to Birthday Celebration, due tomorrow \(\d{4}-\d\d-\d\d\), p1 — undo: tidy undo a2\n$/);
    const unknown = await tidyIn(db, ['add', 'Paint the shed #Garden']);
    expect(unknown.stdout).toContain('"Paint the shed #Garden" to Inbox');
    expect(unknown.stderr).toContain('no project is named "Garden"');
    expect((await tidyIn(db, ['add', 'Migrate from python 3.10 to 3.11'])).stdout).toContain('"Migrate from python 3.10 to 3.11" to Inbox —');

    // a printed change shows its date in the terminal's locale (ISO stays for --json and files)
    const edited = tidy(db, ['edit', 't1', '--due', '2035-12-24 15:30'], { env: { LC_ALL: 'en_GB.UTF-8' } }).stdout;
    expect(edited).toMatch(/due Mon,? 24 Dec(,? 2035)?,? 15:30/);
    expect(edited).not.toContain('2035-12-24T15:30');
    expect((await tidyIn(db, ['edit', 't1', '--due', 'next friday'])).code).toBe(0);
    const bad = await tidyIn(db, ['edit', 't1', '--due', 'whenever']);
    expect(bad.code).toBe(1);
    expect(oneLine(bad.stderr)).toBe(true);
    expect(bad.stderr).toContain('due date "whenever" is not a date');
    expect((await tidyIn(db, ['edit', 't1', '--due', 'none'])).stdout).toContain('no due date');
    expect((await tidyIn(db, ['edit', 't1', '--priority', '9'])).stderr).toContain('1 (p1, most urgent) to 4 (p4, normal)');
    expect((await tidyIn(db, ['edit', '--help'])).stdout).toContain('1 (p1, most urgent) to 4 (p4, normal)');

    const tasks = JSON.parse((await tidyIn(db, ['tasks', '--json'])).stdout) as { id: string; priority: number; due: string | null }[];
    expect(tasks.map((t) => [t.id, t.priority, t.due])).toEqual([
      ['t1', 1, null],
      ['t2', 4, null],
      ['t3', 4, null],
    ]);
  });

  it('searches every kind of thing, as text or JSON, whatever the query', async () => {
    const db = join(tempDir(), 'tidy.db');
    await tidyIn(db, ['add', 'Order the birthday cake']);
    await tidyIn(db, ['list', 'add', 'Birthday guests']);
    const found = await tidyIn(db, ['search', 'birthday']);
    expect(found.stdout).toBe('Tasks:\n  t1     Order the birthday cake  [Inbox]\nLists:\n  l1     Birthday guests\n');
    const json = JSON.parse((await tidyIn(db, ['search', 'birth', '--json'])).stdout) as { groups: { kind: string; hits: { id: string; snippet: string }[] }[] };
    expect(json.groups.map((g) => [g.kind, g.hits[0]!.id])).toEqual([
      ['task', 't1'],
      ['list', 'l1'],
    ]);
    for (const hostile of ['"', 'NEAR(a b', '* - : ^', 'x'.repeat(10_000)]) {
      const r = await tidyIn(db, ['search', hostile]);
      expect(r).toMatchObject({ code: 0, stdout: 'Nothing found.\n' });
    }
  });

  it('keeps lists with items', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect((await tidyIn(db, ['list', 'add', 'Groceries'])).code).toBe(0);
    expect((await tidyIn(db, ['list', 'item', 'groceries', 'oat', 'milk'])).code).toBe(0);
    expect((await tidyIn(db, ['list', 'item', 'Groceries', 'eggs'])).code).toBe(0);
    expect((await tidyIn(db, ['list', 'check', 'Groceries', 'i1'])).code).toBe(0);
    expect((await tidyIn(db, ['list', 'archive-item', 'Groceries', 'i2'])).code).toBe(0);
    expect(JSON.parse((await tidyIn(db, ['lists', '--json'])).stdout)).toEqual([
      { id: 'l1', name: 'Groceries', archived: false, items: [{ id: 'i1', text: 'oat milk', checked: true }] },
    ]);
    expect((await tidyIn(db, ['undo', '--last'])).stdout).toContain("Undid a5: Archived 'eggs' from Groceries");
    expect((await tidyIn(db, ['lists'])).stdout).toBe('l1     Groceries\n  i1     [x] oat milk\n  i2     [ ] eggs\n');
  });

  it('validates settings with the allowed range', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect(await tidyIn(db, ['config', 'set', 'maxActions', '30'])).toMatchObject({ code: 0, stdout: 'maxActions = 30\n' });
    expect((await tidyIn(db, ['config', 'get', 'maxActions'])).stdout).toBe('30\n');
    const bad = await tidyIn(db, ['config', 'set', 'temperature', 'hot']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^tidy: temperature "hot" is not allowed: .*0 to 2/);
    expect((await tidyIn(db, ['config', 'set', 'colour', 'red'])).code).toBe(2);
  });

  it('exits 2 on usage errors and 1 on failures, with one line on stderr and never a stack trace', () => {
    const db = join(tempDir(), 'tidy.db');
    const cases: [string[], number][] = [
      [['frobnicate'], 2],
      [['tasks', '--bogus'], 2],
      [['move', 't1'], 2],
      [['undo'], 2],
      [['undo', 'a1', '--last'], 2],
      [['move', 't99', 'Inbox'], 1],
      [['undo', 'a42'], 1],
      [['project', 'rename', 'inbox', 'Other'], 1],
      [['tasks', '--project', 'Nope'], 1],
      [['add', '   '], 1],
    ];
    for (const [args, code] of cases) {
      const r = tidy(db, args);
      expect({ args, code: r.code }).toEqual({ args, code });
      expect(r.stderr).toMatch(/^tidy: /);
      expect(oneLine(r.stderr)).toBe(true);
      expect(r.stderr).not.toMatch(/\bat .*\.(m?js|ts):\d+/);
    }
  }, 120_000); // ten processes: generous, the machine may be loaded

  it('refuses a file that is not a Tidy database without touching it', async () => {
    const db = join(tempDir(), 'notes.db');
    writeFileSync(db, 'shopping: milk, eggs\n'.repeat(100));
    const r = await tidyIn(db, ['tasks']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tidy: .*notes\.db is not a readable Tidy database .*left untouched/);
    expect(oneLine(r.stderr)).toBe(true);
  });

  it('imports a real .ics file; the same file again is refused in one line and logs nothing', async () => {
    const db = join(tempDir(), 'tidy.db');
    const file = join(import.meta.dirname, '..', '..', 'fixtures', 'ics', 'seed-bob-outlook.ics');
    const first = await tidyIn(db, ['cal', 'import', file, '--person', 'Bob']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^Imported calendar 'Bob' from seed-bob-outlook\.ics \(4 events\) \(a1; undo with: tidy undo a1\)/);
    const again = await tidyIn(db, ['cal', 'import', file, '--person', 'Bob']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^tidy: calendar 'Bob' already matches seed-bob-outlook\.ics \(4 events, none changed\)/);
    expect(oneLine(again.stderr)).toBe(true);
    expect((JSON.parse((await tidyIn(db, ['log', '--json'])).stdout) as unknown[]).length).toBe(1);
  });

  it('uses TIDY_DB when --db is not given, and --db over TIDY_DB', () => {
    const dir = tempDir();
    const viaEnv = join(dir, 'env.db');
    const run = (args: string[]) =>
      spawnSync(process.execPath, [TIDY_BIN, ...args], { encoding: 'utf8', env: { ...process.env, TIDY_DB: viaEnv } });
    expect(run(['add', 'from env']).status).toBe(0);
    expect(existsSync(viaEnv)).toBe(true);
    expect(tidy(viaEnv, ['tasks']).stdout).toContain('from env');
    const viaFlag = join(dir, 'flag.db');
    expect(run(['--db', viaFlag, 'add', 'from flag']).status).toBe(0);
    expect(tidy(viaFlag, ['tasks']).stdout).toContain('from flag');
    expect(tidy(viaEnv, ['tasks']).stdout).not.toContain('from flag');
  });

  it('prints help with exit 0', () => {
    const r = tidy(join(tempDir(), 'x.db'), ['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage: tidy');
  });
});

describe('terminal escapes in data', () => {
  it('are printed as visible escapes, never sent to the terminal raw', async () => {
    const path = join(tempDir(), 'tidy.db');
    const evil = 'Pay rent\u001b]0;pwned\u0007\u001b[2J\u009b31m\u202eevil';
    expect((await tidyIn(path, ['add', evil])).code).toBe(0);
    for (const args of [['tasks'], ['tasks', '--json'], ['log'], ['log', '--json']]) {
      const out = (await tidyIn(path, args)).stdout;
      // eslint-disable-next-line no-control-regex
      expect(out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
      expect(out).toContain('Pay rent');
      expect(out).toMatch(/\\u001b/);
    }
    const json = JSON.parse((await tidyIn(path, ['tasks', '--json'])).stdout) as { content: string }[];
    expect(json[0]!.content).toBe(evil);
  });
});

describe('tidy --version', () => {
  it('prints the package version with --version and -V, exit 0', async () => {
    const { version } = (await import('../../../package.json', { with: { type: 'json' } })).default;
    for (const flag of ['--version', '-V']) expect(tidy(join(tempDir(), 'tidy.db'), [flag])).toMatchObject({ code: 0, stdout: `${version}\n`, stderr: '' });
  });
});
