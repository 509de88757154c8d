// Planning operations on tasks: priorities, due dates and times, recurrence, manual order, snooze, views.
import { afterEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import type { z } from 'zod';
import type { SpecOf } from '../../../src-shared/operations';
import { addFromText } from '../../../src-main/core/domain/quickadd';
import {
  addTask,
  completeTask,
  createProject,
  getTask,
  listActions,
  listTasks,
  localDate,
  moveTask,
  reopenTask,
  reorderTask,
  snoozeTask,
  taskCounts,
  undoAction,
  updateTask,
} from '../../../src-main/core';
import { commandInput } from '../../../src-main/core/domain/command-input';
import { parsePriority, snoozeMinutes } from '../../../src-main/core/domain/tasks';
import { attempt } from '../../../src-main/core/fail';
import { okValue, snapshot, tempDb, userCtx } from '../../support/db';

afterEach(() => {
  vi.useRealTimers();
});

const order = (db: Parameters<typeof listTasks>[0], project = 'inbox') => listTasks(db, { project }).tasks.map((t) => t.content);

describe('priority and due dates', () => {
  it('adds tasks at priority 4 (normal) and takes p1…p4 or 1…4', () => {
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    expect(t.priority).toBe(4);
    // Words ("p1") are read at the edge (the command line), the operation takes its schema's number.
    expect(okValue(updateTask(db, userCtx(db), { task: t.id, priority: parsePriority('p1') })).priority).toBe(1);
    expect(attempt(() => commandInput(updateTask, { task: t.id, priority: 'p5' }))).toMatchObject({ ok: false, hint: expect.stringContaining('1 (p1, most urgent)') });
    expect(updateTask(db, userCtx(db), { task: t.id, priority: 5 })).toMatchObject({ ok: false, hint: expect.stringContaining('1 (p1, most urgent)') });
  });

  it('stores due dates as local dates or date-times, from ISO text or words', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 23, 10, 0));
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'x' }));
    const due = (d: string | null) => okValue(updateTask(db, userCtx(db), { task: t.id, due: d })).due;
    expect(due('2026-12-24T15:30:45')).toBe('2026-12-24T15:30');
    expect(due('next friday 3pm')).toBe('2026-12-04T15:00');
    expect(due('tomorrow')).toBe('2026-11-24');
    expect(due('none')).toBeNull();
    const utc = new Date(Date.UTC(2026, 11, 24, 15, 30));
    expect(due(utc.toISOString())).toBe(`${localDate(utc)}T${String(utc.getHours()).padStart(2, '0')}:30`);
    expect(updateTask(db, userCtx(db), { task: t.id, due: 'someday maybe' })).toMatchObject({ ok: false, error: 'due date "someday maybe" is not a date' });
  });
});

describe('recurring tasks', () => {
  it('completing one moves its due date to the next occurrence after today; undo puts it back exactly', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 23, 10, 0)); // a Monday
    const { db } = tempDb();
    const t = okValue(addTask(db, userCtx(db), { content: 'Standup', due: '2026-11-20T09:00', recurrence: 'every weekday' }));
    expect(t.recurrence).toBe('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR');
    const before = snapshot(db);
    const r = completeTask(db, userCtx(db), { task: t.id });
    if (!r.ok) throw new Error(r.error);
    expect(r.value).toMatchObject({ status: 'open', due: '2026-11-24T09:00' });
    expect(okValue(undoAction(db, r.actionId, { ctx: userCtx(db) })).reversed).toHaveLength(1);
    expect(snapshot(db)).toEqual(before);
  });

  it('a repeating task without a date starts today or at its first day; a bad rule is refused; none stops it', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 23, 10, 0));
    const { db } = tempDb();
    expect(okValue(addTask(db, userCtx(db), { content: 'Bins', recurrence: 'FREQ=WEEKLY;BYDAY=TU' })).due).toBe('2026-11-24');
    const t = okValue(addTask(db, userCtx(db), { content: 'Rent' }));
    expect(okValue(updateTask(db, userCtx(db), { task: t.id, recurrence: 'every month' }))).toMatchObject({ recurrence: 'FREQ=MONTHLY', due: '2026-11-23' });
    expect(updateTask(db, userCtx(db), { task: t.id, recurrence: 'whenever I feel like it' })).toMatchObject({ ok: false, hint: expect.stringContaining('every monday') });
    expect(updateTask(db, userCtx(db), { task: t.id, recurrence: 'FREQ=SECONDLY' })).toMatchObject({ ok: false });
    const stopped = okValue(updateTask(db, userCtx(db), { task: t.id, recurrence: 'none' }));
    expect(stopped.recurrence).toBeNull();
    // The action log says the rule in words, as the task list does.
    expect(listActions(db, { limit: 2 }).map((a) => a.summary)).toEqual([expect.stringContaining('does not repeat'), expect.stringContaining('repeats every month')]);
    expect(okValue(completeTask(db, userCtx(db), { task: t.id }))).toMatchObject({ status: 'done', completedAt: expect.any(String) });
    expect(okValue(reopenTask(db, userCtx(db), { task: t.id })).completedAt).toBeNull();
  });
});

