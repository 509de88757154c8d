// docs/ARCHITECTURE.md names files in backticks (its recipes count them): each name must be a file or
// folder of the repository, so a move or a split that forgets the doc fails here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const REPO = join(import.meta.dirname, '../../..');

/** Backticked words that look like paths but name no file of the repository, each with why. */
const NOT_FILES: Record<string, string> = {
  'ChangeSet.insert/update': 'two methods',
  'elicitation/create': 'an MCP method',
  'tidy-sync.json': 'written into the sync folder at run time',
  'packages/crdt/src/crdt/timestamp.ts': "Actual Budget's source, cited",
};

/** The folders whose files the doc names. */
const FOLDERS = ['src-main', 'src-renderer', 'src-shared', 'src-preload', 'test', 'docs', 'scripts', 'bench', 'bin'];

/** Every file and folder at the top and under FOLDERS, as repository paths. */
function repositoryPaths(): Set<string> {
  const out = new Set<string>(readdirSync(REPO));
  const walk = (dir: string) => {
    for (const e of readdirSync(join(REPO, dir), { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.')) continue;
      out.add(`${dir}/${e.name}`);
      if (e.isDirectory()) walk(`${dir}/${e.name}`);
    }
  };
  for (const f of FOLDERS) if (existsSync(join(REPO, f))) walk(f);
  return out;
}

/** The backticked words of the doc that look like a path: a file name with an extension, or words joined by slashes. */
function namedPaths(doc: string): string[] {
  const words = [...doc.matchAll(/`([^`\s]+)`/g)].map((m) => m[1]!);
  return [...new Set(words)].filter((w) => !/[{}*<>:()[\]]/.test(w) && (/\.(ts|tsx|mjs|js|json|md|css|sh)$/.test(w) || /^[\w.-]+(\/[\w.-]+)+\/?$/.test(w)));
}

describe('docs/ARCHITECTURE.md names real files', () => {
  it('finds each backticked path, whole or by its end, in the repository', () => {
    const paths = repositoryPaths();
    const found = (word: string) => {
      const w = word.replace(/\/$/, '');
      return paths.has(w) || [...paths].some((p) => p.endsWith(`/${w}`)) || existsSync(join(REPO, w));
    };
    const named = namedPaths(readFileSync(join(REPO, 'docs/ARCHITECTURE.md'), 'utf8'));
    expect(named.length).toBeGreaterThan(100);
    expect(named.filter((w) => !(w in NOT_FILES) && !found(w))).toEqual([]);
  });

  it('reads paths out of backticks, not code or globs', () => {
    expect(namedPaths('`src-main/core/domain/tasks.ts` and `textsize.ts`, `calendar/{ics,free}.ts`, `tidy add`, `store/migrations/`, `f(x)`')).toEqual([
      'src-main/core/domain/tasks.ts',
      'textsize.ts',
      'store/migrations/',
    ]);
  });
});
