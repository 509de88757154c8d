import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addTask, newUserRequest, openDatabase, type Db } from '../../../src-main/core';
import { COLLECTIONS, exportMarkdown, exportSchema, importTidyExport, isEmptyDatabase, NOT_EXPORTED } from '../../../src-main/core/data';
import { addRoutine } from '../../../src-main/core/domain/routines';
import { okValue, tempDb, tempDir } from '../../support/db';
import { exportString, populate } from './fixture';

function freshDb(): { db: Db; path: string } {
  const path = join(tempDir(), 'new.db');
  return { db: openDatabase(path), path };
}

function writeExport(text: string): string {
  const file = join(tempDir(), 'export.json');
  writeFileSync(file, text);
  return file;
}

describe('export and import of Tidy’s own export', () => {
  it('round trip: export → import into an empty database → export gives the same bytes', () => {
    const { db } = tempDb();
    populate(db);
    const first = exportString(db);
    const parsed = exportSchema.parse(JSON.parse(first));
    expect(parsed.data.tasks.length).toBeGreaterThan(10);
    expect(parsed.data.actions.some((a) => a.undoneAt !== null)).toBe(true);
    expect(parsed.data.messages).toHaveLength(4);
    expect(parsed.data.steps[0]!.payload).toBe('{"a":1.50,"b":"\\u00e9"}');
    // Terminal controls and bidi overrides are JSON escapes in the file, and the same characters once parsed.
    // eslint-disable-next-line no-control-regex
    expect(first).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(first).toContain('evil \\u202e\\u001b[2J\\u0085\\u007f text');
    expect(parsed.data.tasks.some((t) => t.content === 'evil \u202e\u001b[2J\u0085\u007f text')).toBe(true);

    const target = freshDb();
    try {
      const r = importTidyExport(target.db, writeExport(first));
      expect(r.counts['tasks']).toBe(parsed.data.tasks.length);
      expect(exportString(target.db)).toBe(first);
      expect(target.db.pragma('integrity_check', { simple: true })).toBe('ok');
      // The search index follows the imported rows.
      const hits = target.db.prepare(`SELECT count(*) AS n FROM search_text WHERE search_text MATCH 'groceries'`).get() as { n: number };
      expect(hits.n).toBe(1);
    } finally {
      target.db.close();
    }
  });

  it('keeps id counters: an id freed by an undo before the export is not handed out after the import', () => {
    const { db } = tempDb();
    populate(db);
    const undone = db.prepare(`SELECT id FROM tasks ORDER BY rowid DESC LIMIT 1`).get() as { id: string } | undefined;
    const maxTask = Math.max(...(db.prepare(`SELECT id FROM tasks`).all() as { id: string }[]).map((r) => Number(r.id.slice(1))));
    const target = freshDb();
    try {
      importTidyExport(target.db, writeExport(exportString(db)));
      const next = okValue(addTask(target.db, newUserRequest(target.db), { content: 'after import' }));
      const expected = okValue(addTask(db, newUserRequest(db), { content: 'after import' }));
      expect(next.id).toBe(expected.id);
      expect(Number(next.id.slice(1))).toBeGreaterThan(maxTask + 1); // the undone task's number is skipped too
      expect(undone).toBeDefined();
    } finally {
      target.db.close();
    }
  });

  it('raises counters below the ids in the file, so no id is reused', () => {
    const { db } = tempDb();
    populate(db, 3);
    const data = JSON.parse(exportString(db)) as { data: { counters: { ids: Record<string, number> } } };
    data.data.counters.ids = {};
    const target = freshDb();
    try {
      importTidyExport(target.db, writeExport(JSON.stringify(data)));
      const ids = new Set((target.db.prepare(`SELECT id FROM tasks`).all() as { id: string }[]).map((r) => r.id));
      const t = okValue(addTask(target.db, newUserRequest(target.db), { content: 'new' }));
      expect(ids.has(t.id)).toBe(false);
      const a = target.db.prepare(`SELECT count(*) AS n FROM actions WHERE id = (SELECT max(id) FROM actions)`).get() as { n: number };
      expect(a.n).toBe(1);
    } finally {
      target.db.close();
    }
  });

  it('exports every column of every table except those named as not exported', () => {
    const { db } = tempDb();
    const tables = (db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'search_text%'`).all() as { name: string }[]).map((r) => r.name);
    for (const t of tables) {
      if (NOT_EXPORTED.includes(t)) continue;
      const c = COLLECTIONS.find((x) => x.table === t);
      expect(c, `table ${t} is neither exported nor listed in NOT_EXPORTED`).toBeDefined();
      const cols = (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(t) as { name: string }[]).map((r) => r.name).sort();
      expect(Object.values(c!.columns).sort()).toEqual(cols);
    }
  });

  it("exports routines' run history, their state and approvals (waiting and answered), imports them back exactly, and still imports a file written without them", () => {
    const { db } = tempDb();
    populate(db, 2);
    const routine = okValue(addRoutine(db, newUserRequest(db), { name: 'Morning plan', request: 'plan my day', schedule: 'every weekday at 8am' }, new Date('2035-01-01T06:00:00Z')));
    const run = db.prepare(`INSERT INTO routine_runs (routine_id, occurrence, kind, claimed_at, claimed_by, run_id, status, message, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    run.run(routine.id, '2035-01-01T08:00:00.000Z', 'scheduled', '2035-01-01T08:00:01.000Z', 'tidy serve (pid 42)', 'r1', 'waiting', 'waiting for an approval', '2035-01-01T08:00:09.000Z');
    run.run(routine.id, '2035-01-02T08:00:00.000Z', 'skipped', '2035-01-03T08:00:01.000Z', 'tidy routines run-due', null, 'skipped', 'missed while Tidy was not running', '2035-01-03T08:00:01.000Z');
    db.prepare(`INSERT INTO routine_state (routine_id, failures, conversation_id) VALUES (?, 2, 'c1')`).run(routine.id);
    const approval = db.prepare(
      `INSERT INTO approvals (id, run_id, conversation_id, call_id, tool, args, card, mode, owner_pid, routine_id, created_at, decided_at, decision) VALUES (?, 'r1', 'c1', ?, 'complete_task', '{"task_id":"t1"}', '{"message":"Complete \u201ctask 0\u201d?"}', 'detached', NULL, ?, ?, ?, ?)`,
    );
    approval.run('w1', 'call_1', routine.id, '2035-01-01T08:00:05.000Z', null, null);
    approval.run('w2', 'call_2', routine.id, '2035-01-01T08:00:06.000Z', '2035-01-01T09:00:00.000Z', 'decline');
    const text = exportString(db);
    const parsed = exportSchema.parse(JSON.parse(text));
    expect(parsed.data.routineRuns.map((r) => [r.kind, r.status, r.runId])).toEqual([
      ['scheduled', 'waiting', 'r1'],
      ['skipped', 'skipped', null],
    ]);
    expect(parsed.data.routineState).toEqual([{ routineId: routine.id, failures: 2, conversationId: 'c1', pausedNote: null }]);
    expect(parsed.data.approvals.map((a) => [a.id, a.decision])).toEqual([
      ['w1', null],
      ['w2', 'decline'],
    ]);
    expect(parsed.data.approvals[0]!.card).toBe('{"message":"Complete \u201ctask 0\u201d?"}');

    const target = freshDb();
    try {
      importTidyExport(target.db, writeExport(text));
      expect(exportString(target.db)).toBe(text);
      expect(target.db.prepare(`SELECT id FROM approvals WHERE decided_at IS NULL`).all()).toEqual([{ id: 'w1' }]);
    } finally {
      target.db.close();
    }

    // A file written before schema 14's history was exported: read as having none.
    const old = JSON.parse(text) as { schemaVersion: number; data: Record<string, unknown> };
    for (const key of ['routineState', 'routineRuns', 'approvals']) delete old.data[key];
    // and before schema 18: messages without ids (and no counter for them) get the first ones
    for (const m of old.data['messages'] as Record<string, unknown>[]) delete m['id'];
    delete (old.data['counters'] as { ids: Record<string, number> }).ids['x'];
    const older = freshDb();
    try {
      importTidyExport(older.db, writeExport(JSON.stringify(old)));
      expect(older.db.prepare(`SELECT count(*) AS n FROM routine_runs`).get()).toEqual({ n: 0 });
      expect(older.db.prepare(`SELECT id FROM messages ORDER BY seq`).all()).toEqual(['x1', 'x2', 'x3', 'x4'].map((id) => ({ id })));
      expect(older.db.prepare(`SELECT next FROM id_counters WHERE kind = 'x'`).get()).toEqual({ next: 5 });
      expect(older.db.prepare(`SELECT name FROM routines`).all()).toEqual([{ name: 'Morning plan' }]);
    } finally {
      older.db.close();
    }

    // A hostile row is refused with one line, and nothing is imported.
    const bad = JSON.parse(text) as { data: { approvals: Record<string, unknown>[] } };
    bad.data.approvals[0]!['mode'] = 'auto-approve';
    const refused = freshDb();
    try {
      expect(() => importTidyExport(refused.db, writeExport(JSON.stringify(bad)))).toThrow(/data\.approvals\[0\]\.mode/);
      expect(isEmptyDatabase(refused.db)).toBe(true);
    } finally {
      refused.db.close();
    }
  });

  it('markdown: projects with open and done tasks, lists as checkboxes, conversations as transcripts', () => {
    const { db } = tempDb();
    populate(db, 4);
    const parts: string[] = [];
    exportMarkdown(db, { write: (c) => void parts.push(c) }, new Date('2026-11-23T12:00:00Z'));
    const md = parts.join('');
    expect(md).toContain('### Inbox');
    expect(md).toContain('- [ ] task 2 «ünïcödé» "quoted" second line (p3)');
    expect(md).toContain('- [x] task 0');
    expect(md).toContain('### Robert\'); DROP TABLE tasks;--');
    expect(md).toContain('- [x] milk');
    expect(md).toContain('- [ ] \\[x\\] not \\*markdown\\*');
    expect(md).toContain('**You** (2026-11-20T10:00:00.000Z):\n\n> plan my week');
    expect(md).toContain('> Done: **3** tasks\n> # not a heading');
    expect(md).toContain('evil \\\\u202e\\\\u001b\\[2J\\\\u0085\\\\u007f text');
    // eslint-disable-next-line no-control-regex
    expect(md).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(md).not.toContain('{"tasks":[]}'); // tool results are not part of the transcript
  });
});

describe('import refuses, and imports nothing', () => {
  function expectRefused(text: string, pattern: RegExp, options: { maxBytes?: number } = {}): void {
    const target = freshDb();
    try {
      const before = target.db.prepare(`SELECT * FROM projects`).all();
      let message = '';
      try {
        importTidyExport(target.db, writeExport(text), options);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toMatch(pattern);
      expect(message).not.toContain('\n');
      expect(isEmptyDatabase(target.db)).toBe(true);
      expect(target.db.prepare(`SELECT * FROM projects`).all()).toEqual(before);
      expect(target.db.prepare(`SELECT count(*) AS n FROM id_counters`).get()).toEqual({ n: 0 });
    } finally {
      target.db.close();
    }
  }

  const valid = (): Record<string, unknown> & { data: Record<string, unknown[]> } => {
    const { db } = tempDb();
    populate(db, 3);
    return JSON.parse(exportString(db)) as Record<string, unknown> & { data: Record<string, unknown[]> };
  };

  it('a non-empty database', () => {
    const { db } = tempDb();
    populate(db, 2);
    const text = exportString(db);
    const before = exportString(db);
    expect(() => importTidyExport(db, writeExport(text))).toThrow(/the database is not empty/);
    expect(exportString(db)).toBe(before);
  });

  it('a file of another format, not JSON, or empty', () => {
    expectRefused('{"format":"todoist","version":1}', /not a Tidy export/);
    expectRefused('TYPE,CONTENT,PRIORITY\ntask,Buy milk,1\n', /not valid JSON/);
    expectRefused('', /not valid JSON/);
    expectRefused('[]', /not a Tidy export/);
  });

  it('a newer export version or a newer schema', () => {
    const newer = valid();
    newer['version'] = 3;
    expectRefused(JSON.stringify(newer), /export version 3, newer than this Tidy reads/);
    const schema = valid();
    schema['schemaVersion'] = 999;
    expectRefused(JSON.stringify(schema), /newer Tidy \(schema 999/);
  });

  it('wrong types, naming where', () => {
    const v = valid();
    (v.data['tasks']![0] as Record<string, unknown>)['priority'] = 'high';
    expectRefused(JSON.stringify(v), /data\.tasks\[0\]\.priority/);
    const w = valid();
    (w.data['tasks']![1] as Record<string, unknown>)['status'] = 'deleted';
    expectRefused(JSON.stringify(w), /data\.tasks\[1\]\.status/);
    const x = valid();
    (x.data['projects']![0] as Record<string, unknown>)['evil'] = 'extra column';
    expectRefused(JSON.stringify(x), /data\.projects\[0\]/);
    const y = valid();
    y.data['tasks'] = { length: 1 } as unknown as unknown[];
    expectRefused(JSON.stringify(y), /data\.tasks/);
  });

  it('ids that clash, and references to missing rows, after some rows went in (one transaction)', () => {
    const v = valid();
    const tasks = v.data['tasks'] as Record<string, unknown>[];
    tasks.push({ ...tasks[0]!, content: 'same id' });
    expectRefused(JSON.stringify(v), /cannot be imported .*UNIQUE|two rows with one id/);
    const w = valid();
    (w.data['tasks']![2] as Record<string, unknown>)['projectId'] = 'p999';
    expectRefused(JSON.stringify(w), /cannot be imported \(FOREIGN KEY/);
    const x = valid();
    x.data['projects'] = (x.data['projects'] as Record<string, unknown>[]).filter((p) => p['id'] !== 'inbox');
    x.data['tasks'] = (x.data['tasks'] as Record<string, unknown>[]).filter((t) => t['projectId'] !== 'inbox');
    expectRefused(JSON.stringify(x), /no inbox project/);
  });

  it('a file larger than the limit is refused before it is read', () => {
    const big = JSON.stringify({ format: 'tidy-export', version: 1, pad: 'x'.repeat(2 * 1024 * 1024) });
    expectRefused(big, /more than the 1 MB Tidy imports/, { maxBytes: 1024 * 1024 });
  });

  it('deeply nested JSON', () => {
    const deep = `{"format":"tidy-export","version":1,"exportedAt":"x","schemaVersion":1,"data":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    expectRefused(deep, /not valid JSON \(nested too deeply\)|does not match the export format \(data:/);
    const v = valid();
    (v.data['tasks']![0] as Record<string, unknown>)['content'] = 'DEEP';
    expectRefused(JSON.stringify(v).replace('"DEEP"', `${'['.repeat(100_000)}${']'.repeat(100_000)}`), /not valid JSON \(nested too deeply\)|data\.tasks\[0\]\.content/);
  });

  it('a large valid file imports (50k tasks) and SQL-ish text is stored as text', () => {
    const v = valid();
    const tasks = v.data['tasks'] as Record<string, unknown>[];
    const template = tasks[0]!;
    for (let i = 0; i < 50_000; i++) tasks.push({ ...template, id: `t${100_000 + i}`, content: `x'); DELETE FROM tasks; -- ${i}` });
    const target = freshDb();
    try {
      importTidyExport(target.db, writeExport(JSON.stringify(v)));
      expect(target.db.prepare(`SELECT count(*) AS n FROM tasks`).get()).toEqual({ n: tasks.length });
      expect(target.db.prepare(`SELECT content FROM tasks WHERE id = 't100007'`).get()).toEqual({ content: "x'); DELETE FROM tasks; -- 7" });
      expect(target.db.prepare(`SELECT next FROM id_counters WHERE kind = 't'`).get()).toEqual({ next: 150_000 });
    } finally {
      target.db.close();
    }
  }, 120_000); // 50k rows written and read back: long on a loaded machine, and not a measure of speed (bench/ is)
});