describe('manual order', () => {
  it('puts a task before another of its project or last, and refuses across projects', () => {
    const { db } = tempDb();
    const [a, b, c] = ['a', 'b', 'c'].map((content) => okValue(addTask(db, userCtx(db), { content })));
    okValue(reorderTask(db, userCtx(db), { task: c!.id, before: a!.id }));
    expect(order(db)).toEqual(['c', 'a', 'b']);
    okValue(reorderTask(db, userCtx(db), { task: c!.id, before: b!.id }));
    expect(order(db)).toEqual(['a', 'c', 'b']);
    okValue(reorderTask(db, userCtx(db), { task: a!.id, before: null }));
    expect(order(db)).toEqual(['c', 'b', 'a']);
    expect(reorderTask(db, userCtx(db), { task: a!.id, before: null })).toMatchObject({ ok: false, error: expect.stringContaining('already last') });
    expect(reorderTask(db, userCtx(db), { task: a!.id, before: a!.id })).toMatchObject({ ok: false });
    okValue(createProject(db, userCtx(db), { name: 'Work' }));
    okValue(moveTask(db, userCtx(db), { task: b!.id, project: 'Work' }));
    expect(reorderTask(db, userCtx(db), { task: a!.id, before: b!.id })).toMatchObject({ ok: false, hint: expect.stringContaining('move task') });
  });

  it('keeps working after many moves into the same gap, renumbering when the room runs out', () => {
    const { db } = tempDb();
    const [a, b] = ['a', 'b'].map((content) => okValue(addTask(db, userCtx(db), { content })));
    const moved: string[] = [];
    for (let i = 0; i < 80; i++) {
      const t = okValue(addTask(db, userCtx(db), { content: `n${i}` }));
      // Each new task goes just before b, so the gap between a and b halves every time.
      okValue(reorderTask(db, userCtx(db), { task: t.id, before: b!.id }));
      moved.push(`n${i}`);
    }
    expect(order(db)).toEqual(['a', ...moved, 'b']);
    expect(a).toBeDefined();
  });
});

describe('snooze', () => {
  it('moves a due time later, from now when it has passed, and gives a day a time', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(2026, 10, 23, 10, 0));
    const { db } = tempDb();
    const future = okValue(addTask(db, userCtx(db), { content: 'x', due: '2026-11-23T11:00' }));
    expect(okValue(snoozeTask(db, userCtx(db), { task: future.id, minutes: 15 })).due).toBe('2026-11-23T11:15');
    const past = okValue(addTask(db, userCtx(db), { content: 'y', due: '2026-11-23T09:00' }));
    expect(okValue(snoozeTask(db, userCtx(db), { task: past.id, minutes: 10 })).due).toBe('2026-11-23T10:10');
    const day = okValue(addTask(db, userCtx(db), { content: 'z', due: '2026-11-23' }));
    expect(okValue(snoozeTask(db, userCtx(db), { task: day.id, minutes: snoozeMinutes('60') })).due).toBe('2026-11-23T11:00');
    expect(snoozeTask(db, userCtx(db), { task: day.id, minutes: 0 })).toMatchObject({ ok: false, hint: expect.stringContaining('1 to 20160') });
  });
});

