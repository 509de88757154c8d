import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { addTask, getRun, listRuns } from '../../../src-main/core';
import { okValue, tempDb } from '../../support/db';

describe('runs cut off by a crash', () => {
  it('are shown as interrupted errors, while runs of live processes stay running', () => {
    const { db } = tempDb();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    db.prepare(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 'x', 'x')`).run();
    const insert = db.prepare(
      `INSERT INTO runs (id, conversation_id, status, request, model, base_url, protocol, started_at, pid) VALUES (?, 'c1', 'running', 'q', 'm', 'u', 'native', ?, ?)`,
    );
    insert.run('r1', '2026-01-01T00:00:00Z', gone);
    insert.run('r2', '2026-01-01T00:00:01Z', process.pid);
    insert.run('r3', '2026-01-01T00:00:02Z', null);

    const byId = Object.fromEntries(listRuns(db).map((r) => [r.id, r]));
    expect(byId['r1']).toMatchObject({ status: 'error', message: 'interrupted: Tidy stopped before this run finished' });
    expect(byId['r1']!.finishedAt).not.toBeNull();
    expect(byId['r2']!.status).toBe('running');
    expect(getRun(db, 'r3')!.status).toBe('error');
  });
});

describe('a run killed after it changed things', () => {
  it('counts its changes from the action log and says how to undo them', () => {
    const { db } = tempDb();
    const gone = spawnSync(process.execPath, ['-e', '0']).pid!;
    db.prepare(`INSERT INTO conversations (id, title, created_at, updated_at) VALUES ('c1', 't', 'x', 'x')`).run();
    db.prepare(
      `INSERT INTO runs (id, conversation_id, status, request, model, base_url, protocol, started_at, pid) VALUES ('r7', 'c1', 'running', 'q', 'm', 'u', 'native', 'x', ?)`,
    ).run(gone);
    const ctx = { requestId: 'r7', source: 'agent' as const };
    okValue(addTask(db, ctx, { content: 'one' }));
    okValue(addTask(db, ctx, { content: 'two' }));
    expect(getRun(db, 'r7')).toMatchObject({
      status: 'error',
      actions: 2,
      message: 'interrupted: Tidy stopped before this run finished; undo its 2 changes with: tidy undo --run r7',
    });
  });
});
