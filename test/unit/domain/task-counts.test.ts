// The sidebar's counts read index ranges (issue 30: not a pass over every open task on each change); the
// boundaries stay those of the date part of `due`, with or without a time.
import { describe, expect, it } from 'vitest';
import { addTask, completeTask, createProject } from '../../../src-main/core';
import { taskCounts } from '../../../src-main/core/domain/tasks';
import { okValue, tempDb, userCtx } from '../../support/db';

describe('taskCounts', () => {
  it('counts inbox, today (overdue included), overdue and the next seven days by the date part of due', () => {
    const { db } = tempDb();
    const ctx = userCtx(db);
    const other = okValue(createProject(db, ctx, { name: 'Other' }));
    const due = ['2035-03-13T23:59', '2035-03-13', '2035-03-14', '2035-03-14T00:00', '2035-03-14T23:59', '2035-03-20T23:59', '2035-03-21', '2034-01-01', null];
    for (const [i, d] of due.entries()) okValue(addTask(db, ctx, { content: `t${i}`, due: d, project: i % 2 ? other.id : undefined }));
    const done = okValue(addTask(db, ctx, { content: 'done', due: '2035-03-14' }));
    okValue(completeTask(db, ctx, { task: done.id }));
    expect(taskCounts(db, '2035-03-14')).toEqual({ inbox: 5, today: 6, overdue: 3, upcoming: 4 });
  });
});

describe('date terms of the filter language as ranges of due', () => {
  it('today, tomorrow, overdue, due before: and due after: keep the date-part boundaries, with or without a time', async () => {
    const { findTasks } = await import('../../../src-main/core/domain/filter');
    const { db } = tempDb();
    const ctx = userCtx(db);
    for (const d of ['2035-03-13T23:59', '2035-03-14', '2035-03-14T10:00', '2035-03-15T00:00', '2035-03-16'])
      okValue(addTask(db, ctx, { content: d, due: d }));
    const now = new Date(2035, 2, 14, 12, 0);
    const q = (filter: string) => findTasks(db, { filter, today: '2035-03-14', now }).tasks.map((t) => t.content);
    expect(q('today')).toEqual(['2035-03-14', '2035-03-14T10:00']);
    expect(q('tomorrow')).toEqual(['2035-03-15T00:00']);
    expect(q('overdue')).toEqual(['2035-03-13T23:59']);
    expect(q('due before: 2035-03-15')).toEqual(['2035-03-13T23:59', '2035-03-14', '2035-03-14T10:00']);
    expect(q('due after: 2035-03-14')).toEqual(['2035-03-15T00:00', '2035-03-16']);
    expect(q('no date | !overdue & !today')).toEqual(['2035-03-15T00:00', '2035-03-16']);
  });
});
