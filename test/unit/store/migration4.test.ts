import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { listActions, openDatabase, undoRequest } from '../../../src-main/core';
import { search } from '../../../src-main/core/tools/search';
import { migrations } from '../../../src-main/core/store/migrations';
import { searchIndexCurrent } from '../../../src-main/core/store/search-index';
import { tempDir, userCtx } from '../../support/db';

describe('migration 4: the action log renamed and opened to any source, the search index re-keyed', () => {
  it('keeps every action (undoable as before) and every searchable row of a schema-3 database', () => {
    const path = join(tempDir(), 'tidy.db');
    const old = openDatabase(path, { migrations: migrations.slice(0, 3) });
    const now = new Date().toISOString();
    old.prepare(`INSERT INTO projects (id, name, name_key, created_at, updated_at) VALUES ('p1', 'Birthday', 'birthday', ?, ?)`).run(now, now);
    old.prepare(`INSERT INTO tasks (id, content, project_id, created_at, updated_at) VALUES ('t1', 'Bake the cake', 'p1', ?, ?)`).run(now, now);
    const after = old.prepare(`SELECT * FROM tasks WHERE id = 't1'`).get();
    const changes = JSON.stringify([{ table: 'tasks', id: 't1', before: null, after }]);
    old.prepare(`INSERT INTO actions (id, run_id, source, tool, args, inverse, summary, created_at) VALUES ('a1', 'r1', 'agent', 'add_task', '{}', ?, 'Added', ?)`).run(changes, now);
    old.prepare(`INSERT INTO action_entities (entity, action_seq) VALUES ('tasks:t1', 1)`).run();
    old.prepare(`INSERT INTO id_counters (kind, next) VALUES ('a', 2), ('t', 2), ('p', 2)`).run();
    old.close();

    const db = openDatabase(path);
    expect(listActions(db)).toMatchObject([{ id: 'a1', requestId: 'r1', source: 'agent', summary: 'Added' }]);
    expect(searchIndexCurrent(db)).toBe(true);
    expect(search(db, 'cake')).toMatchObject({ matches: [{ type: 'task', id: 't1', project: 'Birthday' }], total: 1 });
    expect(search(db, 'birthday')).toMatchObject({ matches: [{ type: 'project', id: 'p1' }] });
    expect(db.pragma('foreign_key_check')).toEqual([]);
    // Undo still finds the action's row images, and the index follows the row out.
    expect(undoRequest(db, 'r1', { ctx: userCtx(db) }).ok).toBe(true);
    expect(search(db, 'cake')).toMatchObject({ total: 0 });
    // Any source can be logged now.
    db.prepare(`INSERT INTO actions (id, request_id, source, tool, args, changes, summary, created_at) VALUES ('a9', 'm1', 'mcp', 'x', '{}', '[]', 'x', ?)`).run(now);
    db.close();
  });

  it('rebuilds the index when its triggers differ from the registry, and then leaves it alone', () => {
    const path = join(tempDir(), 'tidy.db');
    const db = openDatabase(path);
    db.prepare(`INSERT INTO lists (id, name, name_key, created_at, updated_at) VALUES ('l1', 'Groceries', 'groceries', 'x', 'x')`).run();
    db.exec(`DROP TRIGGER search_lists_insert; DELETE FROM search_text; DELETE FROM search_docs;`);
    expect(searchIndexCurrent(db)).toBe(false);
    db.close();
    const again = openDatabase(path);
    expect(searchIndexCurrent(again)).toBe(true);
    expect(search(again, 'groceries')).toMatchObject({ matches: [{ type: 'list', id: 'l1' }] });
    again.close();
  });
});
