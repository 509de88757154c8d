import { describe, expect, it } from 'vitest';
import type { Task } from '../../../../../src-shared/domain';
import { readRepeat, REPEAT_MAX_CHARS } from '../../../../../src-shared/quickadd';
import { parseRecurrence } from '../../../../../src-main/core/domain/tasks';
import { createAppStore } from '../../../../../src-renderer/app/store';
import { duePreview, repeatPreview, repeatText } from '../../../../../src-renderer/features/tasks/TaskList';
import { fakeApi } from '../../fake-api';
import { task } from '../../fixtures';

const rule = (text: string) => {
  const r = readRepeat(text);
  return r.ok ? r.rule : `refused: ${r.message}`;
};

describe('the Repeats field reads quick-add words', () => {
  it('reads the words quick add reads, with or without "every", and RRULEs', () => {
    expect(rule('every monday')).toBe('FREQ=WEEKLY;BYDAY=MO');
    expect(rule('every weekday')).toBe('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR');
    expect(rule('every 2 weeks')).toBe('FREQ=WEEKLY;INTERVAL=2');
    expect(rule('every other day')).toBe('FREQ=DAILY;INTERVAL=2');
    expect(rule('Every Month')).toBe('FREQ=MONTHLY');
    expect(rule('tue and thu')).toBe('FREQ=WEEKLY;BYDAY=TU,TH');
    expect(rule('RRULE:FREQ=YEARLY')).toBe('FREQ=YEARLY');
    expect(rule('every month on the 1st')).toBe('FREQ=MONTHLY;BYMONTHDAY=1');
    expect(rule('every 2 months on the 15th')).toBe('FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=15');
    expect(rule('every month on the 32nd')).toMatch(/^refused: /);
    expect(rule('every week on the 1st')).toMatch(/^refused: /);
  });

  it('empty, "none" and "never" stop the repeating', () => {
    for (const t of ['', '   ', 'none', 'Never', 'no']) expect(readRepeat(t)).toEqual({ ok: true, rule: null });
  });

  it('agrees with the core on every rule it accepts', () => {
    for (const t of ['every monday', 'every weekday', 'every 2 weeks', 'every other day', 'every month', 'every month on the 1st', 'every year', 'mon, wed & fri', 'FREQ=DAILY;INTERVAL=3', 'none', ''])
      expect(rule(t)).toBe(parseRecurrence(t));
  });

  it('refuses hostile and unknown text with a message and a hint, never throwing', () => {
    const cases = ['x'.repeat(10_000), 'every -1 days', 'every 99999 years', 'every 0 weeks', '<img src=x onerror=alert(1)>', 'every monday 9am', 'every blue moon', 'FREQ=SECONDLY', '\u0000every day', 'every '.repeat(50)];
    for (const t of cases) {
      const r = readRepeat(t);
      expect(r.ok, t.slice(0, 30)).toBe(false);
      if (!r.ok) {
        expect(r.message.length).toBeLessThan(120);
        expect(r.hint).toMatch(/every/);
      }
    }
    const long = readRepeat('x'.repeat(10_000));
    expect(!long.ok && long.message).toBe('That is too long for a repeat rule (10000 characters).');
    expect(readRepeat('y'.repeat(REPEAT_MAX_CHARS)).ok).toBe(false);
    const negative = readRepeat('every -1 days');
    expect(!negative.ok && negative.message).toBe('"every -1 days": the number must be from 1 to 999.');
    expect(repeatPreview(readRepeat('every blue moon'))).toEqual({ ok: false, words: expect.stringContaining('"every blue moon" is not a repeat Tidy understands.') });
  });

  it('shows a rule in words that read back as the same rule, else as the RRULE', () => {
    for (const r of ['FREQ=WEEKLY;BYDAY=MO', 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', 'FREQ=DAILY;INTERVAL=2', 'FREQ=MONTHLY', 'FREQ=WEEKLY;BYDAY=TU,TH', 'FREQ=MONTHLY;BYMONTHDAY=1', 'FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=22', 'FREQ=MONTHLY;BYMONTHDAY=13', 'FREQ=WEEKLY;INTERVAL=2;BYDAY=MO', 'FREQ=MONTHLY;BYMONTHDAY=-1', 'FREQ=MONTHLY;BYDAY=3FR', 'FREQ=MONTHLY;BYDAY=-1MO', 'FREQ=MONTHLY;BYDAY=MO,TU,WE,TH,FR;BYSETPOS=-1', 'FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=27']) {
      expect(repeatText(r)).toMatch(/^every /);
      expect(rule(repeatText(r))).toBe(r);
    }
    // "every 2 weeks on Monday" is a quick-add phrase now; a rule with no phrase is shown as itself, and reads back.
    expect(repeatText('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO')).toBe('every 2 weeks on Monday');
    expect(repeatText('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=9')).toBe('FREQ=WEEKLY;INTERVAL=2;BYDAY=MO;BYHOUR=9');
    expect(repeatText(null)).toBe('');
    expect(repeatText('FREQ=MONTHLY;BYMONTHDAY=1')).toBe('every month on the 1st');
    expect(repeatText('FREQ=MONTHLY;INTERVAL=2;BYMONTHDAY=22')).toBe('every 2 months on the 22nd');
    expect(repeatText('FREQ=MONTHLY;BYMONTHDAY=13')).toBe('every month on the 13th');
    expect(repeatPreview(readRepeat('every weekday'))).toEqual({ ok: true, words: 'repeats every weekday' });
    expect(repeatPreview(readRepeat(''))).toEqual({ ok: true, words: 'does not repeat' });
  });

  it('a repeating task left without a due gets its first repeat, said in words', () => {
    const now = new Date(2026, 10, 24, 10, 0); // Tuesday
    expect(duePreview('', now, 'FREQ=WEEKLY;BYDAY=MO')).toEqual({ due: '2026-11-30', ok: true, words: 'a repeating task needs a due date: Mon · Mon, Nov 30, 2026, its first repeat' });
    expect(duePreview('', now, null)).toEqual({ due: null, ok: true, words: 'no due date' });
    expect(duePreview('', now, 'FREQ=DAILY').due).toBe('2026-11-24');
  });
});

describe('a repeat rule through the store', () => {
  it('sets and clears the rule with logged updates, and the words read back as the stored rule', async () => {
    let stored: Task = { ...task('t1', 'Water the plants'), due: '2026-11-30' };
    const fake = fakeApi({
      'tasks.update': (input) => {
        stored = { ...stored, ...(input.recurrence !== undefined ? { recurrence: parseRecurrence(input.recurrence) } : {}), ...(input.due !== undefined ? { due: input.due || null } : {}) };
        return { value: stored, actionId: `a${fake.calls.length}` };
      },
    });
    const store = createAppStore({ api: fake.api });
    const typed = readRepeat('every weekday');
    expect(typed.ok).toBe(true);
    expect(await store.getState().editTask(stored, { recurrence: typed.ok ? typed.rule : null })).toBeNull();
    expect(fake.callsTo('tasks.update')).toEqual([{ task: 't1', recurrence: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR' }]);
    expect(stored.recurrence).toBe('FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR');
    // The editor opens on the stored rule in words, which read back as it: saving unchanged sends nothing.
    expect(repeatText(stored.recurrence)).toBe('every weekday');
    expect(await store.getState().editTask(stored, { recurrence: rule(repeatText(stored.recurrence)) })).toBeNull();
    expect(fake.callsTo('tasks.update')).toHaveLength(1);
    // Stop repeating: the field emptied.
    const cleared = readRepeat('');
    expect(await store.getState().editTask(stored, { recurrence: cleared.ok ? cleared.rule : 'x' })).toBeNull();
    expect(fake.callsTo('tasks.update')[1]).toEqual({ task: 't1', recurrence: null });
    expect(stored.recurrence).toBeNull();
    expect(store.getState().notices.map((n) => n.text)).toEqual(['Saved: Water the plants', 'Saved: Water the plants']);
  });
});
