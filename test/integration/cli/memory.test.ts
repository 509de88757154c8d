// `tidy memory list|add|edit|forget [--json]` and `tidy ask --incognito`, as a user runs them: the real CLI process, a temp database.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tidy } from '../../support/cli';
import { tempDir } from '../../support/db';

describe('tidy memory', () => {
  it('adds, lists, edits, forgets by hand; each change undoable; --json everywhere', { timeout: 240_000 }, () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['memory', 'list']).stdout).toContain('No memories yet');
    const added = tidy(db, ['memory', 'add', 'groceries', 'always', 'go', 'to', 'Errands']);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Remembered 'groceries always go to Errands' \(y1; undo with: tidy undo a\d+\)/);
    expect(tidy(db, ['project', 'add', 'Errands']).code).toBe(0);
    const scoped = tidy(db, ['memory', 'add', 'use the shop on Main Street', '--project', 'errands', '--json']);
    expect(JSON.parse(scoped.stdout)).toMatchObject({ id: 'y2', text: 'use the shop on Main Street', project: 'Errands', conversationId: null, actionId: expect.any(String) });
    expect(tidy(db, ['memory', 'list']).stdout).toBe(
      "y1     groceries always go to Errands  [everywhere, by you]\ny2     use the shop on Main Street  [for Errands, by you]\n",
    );
    expect(tidy(db, ['memory', 'edit', 'y1', 'groceries go to Errands']).code).toBe(0);
    const forgot = tidy(db, ['memory', 'forget', 'y2', '--json']);
    expect(JSON.parse(forgot.stdout)).toMatchObject({ id: 'y2', archivedAt: expect.any(String) });
    const list = JSON.parse(tidy(db, ['memory', 'list', '--json']).stdout) as { id: string; text: string }[];
    expect(list.map((m) => [m.id, m.text])).toEqual([['y1', 'groceries go to Errands']]);
    expect(tidy(db, ['memory', 'list', '--all']).stdout).toContain('[forgotten]');
    // Undo brings the forgotten one back.
    expect(tidy(db, ['undo', '--last']).code).toBe(0);
    expect((JSON.parse(tidy(db, ['memory', 'list', '--json']).stdout) as unknown[]).length).toBe(2);

    // Refusals: one line, exit 1 (a domain refusal) or 2 (usage).
    const long = tidy(db, ['memory', 'add', 'x'.repeat(501)]);
    expect(long.code).toBe(1);
    expect(long.stderr).toBe('tidy: the memory is 501 characters long — keep it to one short fact of at most 500 characters\n');
    expect(tidy(db, ['memory', 'forget', 'y99']).stderr).toContain("no memory with id 'y99'");
    expect(tidy(db, ['memory', 'edit', 'y1']).code).toBe(2);
    expect(tidy(db, ['memory', 'add']).code).toBe(2);
    // Hostile text is printed as text: terminal controls escaped.
    const evil = tidy(db, ['memory', 'add', 'evil \u001b[2J text']);
    expect(evil.code).toBe(0);
    expect(tidy(db, ['memory', 'list']).stdout).toContain('evil \\u001b[2J text');
  });

  it('ask --incognito refuses to continue a conversation', () => {
    const db = join(tempDir(), 'tidy.db');
    const r = tidy(db, ['ask', '--incognito', '--continue', 'hello']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--incognito starts a new conversation');
  });
});
