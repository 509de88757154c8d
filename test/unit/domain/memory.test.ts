import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  addMemory,
  createProject,
  forgetMemory,
  getMemory,
  listMemories,
  markMemoriesUsed,
  memoriesThatApply,
  openDatabase,
  undoAction,
  updateMemory,
} from '../../../src-main/core';
import { exportSchema, importTidyExport } from '../../../src-main/core/data';
import { searchAll } from '../../../src-main/core/domain/search';
import { MAX_MEMORY_CHARS } from '../../../src-shared/memory';
import { okValue, snapshot, tempDb, tempDir, userCtx } from '../../support/db';
import { exportString } from '../data/fixture';

describe('memories', () => {
  it('remembers a fact everywhere or for one project, by hand, logged as one action each', () => {
    const { db } = tempDb();
    const errands = okValue(createProject(db, userCtx(db), { name: 'Errands' }));
    const r = addMemory(db, userCtx(db), { text: '  groceries   always go to Errands ' });
    expect(r.ok && r.value).toMatchObject({ id: 'y1', text: 'groceries always go to Errands', projectId: null, conversationId: null, runId: null, archivedAt: null });
    const scoped = okValue(addMemory(db, userCtx(db), { text: 'use the shop on Main Street', project: 'errands' }));
    expect(scoped).toMatchObject({ projectId: errands.id, project: 'Errands' });
    expect(db.prepare(`SELECT tool, summary FROM actions WHERE tool = 'remember' ORDER BY seq`).all()).toEqual([
      { tool: 'remember', summary: "Remembered 'groceries always go to Errands'" },
      { tool: 'remember', summary: "Remembered 'use the shop on Main Street' for Errands" },
    ]);
    const what = JSON.parse((db.prepare(`SELECT what FROM actions WHERE tool = 'remember' LIMIT 1`).get() as { what: string }).what) as Record<string, unknown>;
    expect(what).toMatchObject({ verb: 'remembered', kind: 'memory', id: 'y1', name: 'groceries always go to Errands' });
    // Everywhere ones always apply; a project's only when that project is in play.
    expect(memoriesThatApply(db).map((m) => m.id)).toEqual(['y1']);
    expect(memoriesThatApply(db, [errands.id]).map((m) => m.id)).toEqual(['y1', 'y2']);
  });

  it('keeps where a memory came from when the agent made it', () => {
    const { db } = tempDb();
    const m = okValue(addMemory(db, { requestId: 'r9', source: 'agent' }, { text: 'no meetings before 10', from: { conversationId: 'c3', runId: 'r9' } }));
    expect(m).toMatchObject({ conversationId: 'c3', runId: 'r9' });
    expect(listMemories(db, { conversationId: 'c3' }).map((x) => x.id)).toEqual([m.id]);
    expect(listMemories(db, { conversationId: 'c4' })).toEqual([]);
  });

  it('refuses empty, invisible, over-long and duplicate memories, and an unknown project, with hints', () => {
    const { db } = tempDb();
    expect(addMemory(db, userCtx(db), { text: '   ' })).toMatchObject({ ok: false, error: 'the memory is empty' });
    expect(addMemory(db, userCtx(db), { text: '\u200b\u200d' })).toMatchObject({ ok: false, error: 'the memory is empty' });
    expect(addMemory(db, userCtx(db), { text: 'x'.repeat(MAX_MEMORY_CHARS + 1) })).toMatchObject({ ok: false, error: `the memory is ${MAX_MEMORY_CHARS + 1} characters long` });
    okValue(addMemory(db, userCtx(db), { text: 'x'.repeat(MAX_MEMORY_CHARS) }));
    okValue(addMemory(db, userCtx(db), { text: 'Groceries go to Errands' }));
    expect(addMemory(db, userCtx(db), { text: 'groceries GO to errands' })).toMatchObject({ ok: false, error: 'that is already remembered as y2' });
    expect(addMemory(db, userCtx(db), { text: 'a fact', project: 'Nowhere' })).toMatchObject({ ok: false, hint: expect.any(String) });
    expect(addMemory(db, userCtx(db), { text: 'a fact', project: 'everywhere' })).toMatchObject({ ok: true, value: { projectId: null } });
    // Hostile text is stored as text: quotes and SQL are data.
    const evil = okValue(addMemory(db, userCtx(db), { text: "Robert'); DROP TABLE memories;--" }));
    expect(getMemory(db, evil.id).text).toBe("Robert'); DROP TABLE memories;--");
  });

  it('edits, rescopes and forgets; undo puts each back exactly, and being used does not block undo', () => {
    const { db } = tempDb();
    okValue(createProject(db, userCtx(db), { name: 'Errands' }));
    const m = okValue(addMemory(db, userCtx(db), { text: 'groceries go to Errands' }));
    const before = snapshot(db);
    const edit = updateMemory(db, userCtx(db), { memory: m.id, text: 'groceries and pharmacy go to Errands' });
    expect(edit.ok && edit.value.text).toBe('groceries and pharmacy go to Errands');
    expect(updateMemory(db, userCtx(db), { memory: m.id, text: 'groceries and pharmacy go to Errands' })).toMatchObject({ ok: false, error: `memory ${m.id} already says that` });
    // The prompt used it after the edit: undo still works (the use is not part of the row).
    markMemoriesUsed(db, [m.id], '2035-01-01T00:00:00.000Z');
    expect(getMemory(db, m.id).lastUsedAt).toBe('2035-01-01T00:00:00.000Z');
    okValue(undoAction(db, edit.ok ? edit.actionId : '', { ctx: userCtx(db) }));
    expect(snapshot(db)).toEqual(before);

    const rescoped = okValue(updateMemory(db, userCtx(db), { memory: m.id, project: 'Errands' }));
    expect(rescoped.project).toBe('Errands');
    const forgot = forgetMemory(db, userCtx(db), { memory: m.id });
    expect(forgot.ok && forgot.value.archivedAt).toEqual(expect.any(String));
    expect(listMemories(db)).toEqual([]);
    expect(listMemories(db, { includeArchived: true }).map((x) => x.id)).toEqual([m.id]);
    expect(memoriesThatApply(db)).toEqual([]);
    expect(forgetMemory(db, userCtx(db), { memory: m.id })).toMatchObject({ ok: false, error: `memory ${m.id} is already forgotten` });
    expect(updateMemory(db, userCtx(db), { memory: m.id, text: 'new' })).toMatchObject({ ok: false, error: `memory ${m.id} is forgotten` });
    okValue(undoAction(db, forgot.ok ? forgot.actionId : '', { ctx: userCtx(db) }));
    expect(listMemories(db).map((x) => x.id)).toEqual([m.id]);
    expect(forgetMemory(db, userCtx(db), { memory: 'y999' })).toMatchObject({ ok: false, error: "no memory with id 'y999'" });
  });

  it('is found by search and by its words on the list', () => {
    const { db } = tempDb();
    okValue(addMemory(db, userCtx(db), { text: 'groceries go to Errands' }));
    okValue(addMemory(db, userCtx(db), { text: 'no meetings before 10' }));
    expect(listMemories(db, { query: 'MEETINGS' }).map((m) => m.text)).toEqual(['no meetings before 10']);
    const found = searchAll(db, 'groceries');
    expect(found.groups.find((g) => g.kind === 'memory')?.hits.map((h) => h.id)).toEqual(['y1']);
    const forgot = okValue(forgetMemory(db, userCtx(db), { memory: 'y1' }));
    expect(forgot.archivedAt).not.toBeNull();
    expect(searchAll(db, 'groceries').groups.find((g) => g.kind === 'memory')).toBeUndefined();
  });

  it('goes out in the export and comes back in the import; a version 2 file without memories still imports', () => {
    const { db } = tempDb();
    okValue(createProject(db, userCtx(db), { name: 'Errands' }));
    okValue(addMemory(db, userCtx(db), { text: 'groceries go to Errands', project: 'Errands' }));
    okValue(addMemory(db, { requestId: 'r1', source: 'agent' }, { text: 'no meetings before 10', from: { conversationId: 'c1', runId: 'r1' } }));
    const text = exportString(db);
    const parsed = exportSchema.parse(JSON.parse(text));
    expect(parsed.data.memories.map((m) => m.text)).toEqual(['groceries go to Errands', 'no meetings before 10']);
    const dir = tempDir();
    const file = join(dir, 'export.json');
    writeFileSync(file, text);
    const target = openDatabase(join(dir, 'new.db'));
    try {
      importTidyExport(target, file);
      expect(listMemories(target).map((m) => [m.text, m.project, m.conversationId])).toEqual([
        ['groceries go to Errands', 'Errands', null],
        ['no meetings before 10', null, 'c1'],
      ]);
      expect(exportSchema.parse(JSON.parse(exportString(target))).data.memories).toEqual(parsed.data.memories);
      // The next memory gets a new id.
      expect(okValue(addMemory(target, userCtx(target), { text: 'a third' })).id).toBe('y3');
    } finally {
      target.close();
    }

    const old = JSON.parse(text) as { data: Record<string, unknown> };
    delete old.data['memories'];
    writeFileSync(join(dir, 'old.json'), JSON.stringify(old));
    const older = openDatabase(join(dir, 'older.db'));
    try {
      importTidyExport(older, join(dir, 'old.json'));
      expect(listMemories(older)).toEqual([]);
    } finally {
      older.close();
    }
  });
});
