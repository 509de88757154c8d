// The CLI's task references, in this process (test/support/cli-inproc.ts).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tidyIn } from '../../support/cli-inproc';
import { tempDir } from '../../support/db';

const tasksOf = async (db: string) => JSON.parse((await tidyIn(db, ['tasks', '--all', '--json'])).stdout) as { id: string; content: string; status: string; project: string }[];

describe('<TASK> is an id or unambiguous text', { timeout: 240_000 }, () => {
  it('finds a task by its text, lists the candidates with ids when several match (exit 2), and by id as before', async () => {
    const db = join(tempDir(), 'tidy.db');
    for (const t of ['Buy milk', 'Buy oat milk', 'Call mum', 'Pay rent']) expect((await tidyIn(db, ['add', t])).code).toBe(0);

    // Exact text wins over a part of another task's text; case and spacing do not matter.
    expect(await tidyIn(db, ['done', 'buy  MILK'])).toMatchObject({ code: 0, stdout: expect.stringContaining("Completed 'Buy milk'") });
    // Part of the text, one match.
    expect((await tidyIn(db, ['edit', 'mum', '--content', 'Call mum back'])).code).toBe(0);
    // A done task is found for reopen.
    expect((await tidyIn(db, ['reopen', 'Buy milk'])).code).toBe(0);

    const ambiguous = await tidyIn(db, ['archive', 'milk']);
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toBe('tidy: "milk" matches 2 tasks: t1 "Buy milk" [Inbox], t2 "Buy oat milk" [Inbox] — give the id, or more of the text\n');
    expect((await tidyIn(db, ['done', 't2'])).code).toBe(0);

    const missing = await tidyIn(db, ['done', 'walk the dog']);
    expect(missing).toMatchObject({ code: 1, stderr: 'tidy: no task with id or text "walk the dog" — run `tidy tasks --all` or `tidy search <words>` to find it\n' });
    expect((await tasksOf(db)).map((t) => [t.id, t.status])).toEqual([
      ['t1', 'open'],
      ['t2', 'done'],
      ['t3', 'open'],
      ['t4', 'open'],
    ]);
  });

  it('refuses hostile refs in one line and changes nothing: empty, huge, control characters, SQL', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect((await tidyIn(db, ['add', 'Buy milk'])).code).toBe(0);
    expect(await tidyIn(db, ['done', '   '])).toMatchObject({ code: 2, stderr: 'tidy: say which task: an id or some of its text — e.g. tidy done t12, tidy done "Buy milk"\n' });
    const huge = await tidyIn(db, ['done', 'x'.repeat(5000)]);
    expect(huge.code).toBe(2);
    expect(huge.stderr.split('\n')).toHaveLength(2);
    const escape = await tidyIn(db, ['done', '\u001b]0;owned\u0007']);
    expect(escape.code).toBe(1);
    expect(escape.stderr).not.toContain('\u001b');
    expect((await tidyIn(db, ['done', "' OR 1=1 --"])).code).toBe(1);
    expect((await tasksOf(db)).map((t) => t.status)).toEqual(['open']);
  });

  it('redo of one move after undoing the whole request: the refusal names what to undo, and --cascade does it', async () => {
    const db = join(tempDir(), 'tidy.db');
    expect((await tidyIn(db, ['add', 'Buy milk'])).code).toBe(0); // a1
    expect((await tidyIn(db, ['project', 'add', 'Family'])).code).toBe(0); // a2
    expect((await tidyIn(db, ['move', 'Buy milk', 'Family'])).code).toBe(0); // a3
    expect((await tidyIn(db, ['undo', 'a3'])).code).toBe(0); // a4 undoes the move
    expect((await tidyIn(db, ['undo', 'a2'])).code).toBe(0); // a5 undoes the project
    const blocked = (await tidyIn(db, ['undo', 'a4'])); // redo the move
    expect(blocked).toMatchObject({ code: 1, stderr: expect.stringContaining('undo a5 first, or undo a4 with --cascade') });
    const cascaded = await tidyIn(db, ['undo', 'a4', '--cascade']);
    expect(cascaded.code).toBe(0);
    expect(cascaded.stdout).toContain("Undid a5: Undid: Created project 'Family'");
    expect(await tasksOf(db)).toMatchObject([{ content: 'Buy milk', project: 'Family' }]);
  });
});
