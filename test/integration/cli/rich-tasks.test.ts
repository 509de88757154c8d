// `tidy add/edit/tasks/filter` with the rich fields, as a user runs them: the CLI in this process (test/support/cli-inproc.ts), a temp database.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tidyIn } from '../../support/cli-inproc';
import { tempDir } from '../../support/db';

describe('tidy CLI: rich tasks', () => {
  it('adds with @labels, {deadline}, for 45m and flags; edits; filters; saves filters', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect((await tidyIn(db, ['project', 'add', 'Work'])).code).toBe(0);
    expect((await tidyIn(db, ['section', 'add', 'Work', 'Next', 'week'])).code).toBe(0);
    const added = await tidyIn(db, ['add', 'Write report @Work-Stuff @urgent {2035-04-03} for 1h30m #Work', '--json']);
    expect(added.code).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ content: 'Write report', project: 'Work', labels: ['urgent', 'Work-Stuff'], deadline: '2035-04-03', durationMin: 90 });
    const sub = await tidyIn(db, ['add', 'Outline', '--parent', 't1', '--label', 'home', 'urgent', '--duration', '45m', '--description', 'First **draft**', '--json']);
    expect(sub.code).toBe(0);
    expect(JSON.parse(sub.stdout)).toMatchObject({ parentId: 't1', project: 'Work', labels: ['home', 'urgent'], durationMin: 45, description: 'First **draft**' });
    expect((await tidyIn(db, ['edit', 't1', '--section', 'next week', '--deadline', 'none'])).code).toBe(0);
    expect((await tidyIn(db, ['comment', 't1', 'Asked', 'Bob'])).code).toBe(0);

    const tasks = JSON.parse((await tidyIn(db, ['tasks', '--json'])).stdout) as Record<string, unknown>[];
    expect(tasks[0]).toEqual({
      id: 't1', content: 'Write report', projectId: 'p1', project: 'Work', status: 'open', priority: 4, due: null,
      description: null, parentId: null, section: 'Next week', labels: ['urgent', 'Work-Stuff'], deadline: null, durationMin: 90,
    });
    const ids = async (args: string[]) => (JSON.parse((await tidyIn(db, ['tasks', ...args, '--json'])).stdout) as { id: string }[]).map((t) => t.id);
    expect(await ids(['--label', 'HOME'])).toEqual(['t2']);
    expect(await ids(['--label', 'urgent', '--filter', '!subtask'])).toEqual(['t1']);
    expect(await ids(['--filter', '/next week & search: draft'])).toEqual(['t2']);
    expect(await ids(['--project', 'Work', '--filter', '@urgent'])).toEqual(['t1', 't2']);
    const bad = (await tidyIn(db, ['tasks', '--filter', 'p1 & (today']));
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/expected & or \| or a closing \) at position 12/);

    expect((await tidyIn(db, ['filter', 'save', 'Deep work', '@urgent & !subtask'])).code).toBe(0);
    expect(JSON.parse((await tidyIn(db, ['filter', 'list', '--json'])).stdout)).toEqual([{ id: 'f1', name: 'Deep work', query: '@urgent & !subtask' }]);
    expect(await ids(['--saved', 'deep work'])).toEqual(['t1']);
    expect((await tidyIn(db, ['filter', 'save', 'Broken', 'p1 &'])).code).not.toBe(0);
    expect((await tidyIn(db, ['filter', 'delete', 'Deep work'])).code).toBe(0);
    expect((await tidyIn(db, ['undo', '--last'])).code).toBe(0);
    expect(await ids(['--saved', 'Deep work'])).toEqual(['t1']);
  });
});
