// `tidy memory list|add|edit|forget [--json]` and `tidy ask --incognito`, as a user runs them: the CLI in this process (test/support/cli-inproc.ts), a temp database.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tidyIn } from '../../support/cli-inproc';
import { tempDir } from '../../support/db';

describe('tidy memory', () => {
  it('adds, lists, edits, forgets by hand; each change undoable; --json everywhere', { timeout: 240_000 }, async () => {
    const db = join(tempDir(), 'tidy.db');
    expect((await tidyIn(db, ['memory', 'list'])).stdout).toContain('No memories yet');
    const added = await tidyIn(db, ['memory', 'add', 'groceries', 'always', 'go', 'to', 'Errands']);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Remembered 'groceries always go to Errands' \(y1; undo with: tidy undo a\d+\)/);
    expect((await tidyIn(db, ['project', 'add', 'Errands'])).code).toBe(0);
    const scoped = await tidyIn(db, ['memory', 'add', 'use the shop on Main Street', '--project', 'errands', '--json']);
    expect(JSON.parse(scoped.stdout)).toMatchObject({ id: 'y2', text: 'use the shop on Main Street', project: 'Errands', conversationId: null, actionId: expect.any(String) });
    expect((await tidyIn(db, ['memory', 'list'])).stdout).toBe(
      "y1     groceries always go to Errands  [everywhere, by you]\ny2     use the shop on Main Street  [for Errands, by you]\n",
    );
    expect((await tidyIn(db, ['memory', 'edit', 'y1', 'groceries go to Errands'])).code).toBe(0);
    const forgot = await tidyIn(db, ['memory', 'forget', 'y2', '--json']);
    expect(JSON.parse(forgot.stdout)).toMatchObject({ id: 'y2', archivedAt: expect.any(String) });
    const list = JSON.parse((await tidyIn(db, ['memory', 'list', '--json'])).stdout) as { id: string; text: string }[];
    expect(list.map((m) => [m.id, m.text])).toEqual([['y1', 'groceries go to Errands']]);
    expect((await tidyIn(db, ['memory', 'list', '--all'])).stdout).toContain('[forgotten]');
    // Undo brings the forgotten one back.
    expect((await tidyIn(db, ['undo', '--last'])).code).toBe(0);
    expect((JSON.parse((await tidyIn(db, ['memory', 'list', '--json'])).stdout) as unknown[]).length).toBe(2);

    // Refusals: one line, exit 1 (a domain refusal) or 2 (usage).
    const long = await tidyIn(db, ['memory', 'add', 'x'.repeat(501)]);
    expect(long.code).toBe(1);
    expect(long.stderr).toBe('tidy: the memory is 501 characters long — keep it to one short fact of at most 500 characters\n');
    expect((await tidyIn(db, ['memory', 'forget', 'y99'])).stderr).toContain("no memory with id 'y99'");
    expect((await tidyIn(db, ['memory', 'edit', 'y1'])).code).toBe(2);
    expect((await tidyIn(db, ['memory', 'add'])).code).toBe(2);
    // Hostile text is printed as text: terminal controls escaped.
    const evil = await tidyIn(db, ['memory', 'add', 'evil \u001b[2J text']);
    expect(evil.code).toBe(0);
    expect((await tidyIn(db, ['memory', 'list'])).stdout).toContain('evil \\u001b[2J text');
  });

  it('ask --incognito refuses to continue a conversation', async () => {
    const db = join(tempDir(), 'tidy.db');
    const r = await tidyIn(db, ['ask', '--incognito', '--continue', 'hello']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--incognito starts a new conversation');
  });
});
