import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { addTask, completeTask } from '../../../src-main/core';
import { exportIcal, icalPriority } from '../../../src-main/core/data';
import { okValue, tempDb, userCtx } from '../../support/db';
import type { Db } from '../../../src-main/core';

function ical(db: Db): { text: string; todos: ICAL.Component[] } {
  let text = '';
  exportIcal(db, { write: (c) => (text += c) }, new Date('2026-11-23T10:00:00Z'));
  const cal = new ICAL.Component(ICAL.parse(text));
  return { text, todos: cal.getAllSubcomponents('vtodo') };
}

describe('exportIcal', () => {
  it('writes a valid VCALENDAR with one VTODO per task with a due date: DUE, PRIORITY, STATUS, CATEGORIES, a stable UID', () => {
    const { db } = tempDb();
    const a = okValue(addTask(db, userCtx(db), { content: 'Pay rent; then, call Zoë', due: '2026-12-01', priority: 1 }));
    okValue(addTask(db, userCtx(db), { content: 'no date' }));
    const c = okValue(addTask(db, userCtx(db), { content: 'Dentist', due: '2026-12-02T09:30', priority: 4 }));
    const d = okValue(addTask(db, userCtx(db), { content: 'Done one', due: '2026-11-20', priority: 2 }));
    okValue(completeTask(db, userCtx(db), { task: d.id }));
    const { text, todos } = ical(db);
    expect(text.startsWith('BEGIN:VCALENDAR\r\n')).toBe(true);
    expect(text).toContain('VERSION:2.0\r\n');
    expect(todos).toHaveLength(3);
    const [ta, tc, td] = todos as [ICAL.Component, ICAL.Component, ICAL.Component];
    expect(ta.getFirstPropertyValue('uid')).toBe(`${a.id}@tidy`);
    expect(ta.getFirstPropertyValue('summary')).toBe('Pay rent; then, call Zoë');
    expect(text).toContain('SUMMARY:Pay rent\\; then\\, call Zoë');
    expect(text).toContain('DUE;VALUE=DATE:20261201\r\n');
    expect(ta.getFirstPropertyValue('priority')).toBe(1);
    expect(ta.getFirstPropertyValue('status')).toBe('NEEDS-ACTION');
    expect(ta.getFirstPropertyValue('categories')).toBe('Inbox');
    expect(tc.getFirstPropertyValue('uid')).toBe(`${c.id}@tidy`);
    expect(text).toContain('DUE:20261202T093000\r\n'); // local (floating) time, as stored
    expect(tc.getFirstProperty('priority')).toBeNull(); // p4 = normal = no priority
    expect(td.getFirstPropertyValue('status')).toBe('COMPLETED');
    expect(td.getFirstPropertyValue('priority')).toBe(5);
    for (const t of todos) expect(t.getFirstPropertyValue('dtstamp')).not.toBeNull();
  });

  it('maps priorities 1 → 1, 2 → 5, 3 → 9, 4 → none', () => {
    expect([1, 2, 3, 4].map(icalPriority)).toEqual([1, 5, 9, null]);
  });

  it('writes the RRULE of a recurring task when the database has a recurrence column', () => {
    const { db } = tempDb();
    const hasColumn = db.prepare(`SELECT 1 FROM pragma_table_info('tasks') WHERE name = 'recurrence'`).get();
    if (!hasColumn) db.exec(`ALTER TABLE tasks ADD COLUMN recurrence TEXT`);
    const t = okValue(addTask(db, userCtx(db), { content: 'Water the plants', due: '2026-11-30' }));
    db.prepare(`UPDATE tasks SET recurrence = ? WHERE id = ?`).run('FREQ=WEEKLY;BYDAY=MO', t.id);
    const { text, todos } = ical(db);
    expect(text).toContain('RRULE:FREQ=WEEKLY;BYDAY=MO\r\n');
    expect(String(todos[0]!.getFirstPropertyValue('rrule'))).toBe('FREQ=WEEKLY;BYDAY=MO');
  });

  it('an empty database is an empty, valid calendar', () => {
    const { db } = tempDb();
    expect(ical(db).todos).toEqual([]);
  });
});

describe('exportIcal: rich tasks', () => {
  it('writes DESCRIPTION, RELATED-TO for subtasks, the labels in CATEGORIES, and DUE on the deadline when there is no plan', () => {
    const { db } = tempDb();
    const parent = okValue(addTask(db, userCtx(db), { content: 'Move', due: '2035-05-01', labels: ['home', 'Big'], description: 'Line one\nLine two; with, commas' }));
    const sub = okValue(addTask(db, userCtx(db), { content: 'Pack', deadline: '2035-04-20', parent: parent.id }));
    const { todos } = ical(db);
    expect(todos).toHaveLength(2);
    const [tp, ts] = todos as [ICAL.Component, ICAL.Component];
    expect(tp.getFirstProperty('categories')!.getValues()).toEqual(['Inbox', 'Big', 'home']);
    expect(tp.getFirstPropertyValue('description')).toBe('Line one\nLine two; with, commas');
    expect(ts.getFirstPropertyValue('uid')).toBe(`${sub.id}@tidy`);
    expect(ts.getFirstPropertyValue('related-to')).toBe(`${parent.id}@tidy`);
    expect(String(ts.getFirstPropertyValue('due'))).toBe('2035-04-20');
  });
});
