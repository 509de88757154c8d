// The desktop app and the CLI share one database. A change that reads, then writes, must not fail
// because the other process committed in between: it takes the write lock when it starts.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { newUserRequest } from '../../../src-main/core';
import { mutate } from '../../../src-main/core/domain/mutation';
import { tempDb } from '../../support/db';

describe('two processes on one database', () => {
  it('a change that has read cannot be broken by another writer committing before it writes', () => {
    const { db, path } = tempDb();
    const other = new Database(path);
    other.pragma('busy_timeout = 0');
    try {
      let otherWrite: 'committed' | 'waited' = 'committed';
      const r = mutate(db, newUserRequest(db), 'add_task', { verb: 'added', kind: 'task' }, {}, (cs) => {
        db.prepare(`SELECT count(*) FROM tasks`).get(); // this change has read the database
        try {
          other.prepare(`INSERT INTO settings (key, value) VALUES ('other', '1')`).run(); // the other process writes
        } catch (e) {
          if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e;
          otherWrite = 'waited';
        }
        const now = new Date().toISOString();
        cs.insert('tasks', { id: 't1', content: 'mine', project_id: 'inbox', priority: 1, due: null, status: 'open', created_at: now, updated_at: now });
        return { value: null, summary: 'Added a task' };
      });
      expect(r.ok).toBe(true);
      // The other writer had to wait for the lock (with its busy timeout it would have, rather than fail).
      expect(otherWrite).toBe('waited');
    } finally {
      other.close();
    }
  });
});
