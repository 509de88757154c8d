// The plan card's markup as a screen reader meets it: the overload line, each block a list item named by
// its task with labelled Start/End fields and Pin/Drop toggles, what did not fit with its reason, and a
// hostile task name shown as text.
import { renderToStaticMarkup } from 'react-dom/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PlanCard } from '../../../../../src-renderer/features/plan/PlanCard';
import { rowsFromPlan } from '../../../../../src-renderer/features/plan/model';
import type { ShownPlan } from '../../../../../src-shared/plan';
import { setDisplayLocale } from '../../../../../src-renderer/lib/when';

const PLAN: ShownPlan = {
  from: '2035-03-05T00:00:00Z',
  to: '2035-03-06T00:00:00Z',
  blocks: [
    { task_id: 't1', task: 'Write <script>alert(1)</script> report', start: '2035-03-05T09:00:00Z', end: '2035-03-05T10:00:00Z', reason: 'p1, deadline 2035-03-08; first free 8 h after 09:00' },
    { task_id: 't2', task: 'Call the bank', start: '2035-03-05T10:10:00Z', end: '2035-03-05T10:40:00Z', reason: 'pinned', pinned: true, late: true },
  ],
  unplaced: [{ task_id: 't3', task: 'Taxes', reason: 'needs 3 h, 1 h 20 free before its deadline 2035-03-09' }],
  summary: { neededMin: 270, freeMin: 100, unplacedMin: 180, overloaded: true, text: '4 h 30 of tasks, 1 h 40 free' },
};

describe('the plan card', () => {
  beforeAll(() => setDisplayLocale('en-US'));
  afterAll(() => setDisplayLocale(undefined));
  it('shows every block as an editable row, what did not fit, and the overload line', () => {
    const rows = rowsFromPlan(PLAN);
    const html = renderToStaticMarkup(<PlanCard plan={PLAN} rows={rows} onRows={() => undefined} disabled={false} problem={null} />);
    expect(html).toContain('class="plan-summary overloaded"');
    expect(html).toContain('4 h 30 of tasks, 1 h 40 free');
    expect(html).toContain('aria-label="Start of Call the bank"');
    expect(html).toContain('aria-label="End of Call the bank"');
    expect(html).toMatch(/aria-pressed="true" aria-label="Pin Call the bank"/);
    expect(html).toMatch(/aria-pressed="false" aria-label="Drop Call the bank"/);
    expect(html).toContain('>late<');
    expect(html).toContain('aria-label="Not placed"');
    // A reason's machine dates and times in the locale (en-US here), never ISO or a fixed 24-hour clock.
    expect(html).toMatch(/needs 3 h, 1 h 20 free before its deadline Fri, Mar 9(, 2035)?</);
    expect(html).toMatch(/p1, deadline Thu, Mar 8(, 2035)?; first free 8 h after 9:00 AM</);
    expect(html).not.toContain('<script>');
    expect(html).toContain('Write &lt;script&gt;alert(1)&lt;/script&gt; report');
    expect(html).not.toContain('role="alert"');
    // The timeline: one image named by the whole plan in words, the hostile name as text there too.
    expect(html).toMatch(/class="plan-timeline" role="img" aria-label="Timeline of the plan: [^"]*Write &lt;script&gt;alert\(1\)&lt;\/script&gt; report \d{1,2}:\d\d [AP]M–\d{1,2}:\d\d [AP]M, Call the bank [^"]*\(pinned\) \(late\)"/);
    // its hour marks in the locale's clock (en-US: "9 AM"), never a bare 24-hour "09"
    expect(html).toMatch(/class="plan-tl-axis"><span style="left:0%">\d{1,2} [AP]M<\/span>/);
    expect(html).toContain('plan-tl-block pinned late');
  });

  it('says what to fix, and greys a dropped row out', () => {
    const rows = rowsFromPlan(PLAN).map((r, i) => (i === 1 ? { ...r, dropped: true } : r));
    const html = renderToStaticMarkup(<PlanCard plan={{ ...PLAN, unplaced: [] }} rows={rows} onRows={() => undefined} disabled={false} problem="Call the bank: the end must be after the start" />);
    expect(html).toContain('role="alert"');
    expect(html).toContain('Call the bank: the end must be after the start');
    expect(html).toContain('plan-block dropped pinned');
    expect(html).toMatch(/aria-pressed="true" aria-label="Drop Call the bank"[^>]*>Keep</);
    expect(html).not.toContain('Not placed');
  });
});
