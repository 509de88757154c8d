// Reminders (src-main/core/reminders.ts) with a clock moved by hand.
import { describe, expect, it } from 'vitest';
import { addTask, completeTask, openDatabase, updateTask } from '../../src-main/core';
import { startReminders, type ReminderClock } from '../../src-main/core/reminders';
import type { Task } from '../../src-shared/domain';
import { okValue, tempDb, userCtx } from '../support/db';

function fakeClock(start: Date) {
  let now = start.getTime();
  const timers = new Map<number, { at: number; fn: () => void }>();
  let next = 1;
  const clock: ReminderClock = {
    now: () => new Date(now),
    setTimeout: (fn, ms) => {
      timers.set(next, { at: now + ms, fn });
      return next++;
    },
    clearTimeout: (h) => timers.delete(h as number),
  };
  /** Moves time on, running each timer that falls due on the way. */
  const advance = (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
    }
    now = end;
  };
  return { clock, advance, pending: () => timers.size };
}

describe('reminders', () => {
  it('announce a task when its due time comes, once, and not a task due on a day or already done', () => {
    const { db } = tempDb();
    const timed = okValue(addTask(db, userCtx(db), { content: 'Call Anna', due: '2026-11-23T10:30' }));
    okValue(addTask(db, userCtx(db), { content: 'All day', due: '2026-11-23' }));
    const done = okValue(addTask(db, userCtx(db), { content: 'Done already', due: '2026-11-23T10:15' }));
    okValue(completeTask(db, userCtx(db), { task: done.id }));
    const { clock, advance } = fakeClock(new Date(2026, 10, 23, 10, 0));
    const seen: Task[] = [];
    const r = startReminders(db, (t) => seen.push(t), { clock });
    expect(seen).toEqual([]);
    advance(29 * 60_000);
    expect(seen).toEqual([]);
    advance(2 * 60_000);
    expect(seen.map((t) => t.id)).toEqual([timed.id]);
    advance(60 * 60_000);
    expect(seen).toHaveLength(1);
    r.stop();
  });

  it('do not repeat after a restart, but announce a task moved (or snoozed) to a new time again', () => {
    const { db, path } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'Call Anna', due: '2026-11-23T09:50' }));
    const first = fakeClock(new Date(2026, 10, 23, 10, 0));
    const seen: string[] = [];
    startReminders(db, (x) => seen.push(x.due!), { clock: first.clock }).stop();
    expect(seen).toEqual(['2026-11-23T09:50']);

    // Another process (a restart) opens the same file: nothing is announced twice.
    const again = openDatabase(path);
    const second = fakeClock(new Date(2026, 10, 23, 10, 1));
    const r = startReminders(again, (x) => seen.push(x.due!), { clock: second.clock });
    expect(seen).toHaveLength(1);
    // Snoozing counts from the real clock; moving the due time by hand is the same change to the row.
    okValue(updateTask(again, userCtx(again), { task: t.id, due: '2026-11-23T10:10' }));
    second.advance(20 * 60_000);
    expect(seen).toEqual(['2026-11-23T09:50', '2026-11-23T10:10']);
    r.stop();
    again.close();
  });

  it('leave due times long past alone, and stop cleanly', () => {
    const { db } = tempDb();
    okValue(addTask(db, userCtx(db), { content: 'Last week', due: '2026-11-16T09:00' }));
    const { clock, pending } = fakeClock(new Date(2026, 10, 23, 10, 0));
    const seen: Task[] = [];
    const r = startReminders(db, (t) => seen.push(t), { clock });
    expect(seen).toEqual([]);
    expect(pending()).toBe(1);
    r.stop();
    expect(pending()).toBe(0);
  });
});
