// `tidy routines …`, `tidy approvals`, `tidy approve|decline` as a user runs them: real processes, a temp
// database and the loopback fake model. Times are relative to now (the CLI has the real clock).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { addTask, listTasks, openDatabase, type Db } from '../../../src-main/core';
import { startFakeOpenAI, type FakeToolCall } from '../../fakes/openai-server';
import { REPO, TIDY_BIN, tidy } from '../../support/cli';
import { tidyAsync } from '../../support/cli-async';
import { tempDir, userCtx } from '../../support/db';

async function setup() {
  const path = join(tempDir(), 'tidy.db');
  openDatabase(path).close();
  const fake = await startFakeOpenAI();
  onTestFinished(() => fake.close());
  // The terminal's locale is pinned (en-GB, a 24-hour clock): human lines show schedules as it reads them.
  const env = { TIDY_BASE_URL: fake.url, TIDY_MODEL: 'fake-model', LC_ALL: 'en_GB.UTF-8' };
  const read = <T>(fn: (db: Db) => T): T => {
    const db = openDatabase(path);
    try {
      return fn(db);
    } finally {
      db.close();
    }
  };
  return { path, fake, env, read, run: (...args: string[]) => tidy(path, args, { env }), runUS: (...args: string[]) => tidy(path, args, { env: { ...env, LC_ALL: 'en_US.UTF-8' } }), go: (...args: string[]) => tidyAsync(path, args, { env }).done };
}

