// A task, project or item of only invisible characters (a zero-width space, joiners, BOM, bidi marks,
// a Hangul filler) is refused by the one check every text goes through (core/domain/text.ts), whatever
// the path in: the domain, the CLI, the window (through the same domain calls).
import { describe, expect, it } from 'vitest';
import { addTask, createProject, listTasks } from '../../../src-main/core';
import { hasVisibleText } from '../../../src-main/core/domain/text';
import { tidy } from '../../support/cli';
import { tempDb, tempDir, userCtx } from '../../support/db';
import { join } from 'node:path';

const INVISIBLE = ['\u200b', '\u200b\u200c\u200d', '\u2060\ufeff', '\u202e\u200f', '\u00ad', '\u3164', ' \u200b\t', '\u0301', '\ufe0f'];

describe('text of only invisible characters', () => {
  it('is refused for tasks and projects, and nothing is written', () => {
    const { db } = tempDb();
    for (const text of INVISIBLE) {
      const t = addTask(db, userCtx(db), { content: text });
      expect(t).toMatchObject({ ok: false, error: expect.stringMatching(/task (is empty|has only invisible characters)/) });
      const p = createProject(db, userCtx(db), { name: text });
      expect(p).toMatchObject({ ok: false, error: expect.stringMatching(/project name (is empty|has only invisible characters)/) });
    }
    expect(listTasks(db, {}).tasks).toEqual([]);
  });

  it('keeps text that shows, invisible characters and all', () => {
    for (const text of ['x\u200b', '😀', 'नमस्ते', 'e\u0301', '\u200bBuy milk']) expect(hasVisibleText(text)).toBe(true);
    const { db } = tempDb();
    expect(addTask(db, userCtx(db), { content: 'Buy\u200b milk' }).ok).toBe(true);
  });

  it('is refused by tidy add in one line', () => {
    const r = tidy(join(tempDir(), 'tidy.db'), ['add', '\u200b']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^tidy: task has only invisible characters/);
  }, 120_000);
});
