// src-main/core imports downward only: the layer order is the list in docs/ARCHITECTURE.md ("Layers"),
// the graph is drawn from the sources' import lines, and an arrow that runs back up fails the suite.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../support/cli';

const CORE = join(REPO, 'src-main/core');

/** The layers, top first: each a list of units (`agent/` a folder, `fail.ts` a file of the core's root). */
export function readLayers(markdown: string): string[][] {
  const block = /<!-- core-layers -->([\s\S]*?)<!-- \/core-layers -->/.exec(markdown);
  if (!block) throw new Error('docs/ARCHITECTURE.md has no <!-- core-layers --> list');
  return block[1]!
    .split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => [...l.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
}

/** The unit a core-relative path belongs to: `agent/` for agent/loop.ts, `fail.ts` for fail.ts. */
export function unitOf(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? path : `${path.slice(0, slash + 1)}`;
}

/** Every import (static, dynamic, type or re-export) of a relative module in a source text. */
export function relativeImports(source: string): string[] {
  return [...source.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']*)'/g)].map((m) => m[1]!);
}

export interface Arrow {
  from: string;
  to: string;
}

/** The arrows between units of the core: file (core-relative) → the units it imports inside the core. */
export function coreArrows(files: { path: string; source: string }[], folders: ReadonlySet<string> = new Set()): Arrow[] {
  const arrows: Arrow[] = [];
  for (const f of files) {
    for (const spec of relativeImports(f.source)) {
      const target = relative('/core', resolve('/core', dirname(f.path), spec));
      if (target.startsWith('..')) continue; // src-shared, the sandbox: other rules (eslint) cover them
      // './agent' is the folder's index; './fail' is the file fail.ts
      const to = target.includes('/') || folders.has(target) ? unitOf(`${target}/`) : `${target.replace(/\.ts$/, '')}.ts`;
      arrows.push({ from: f.path, to });
    }
  }
  return arrows;
}

/** The arrows that run back up: from a unit to one on a higher layer (or to a unit the order does not name). */
export function upwardArrows(arrows: Arrow[], layers: string[][]): string[] {
  const rank = new Map<string, number>();
  layers.forEach((units, i) => units.forEach((u) => rank.set(u, i)));
  const bad: string[] = [];
  for (const a of arrows) {
    const from = rank.get(unitOf(a.from));
    const to = rank.get(a.to);
    if (from === undefined) bad.push(`${a.from}: its place (${unitOf(a.from)}) is not in the layer list`);
    else if (to === undefined) bad.push(`${a.from} → ${a.to}: not in the layer list`);
    else if (to < from) bad.push(`${a.from} → ${a.to}`);
  }
  return bad;
}

function coreFiles(): { path: string; source: string }[] {
  return (readdirSync(CORE, { recursive: true }) as string[])
    .filter((p) => p.endsWith('.ts'))
    .map((p) => ({ path: p.split('\\').join('/'), source: readFileSync(join(CORE, p), 'utf8') }));
}

const layers = readLayers(readFileSync(join(REPO, 'docs/ARCHITECTURE.md'), 'utf8'));

describe('src-main/core imports downward only', () => {
  it('has no import that runs back up the layers of docs/ARCHITECTURE.md', () => {
    const files = coreFiles();
    const arrows = coreArrows(files, new Set(files.filter((f) => f.path.includes('/')).map((f) => f.path.split('/')[0]!)));
    expect(arrows.length).toBeGreaterThan(100);
    expect(upwardArrows(arrows, layers)).toEqual([]);
  });

  it('names every file and folder of the core in the layer list', () => {
    const units = new Set(coreFiles().map((f) => unitOf(f.path)));
    expect([...units].filter((u) => !layers.flat().includes(u))).toEqual([]);
  });

  it('catches a planted upward import, of any spelling', () => {
    const planted = [
      { path: 'actions/undo.ts', source: "import { attempt, fail } from '../domain/fail';\n" },
      { path: 'store/db.ts', source: "import type { Tool } from '../tools/tool';\n" },
      { path: 'domain/search.ts', source: "export { ftsQuery } from '../tools/search';\n" },
      { path: 'fail.ts', source: "const m = await import('./agent/loop');\n" },
      { path: 'tools/invoke.ts', source: "import { x } from '../domain/tasks';\nimport { y } from './tool';\nimport { z } from '../../../src-shared/ipc';\n" },
    ];
    expect(upwardArrows(coreArrows(planted), layers)).toEqual([
      'actions/undo.ts → domain/',
      'store/db.ts → tools/',
      'domain/search.ts → tools/',
      'fail.ts → agent/',
    ]);
  });

  it('reads the layer list and refuses a document without one', () => {
    expect(layers[layers.length - 1]).toContain('store/');
    expect(layers.findIndex((l) => l.includes('domain/'))).toBeLessThan(layers.findIndex((l) => l.includes('actions/')));
    expect(() => readLayers('# no list here')).toThrow(/core-layers/);
  });
});
