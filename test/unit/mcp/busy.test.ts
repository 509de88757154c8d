// `tidy mcp` and another process writing (issue 28, "wait without blocking"): a call that finds the write
// lock taken waits on a timer, not in a blocking busy timeout, and goes through once the lock is free; a call
// that already wrote part of its work is never run twice.
import Database from 'better-sqlite3';
import { describe, expect, it, onTestFinished } from 'vitest';
import { addTask, listTasks } from '../../../src-main/core';
import { undoRequest } from '../../../src-main/core/actions/undo';
import { MCP_BUSY_TIMEOUT_MS, undoInSession, whileBusy } from '../../../src-main/core/mcp/server';
import { startSessionRequest } from '../../../src-main/core/mcp/sessions';
import { createToolServices, TOOLS } from '../../../src-main/core/tools';
import { tempDb, userCtx } from '../../support/db';

/** The database as `tidy mcp` opens it (short busy timeout), and another process's connection holding the write lock. */
function lockedDb() {
  const { db, path } = tempDb();
  db.pragma(`busy_timeout = ${MCP_BUSY_TIMEOUT_MS}`);
  const other = new Database(path);
  onTestFinished(() => {
    if (other.inTransaction) other.prepare('ROLLBACK').run();
    other.close();
  });
  other.prepare('BEGIN IMMEDIATE').run();
  return { db, other };
}

const addTool = TOOLS.find((t) => t.name === 'add_task')!;
const WAITS = [10, 20, 40, 80, 160, 320, 500, 750, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000];

describe('tidy mcp while another process writes', () => {
  it('a write waits for the lock on a timer (the event loop runs meanwhile) and is made once the lock is free', async () => {
    const { db, other } = lockedDb();
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    let released = false;
    // The other process finishes once this process has shown it is not blocked (its timers ran).
    const release = setInterval(() => {
      if (ticks >= 3 && !released) {
        other.prepare('COMMIT').run();
        released = true;
      }
    }, 5);
    try {
      const ctx = { db, action: { requestId: 'm1', source: 'mcp' as const }, signal: new AbortController().signal, services: createToolServices() };
      const r = await whileBusy(db, () => addTool.run(addTool.input.parse({ content: 'Written after the wait' }), ctx), WAITS);
      expect(r).toMatchObject({ ok: true });
      expect(released).toBe(true);
      expect(listTasks(db, { project: 'inbox' }).tasks.map((t) => t.content)).toEqual(['Written after the wait']);
    } finally {
      clearInterval(ticker);
      clearInterval(release);
    }
  });

  it('a lock held past every wait ends the call with one line, and nothing is written', async () => {
    const { db } = lockedDb();
    const ctx = { db, action: { requestId: 'm1', source: 'mcp' as const }, signal: new AbortController().signal, services: createToolServices() };
    await expect(whileBusy(db, () => addTool.run(addTool.input.parse({ content: 'Never' }), ctx), [5, 5])).rejects.toThrow(/^the database is busy: another program has been writing to it for 0 s; nothing was changed$/);
    expect(listTasks(db, { project: 'inbox' }).total).toBe(0);
  });

  it('a call that wrote part of its work before the lock was taken is not run again', async () => {
    const { db } = tempDb();
    let runs = 0;
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    await expect(
      whileBusy(
        db,
        () => {
          runs++;
          addTask(db, userCtx(db), { content: `item ${runs}` });
          throw busy;
        },
        WAITS,
      ),
    ).rejects.toBe(busy);
    expect(runs).toBe(1);
    expect(listTasks(db, { project: 'inbox' }).total).toBe(1);
  });

  it('an undo (undo_request, undo_last_request) waits for a held lock and is tried again whole, even when the lock is taken after its session row', async () => {
    const { db, other } = lockedDb();
    other.prepare('ROLLBACK').run();
    other.pragma('busy_timeout = 0');
    const client = { name: 'Claude Desktop', version: '1' };
    const made = startSessionRequest(db, client);
    addTask(db, made, { content: 'Made by the client' });
    const sessions = (): number => (db.prepare(`SELECT COUNT(*) AS n FROM mcp_sessions`).get() as { n: number }).n;
    // Another process holds the write lock when the undo comes, and lets go a little later.
    other.prepare('BEGIN IMMEDIATE').run();
    setTimeout(() => other.prepare('COMMIT').run(), 30);
    // Then it tries to write again just as the undo begins its work.
    let attempts = 0;
    const run = (ctx: Parameters<typeof undoRequest>[2]['ctx']) => {
      if (attempts++ === 0) {
        try {
          other.prepare('BEGIN IMMEDIATE').run();
          setTimeout(() => other.prepare('COMMIT').run(), 30);
        } catch {
          // The undo already holds the lock: nobody can write between its session row and its changes.
        }
      }
      return undoRequest(db, made.requestId, { ctx });
    };
    const r = await whileBusy(db, () => undoInSession(db, client, run), WAITS);
    expect(r).toMatchObject({ ok: true, value: { reversed: [expect.anything()] } });
    expect(listTasks(db, { project: 'inbox' }).total).toBe(0);
    expect(sessions()).toBe(2); // the client's session and the undo's, no row of a failed attempt
    // A refused undo leaves no session row.
    expect(await whileBusy(db, () => undoInSession(db, client, (ctx) => undoRequest(db, 'm404', { ctx })), WAITS)).toMatchObject({ ok: false });
    expect(sessions()).toBe(2);
  });

  it('other errors are not retried', async () => {
    const { db } = tempDb();
    let runs = 0;
    await expect(whileBusy(db, () => { runs++; throw new Error('no'); }, WAITS)).rejects.toThrow('no');
    expect(runs).toBe(1);
  });
});
