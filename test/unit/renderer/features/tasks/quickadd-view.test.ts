import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseQuickAdd } from '../../../../../src-shared/quickadd';
import { recurrenceWords } from '../../../../../src-shared/repeat-rules';
import { quickAddSummary } from '../../../../../src-renderer/features/tasks/QuickAdd';
import { duePreview } from '../../../../../src-renderer/features/tasks/TaskList';
import { setDisplayLocale } from '../../../../../src-renderer/lib/when';

// US words with a 24-hour clock (the times follow the locale: test/unit/renderer/lib/when.test.ts).
beforeAll(() => setDisplayLocale('en-US-u-hc-h23'));
afterAll(() => setDisplayLocale(undefined));

// Monday 23 November 2026, 10:30 local time.
const NOW = new Date(2026, 10, 23, 10, 30);
const PROJECTS = [
  { id: 'inbox', name: 'Inbox' },
  { id: 'p1', name: 'Birthday Celebration' },
];

describe('what the quick-add field says it will store', () => {
  it('names the due, the project, the priority and the repeat', () => {
    const q = parseQuickAdd('Buy milk tomorrow 9am #Birthday Celebration p1', { projects: PROJECTS, now: NOW });
    expect(quickAddSummary(q, NOW)).toEqual([
      { kind: 'date', label: 'Due', text: 'tomorrow · Tue, Nov 24 09:00' },
      { kind: 'project', label: 'Project', text: 'Birthday Celebration' },
      { kind: 'priority', label: 'Priority', text: 'p1' },
    ]);
    expect(quickAddSummary(parseQuickAdd('Just a thought', { projects: PROJECTS, now: NOW }), NOW)).toEqual([]);
  });

  it.each([
    ['FREQ=WEEKLY;BYDAY=MO', 'every Monday'],
    ['FREQ=WEEKLY;BYDAY=MO,WE,FR', 'every Monday, Wednesday and Friday'],
    ['FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR', 'every weekday'],
    ['FREQ=WEEKLY;INTERVAL=2;BYDAY=TU', 'every 2 weeks on Tuesday'],
    ['FREQ=DAILY', 'every day'],
    ['FREQ=DAILY;INTERVAL=3', 'every 3 days'],
    ['FREQ=MONTHLY', 'every month'],
    ['FREQ=YEARLY;INTERVAL=2', 'every 2 years'],
    ['FREQ=SECONDLY', 'FREQ=SECONDLY'],
  ])('says %s as "%s"', (rule, words) => {
    expect(recurrenceWords(rule)).toBe(words);
  });
});

describe('the due field of the task editor', () => {
  it('reads quick-add words and says the date it will store', () => {
    expect(duePreview('friday 3pm', NOW)).toEqual({ due: '2026-11-27T15:00', words: 'Fri · Fri, Nov 27, 2026 15:00', ok: true });
    expect(duePreview('2026-12-24', NOW)).toMatchObject({ due: '2026-12-24', ok: true });
    expect(duePreview('  ', NOW)).toEqual({ due: null, words: 'no due date', ok: true });
    expect(duePreview('someday maybe', NOW)).toMatchObject({ due: null, ok: false });
    expect(duePreview('x'.repeat(10_000), NOW)).toMatchObject({ ok: false });
  });
});