describe('operation inputs are their schemas', () => {
  it('types each operation\'s input from its own schema', () => {
    expectTypeOf<Parameters<typeof updateTask>[2]>().toEqualTypeOf<z.output<SpecOf<'tasks.update'>['input']>>();
    expectTypeOf<Parameters<typeof snoozeTask>[2]['minutes']>().toEqualTypeOf<number>();
    expectTypeOf<Parameters<typeof addTask>[2]['priority']>().toEqualTypeOf<number | undefined>();
  });

  it('reads a command line\'s words into the schema\'s values, and refuses what the schema refuses', () => {
    const now = new Date(2035, 0, 10, 9, 0);
    expect(commandInput(updateTask, { task: 't1', priority: 'p2', due: 'none', durationMin: '45m' }, now)).toEqual({ task: 't1', priority: 2, due: null, durationMin: '45m' });
    expect(commandInput(updateTask, { task: 't1', due: '2035-01-12 15:30' }, now)).toEqual({ task: 't1', due: '2035-01-12T15:30' });
    expect(commandInput(snoozeTask, { task: 't1', minutes: ' 60 ' }, now)).toEqual({ task: 't1', minutes: 60 });
    const refusal = (input: Record<string, unknown>) => attempt(() => commandInput(updateTask, input, now));
    expect(refusal({ task: 't1', content: 'x'.repeat(20_001) })).toMatchObject({ ok: false, error: expect.stringMatching(/^--content: /), hint: 'see tidy edit --help' });
    expect(refusal({ task: 'x'.repeat(65) })).toMatchObject({ ok: false, error: expect.stringMatching(/^<task>: /) });
    expect(refusal({ task: 't1', due: 'whenever' })).toMatchObject({ ok: false, error: 'due date "whenever" is not a date' });
    expect(refusal({ task: 't1', labels: 'x' })).toMatchObject({ ok: false, error: expect.stringMatching(/^--label: /) });
    expect(attempt(() => commandInput(snoozeTask, { task: 't1', minutes: '1e3' }, now))).toMatchObject({ ok: false, hint: expect.stringContaining('1 to 20160') });
    expect(attempt(() => commandInput(snoozeTask, { task: 't1', minutes: '99999999' }, now))).toMatchObject({ ok: false, hint: expect.stringContaining('1 to 20160') });
  });

  it('refuses a bad priority or due given apart from quick-add text before it creates a project', () => {
    const { db } = tempDb();
    const r = addFromText(db, userCtx(db), 'Plan #Reunion', { createProject: true, priority: 'p9' });
    expect(r).toMatchObject({ ok: false, hint: expect.stringContaining('1 (p1, most urgent)') });
    expect(addFromText(db, userCtx(db), 'Plan #Reunion', { createProject: true, due: 'whenever' })).toMatchObject({ ok: false, error: 'due date "whenever" is not a date' });
    expect(listActions(db)).toHaveLength(0);
    const ok = okValue(addFromText(db, userCtx(db), 'Plan p3', { priority: 'p1', due: '2035-01-12 15:30' }));
    expect([ok.priority, ok.due]).toEqual([3, '2035-01-12T15:30']);
  });
});

describe('views', () => {
  it('Today has the overdue first, Upcoming the next 7 days by date, Completed the newest first; counts agree', () => {
    const { db } = tempDb();
    const today = '2026-11-23';
    const add = (content: string, due: string | null, priority = 4) => okValue(addTask(db, userCtx(db), { content, due, priority }));
    add('late', '2026-11-01');
    add('today urgent', '2026-11-23', 1);
    add('today 9', '2026-11-23T09:00');
    add('sunday', '2026-11-29');
    add('next monday', '2026-11-30');
    add('no date', null);
    const names = (view: 'today' | 'upcoming' | 'completed') => listTasks(db, { view, today }).tasks.map((t) => t.content);
    expect(names('today')).toEqual(['late', 'today urgent', 'today 9']);
    expect(names('upcoming')).toEqual(['today urgent', 'today 9', 'sunday']);
    expect(taskCounts(db, today)).toEqual({ inbox: 6, today: 3, overdue: 1, upcoming: 3 });
    const first = getTask(db, 't1');
    okValue(completeTask(db, userCtx(db), { task: first.id }));
    okValue(completeTask(db, userCtx(db), { task: 't4' }));
    expect(names('completed')).toEqual(['sunday', 'late']);
    expect(names('today')).toEqual(['today urgent', 'today 9']);
  });
});
