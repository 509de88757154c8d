import { describe, expect, it } from 'vitest';
import { parseQuickAdd } from '../../../src-shared/quickadd';

const ctx = { projects: [{ id: 'p1', name: 'Work' }], now: new Date(2035, 2, 14, 10, 0) }; // Wednesday 2035-03-14

describe('quick add: @labels, {deadline}, for DURATION', () => {
  it('reads several labels in any case, without repeats, and leaves email addresses alone', () => {
    const q = parseQuickAdd('Call bob@example.com @Phone @errands @phone tomorrow', ctx);
    expect(q).toMatchObject({ content: 'Call bob@example.com', labels: ['Phone', 'errands'], due: '2035-03-15' });
    expect(q.parts.filter((p) => p.kind === 'label').map((p) => p.text)).toEqual(['@Phone', '@errands', '@phone']);
  });

  it('reads {friday} as a deadline beside the due date, and braces around anything else stay text', () => {
    expect(parseQuickAdd('File taxes {friday} tomorrow #Work', ctx)).toMatchObject({ content: 'File taxes', deadline: '2035-03-16', due: '2035-03-15', project: { id: 'p1' } });
    expect(parseQuickAdd('Fix {the thing}', ctx)).toMatchObject({ content: 'Fix {the thing}', deadline: null });
    expect(parseQuickAdd('Ship {2035-04-01}', ctx).deadline).toBe('2035-04-01');
  });

  it('reads for 45m / for 2h / for 1h30m as a duration, not as a time', () => {
    expect(parseQuickAdd('Deep work for 2h', ctx)).toMatchObject({ content: 'Deep work', durationMin: 120, due: null });
    expect(parseQuickAdd('Run for 45m tomorrow', ctx)).toMatchObject({ content: 'Run', durationMin: 45, due: '2035-03-15' });
    expect(parseQuickAdd('Read for 1h30m', ctx).durationMin).toBe(90);
    expect(parseQuickAdd('Shop for 2 hours', ctx)).toMatchObject({ content: 'Shop', durationMin: 120 });
    expect(parseQuickAdd('Look for 2 apples', ctx)).toMatchObject({ content: 'Look for 2 apples', durationMin: null });
    expect(parseQuickAdd('Wait for 0m', ctx).durationMin).toBe(null);
  });

  it('never throws and never loses text on hostile input', () => {
    for (const t of ['@'.repeat(900), `{${'x'.repeat(900)}}`, 'for '.repeat(200), `${'@a '.repeat(300)}`, '{{{}}}', '@\u202e evil', '@x{y}']) {
      const q = parseQuickAdd(t, ctx);
      expect(q.content.length).toBeGreaterThan(0);
      expect(q.labels.length).toBeLessThanOrEqual(100);
    }
  });
});
