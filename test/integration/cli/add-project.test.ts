// `tidy add` with an unknown #Project: a typo gets "did you mean", --create-project creates the project and
// files the task in one request that `tidy undo --run` takes back whole.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tidy } from '../../support/cli';
import { tempDir } from '../../support/db';

describe('tidy add #Project that does not exist', () => {
  it('suggests the nearest name, creates the project on --create-project, and undoes both as one request', () => {
    const db = join(tempDir(), 'tidy.db');
    expect(tidy(db, ['project', 'add', 'Family']).code).toBe(0);
    const typo = tidy(db, ['add', 'Call grandma #Famly']);
    expect(typo.code).toBe(0);
    expect(typo.stderr).toContain('did you mean Family?');
    expect(typo.stdout).toContain('"Call grandma #Famly" to Inbox');

    const made = tidy(db, ['add', 'Book the hall #Reunion', '--create-project']);
    expect(made.code).toBe(0);
    expect(made.stderr).toBe('');
    const lines = made.stdout.trim().split('\n');
    expect(lines[0]).toBe('Created project "Reunion"');
    expect(lines[1]).toMatch(/^Added t\d+ "Book the hall" to Reunion — undo: tidy undo --run (u\d+)$/);
    const run = /--run (u\d+)$/.exec(lines[1]!)![1]!;
    expect(JSON.parse(tidy(db, ['projects', '--json']).stdout).map((p: { name: string }) => p.name)).toEqual(['Inbox', 'Family', 'Reunion']);

    expect(tidy(db, ['undo', '--run', run]).code).toBe(0);
    expect(JSON.parse(tidy(db, ['projects', '--json']).stdout).map((p: { name: string }) => p.name)).toEqual(['Inbox', 'Family']);
    expect(JSON.parse(tidy(db, ['tasks', '--json']).stdout).map((t: { content: string }) => t.content)).toEqual(['Call grandma #Famly']);
  });
});
