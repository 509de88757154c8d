// The trace writer when the database will not take writes: another process holds the write lock, or the
// disk is full. The run ends cleanly with one line, nothing escapes as an uncaught error, and the run's
// end is written once the database takes writes again.
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-shared/events';
import { createLiveRuns, getRun, readTrace, startRun, TOOLS, type AgentDeps } from '../../../src-main/core/agent';
import type { Model, ModelRequest } from '../../../src-main/core/llm/port';
import { tempDb } from '../../support/db';
import { call, calls, say, ScriptedModel } from '../../fakes/scripted-model';

function host(model: Model) {
  const t = tempDb();
  const deps: AgentDeps = { db: t.db, tools: TOOLS, live: createLiveRuns(), createModel: () => model };
  const events: AgentEvent[] = [];
  const start = () => {
    const r = startRun(deps, { message: 'look around', baseUrl: 'http://fake/v1', model: 'm1', stream: false }, (e) => events.push(e));
    if (!r.ok) throw new Error(r.error);
    return r.value;
  };
  return { ...t, events, start };
}

/** The scripted model, each call after `before` ran and a pause, as a real model takes a while. */
const slow = (model: Model, before: (call: number) => void = () => {}): Model => {
  let n = 0;
  return {
    name: model.name,
    async complete(request: ModelRequest) {
      before(n++);
      await new Promise((r) => setTimeout(r, 80));
      return model.complete(request);
    },
  };
};

const until = async (check: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 10));
  }
};

describe('trace writes that fail', () => {
  it('a full disk ends the run with one line, and its end is written once there is room again', async () => {
    const big = 'x'.repeat(200_000);
    const { db, start, events } = host(slow(new ScriptedModel([{ text: big, ...calls(call('get_inbox_tasks')) }, say('done')])));
    db.pragma('wal_checkpoint(TRUNCATE)');
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    const uncaught: unknown[] = [];
    const onUncaught = (e: unknown) => uncaught.push(e);
    process.on('uncaughtException', onUncaught);
    try {
      const run = start();
      const result = await run.finished;
      expect(result.status).toBe('error');
      expect(result.message).toMatch(/^the database is full \(no space left on the disk\): /);
      expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'error' });
      // Room again: the retry writes what was queued, the end of the run included.
      db.pragma('max_page_count = 1073741823');
      await until(() => getRun(db, run.runId)?.status === 'error');
      expect(getRun(db, run.runId)?.message).toMatch(/database is full/);
      expect(readTrace(db, run.runId).at(-1)).toMatchObject({ type: 'run_finished', status: 'error' });
      expect(uncaught).toEqual([]);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });

  it('another process holding the write lock is waited for without blocking this one, and the trace is complete', async () => {
    let other: Database.Database | undefined;
    const { db, path, start } = host(
      slow(new ScriptedModel([calls(call('get_inbox_tasks')), say('done')]), (n) => {
        // Once the run has started, another process takes the write lock and keeps it.
        if (n === 0) (other = new Database(path)).exec('BEGIN IMMEDIATE');
      }),
    );
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    try {
      const run = start();
      const result = await run.finished;
      expect(result.status).toBe('done');
      // Half a second with the lock held: this process kept running its timers (a blocking busy wait would not).
      const before = ticks;
      await new Promise((r) => setTimeout(r, 500));
      expect(ticks - before).toBeGreaterThan(20);
      expect(getRun(db, run.runId)).toBeNull();
      other!.exec('COMMIT');
      await until(() => getRun(db, run.runId)?.status === 'done');
      expect(readTrace(db, run.runId).map((e) => e.type)).toEqual(expect.arrayContaining(['run_started', 'tool_call', 'tool_result', 'answer', 'run_finished']));
    } finally {
      clearInterval(ticker);
      other?.close();
    }
  });
});

describe('trace writes that succeed', () => {
  it("commit a run's steps without waiting for the disk, and its end with the connection's own synchronous = FULL", async () => {
    const { db, start } = host(slow(new ScriptedModel([calls(call('get_inbox_tasks')), calls(call('get_all_projects')), say('done')])));
    const set: string[] = [];
    const pragma = db.pragma.bind(db);
    db.pragma = ((source: string, options?: { simple?: boolean }) => {
      if (/^(synchronous|busy_timeout) = /.test(source)) set.push(source);
      return pragma(source, options);
    }) as typeof db.pragma;
    const run = start();
    expect((await run.finished).status).toBe('done');
    // Each flush sets busy_timeout = 0 first; the steps' flushes (while the model thinks) go without fsync, and set FULL (2) back.
    const flushes = set.join(' ').split('busy_timeout = 0').slice(1);
    expect(flushes.length).toBeGreaterThan(1);
    expect(flushes.slice(0, -1).some((f) => f.includes('synchronous = NORMAL') && f.includes('synchronous = 2'))).toBe(true);
    // The run's end: nothing lowered.
    expect(flushes.at(-1)).not.toMatch(/synchronous/);
    expect(pragma('synchronous', { simple: true })).toBe(2);
    expect(readTrace(db, run.runId).map((e) => e.type)).toEqual(expect.arrayContaining(['run_started', 'tool_call', 'tool_result', 'answer', 'run_finished']));
  });
});