const call = (name: string, args: Record<string, unknown> = {}): FakeToolCall => ({ name, arguments: args });
const pad = (n: number) => String(n).padStart(2, '0');
const localDate = (d: Date) => `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;

describe('tidy routines', () => {
  it('adds, lists, edits, pauses, removes and undoes; unreadable schedules are one line', { timeout: 240_000 }, async () => {
    const t = await setup();
    const added = t.run('routines', 'add', 'Plan my day', '--every', 'weekday at 8am', '--', 'plan', 'my', 'day');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/Added routine 'Plan my day': every weekday at 08:00 \(a\d+; undo with: tidy undo a\d+\)/);
    const [r] = JSON.parse(t.run('routines', 'list', '--json').stdout) as { id: string; schedule: string; request: string; nextRuns: string[]; enabled: boolean; catchUp: string }[];
    expect(r).toMatchObject({ schedule: 'every weekday at 08:00', request: 'plan my day', enabled: true, catchUp: 'once' });
    expect(r!.nextRuns).toHaveLength(3);
    for (const iso of r!.nextRuns) expect([1, 2, 3, 4, 5]).toContain(new Date(iso).getDay());

    // An en-US terminal reads the schedule on a 12-hour clock; --json keeps Tidy's own form.
    expect(t.runUS('routines', 'edit', 'plan my day', '--every', 'friday 4pm', '--skip-missed').stdout).toMatch(/Changed routine 'Plan my day': every Friday at 4:00 PM, missed runs skipped/);
    expect(t.run('routines', 'edit', r!.id, '--pause').stdout).toMatch(/Paused routine/);
    expect(JSON.parse(t.run('routines', 'list', '--json').stdout)[0]).toMatchObject({ schedule: 'every Friday at 16:00', enabled: false, nextRuns: [] });

    const bad = t.run('routines', 'add', 'Other', '--every', 'whenever I feel like it', '--', 'x');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^tidy: "whenever I feel like it" is not a schedule Tidy understands — write it as in "every weekday at 8am"/);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(t.run('routines', 'add', 'Huge', '--every', 'x'.repeat(5000), '--', 'x').stderr).toMatch(/5000 characters long/);

    const removed = t.run('routines', 'remove', 'Plan my day');
    expect(removed.stdout).toMatch(/Removed routine 'Plan my day'/);
    expect(JSON.parse(t.run('routines', 'list', '--json').stdout)).toEqual([]);
    expect(t.run('undo', '--last').code).toBe(0);
    expect(JSON.parse(t.run('routines', 'list', '--json').stdout)).toHaveLength(1);
  });

  it('run waits for an approval; tidy approvals lists it; tidy approve goes on in a new process', { timeout: 240_000 }, async () => {
    const t = await setup();
    const [task] = t.read((db) => [addTask(db, userCtx(db), { content: 'Pay rent' })]);
    const taskId = task!.ok ? task!.value.id : '';
    t.run('routines', 'add', 'Rent', '--every', 'month', '--', 'complete the rent task');
    t.fake.enqueue({ toolCalls: [call('complete_task', { task_id: taskId })] });
    const ran = await t.go('routines', 'run', 'Rent');
    expect(ran.code).toBe(0);
    expect(ran.stdout).toMatch(/Rent: manual now → waiting for approval (w\d+)/);
    const id = /waiting for approval (w\d+)/.exec(ran.stdout)![1]!;
    const pending = JSON.parse(t.run('approvals', '--json').stdout) as { id: string; tool: string; args: unknown; routineId: string }[];
    expect(pending).toMatchObject([{ id, tool: 'complete_task', args: { task_id: taskId } }]);
    expect(t.run('approvals').stdout).toContain(`${id}`);

    t.fake.enqueue({ text: 'Paid: the rent task is complete.' });
    const approved = await t.go('approve', id);
    expect(approved.code).toBe(0);
    expect(approved.stdout).toMatch(/Rent: continued .* → done/);
    expect(t.read((db) => listTasks(db, { status: 'done' }).tasks.map((x) => x.id))).toEqual([taskId]);
    expect(JSON.parse(t.run('approvals', '--json').stdout)).toEqual([]);
    const again = t.run('decline', id);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/already answered/);
    const history = JSON.parse(t.run('routines', 'history', '--json').stdout) as { kind: string; status: string }[];
    expect(history.map((h) => [h.kind, h.status])).toEqual([
      ['continued', 'done'],
      ['manual', 'waiting'],
    ]);
  });

  it('run-due in two processes at once runs a missed occurrence once', { timeout: 240_000 }, async () => {
    const t = await setup();
    t.run('routines', 'add', 'Daily', '--every', 'day at 8am', '--', 'say hello');
    // As if added three days ago and Tidy had not run since.
    const back = new Date(Date.now() - 3 * 86_400_000);
    t.read((db) => db.prepare(`UPDATE routines SET start = ?, created_at = ?, updated_at = ?`).run(`${localDate(back)}T08:00`, back.toISOString(), back.toISOString()));
    t.fake.enqueue({ text: 'Hello.' }, { text: 'Hello again.' });
    const [a, b] = await Promise.all([tidyAsync(t.path, ['routines', 'run-due'], { env: t.env }).done, tidyAsync(t.path, ['routines', 'run-due'], { env: t.env }).done]);
    expect([a.code, b.code]).toEqual([0, 0]);
    expect(t.fake.chatRequests).toHaveLength(1);
    const history = JSON.parse(t.run('routines', 'history', '--json').stdout) as { kind: string; status: string }[];
    expect(history.filter((h) => h.status !== 'skipped').map((h) => h.status)).toEqual(['done']);
    // Nothing is due any more.
    expect((await t.go('routines', 'run-due')).stdout).toBe('');
    expect(t.fake.chatRequests).toHaveLength(1);
  });

  it('print-timer prints a unit, a crontab line or a plist that call run-due; anything else is a usage error', { timeout: 240_000 }, async () => {
    const t = await setup();
    expect(t.run('routines', 'print-timer', 'systemd').stdout).toMatch(/ExecStart=.*routines run-due[\s\S]*\[Timer\][\s\S]*OnCalendar=/);
    expect(t.run('routines', 'print-timer', 'cron').stdout).toMatch(/^\* \* \* \* \* .*--db .*routines run-due/m);
    // Started as the bundle itself (not through bin/tidy.mjs), the timer still runs the package's `tidy` script.
    const direct = spawnSync(process.execPath, [join(REPO, 'out', 'cli', 'tidy.mjs'), '--db', t.path, 'routines', 'print-timer', 'cron'], { encoding: 'utf8', env: { ...process.env, ...t.env } });
    expect(direct.stdout).toContain(`* * * * * ${process.execPath} ${TIDY_BIN} --db ${t.path} routines run-due`);
    expect(t.run('routines', 'print-timer', 'launchd').stdout).toMatch(/<string>run-due<\/string>/);
    const bad = t.run('routines', 'print-timer', 'windows');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/not a kind of timer/);
  });
});
