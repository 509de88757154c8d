// `tidy plan` as a user runs it: the real CLI, a temp database, a range in 2035 (always ahead), UTC, and the
// terminal's locale en-GB (24-hour clock) unless a run says otherwise.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tidy } from '../../support/cli';
import { tempDir } from '../../support/db';

const env = { TZ: 'UTC', LC_ALL: 'en_GB.UTF-8' };
/** Several runs of the real command, on a loaded machine. */
const LONG = 120_000;
const run = (db: string, args: string[], more: Record<string, string> = {}) => tidy(db, args, { env: { ...env, ...more } });

describe('tidy plan', () => {
  it('prints the plan, applies it with --yes as one request, and undoes it in one step', () => {
    const db = join(tempDir(), 'tidy.db');
    expect(run(db, ['add', 'Write report p1 for 1h30m {2035-01-10}']).code).toBe(0);
    expect(run(db, ['add', 'Review slides for 1h']).code).toBe(0);

    // No terminal, no --yes: the plan is printed, nothing is written.
    const preview = run(db, ['plan', '2035-01-08..2035-01-08', '--filter', 'search: report | search: slides']);
    expect(preview.code).toBe(0);
    const lines = preview.stdout.split('\n').filter(Boolean);
    // The day in the terminal's locale (the year shown while it is not this year's), never ISO.
    expect(lines[0]).toMatch(/^Mon,? 8 Jan(?: 2035)?$/);
    // The reason's deadline and times in the locale too (the year while it is not this year's).
    expect(lines.slice(1)).toEqual([
      expect.stringMatching(/^ {2}09:00–10:30 {2}Write report \(t1\) — p1, deadline Wed,? 10 Jan(?: 2035)?; first free 8 h after 09:00$/),
      '  10:35–11:35  Review slides (t2) — p4; first free 6 h 25 after 10:35',
      '2 h 30 of tasks, 8 h free',
    ]);
    expect(preview.stderr).toContain('not applied');
    // An en-US terminal reads the same plan on a 12-hour clock; the task's words stay as written.
    const us = run(db, ['plan', '2035-01-08..2035-01-08', '--filter', 'search: report | search: slides'], { LC_ALL: 'en_US.UTF-8' }).stdout.split('\n');
    expect(us[0]).toMatch(/^Mon, Jan 8(?:, 2035)?$/);
    expect(us[1]).toMatch(/^ {2}9:00 AM–10:30 AM {2}Write report \(t1\) — p1, deadline Wed, Jan 10(?:, 2035)?; first free 8 h after 9:00 AM$/);
    expect(us[2]).toBe('  10:35 AM–11:35 AM  Review slides (t2) — p4; first free 6 h 25 after 10:35 AM');

    const json = run(db, ['plan', '2035-01-08..2035-01-08', '--filter', 'search: report | search: slides', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ blocks: [{ task_id: 't1', start: '2035-01-08T09:00:00+00:00', end: '2035-01-08T10:30:00+00:00' }, { task_id: 't2' }], unplaced: [] });

    const applied = run(db, ['plan', '2035-01-08..2035-01-08', '--filter', 'search: report | search: slides', '--yes']);
    expect(applied.code).toBe(0);
    const undo = /tidy undo --run (u\d+)/.exec(applied.stdout)![1]!;
    const events = JSON.parse(run(db, ['events', '--from', '2035-01-08', '--to', '2035-01-09', '--json']).stdout) as { title: string }[];
    expect(events.map((e) => e.title)).toEqual(['Write report', 'Review slides']);
    expect(run(db, ['undo', '--run', undo]).code).toBe(0);
    expect(JSON.parse(run(db, ['events', '--from', '2035-01-08', '--to', '2035-01-09', '--json']).stdout)).toEqual([]);
  }, LONG);

  it('refuses a malformed range or filter in one line', () => {
    const db = join(tempDir(), 'tidy.db');
    const bad = run(db, ['plan', 'next blue moon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    const filter = run(db, ['plan', 'week', '--filter', '((((']);
    expect(filter.code).toBe(1);
    expect(filter.stderr.trim().split('\n')).toHaveLength(1);
  }, LONG);
});
