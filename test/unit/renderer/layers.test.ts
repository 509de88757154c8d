// The renderer's layers (docs/ARCHITECTURE.md, "The renderer by feature"): imports run downward only,
//   main.tsx → app → features → ui → store (core) → lib → api,
// a feature is entered only through its index.ts (its views and all) or its slice.ts (its store part,
// which imports no view, so the store runs without a page), features import each other without a circle, and no
// two files import each other round a circle. The check reads the sources (imports, re-exports, type
// imports and module augmentations alike) and is proved on planted mistakes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../support/cli';

const ROOT = join(REPO, 'src-renderer');

/** Files by their path under src-renderer ('features/tasks/slice.ts'), with their source. */
type Sources = Map<string, string>;

function readSources(): Sources {
  const out: Sources = new Map();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name)) out.set(relative(ROOT, p).split('\\').join('/'), readFileSync(p, 'utf8'));
    }
  };
  walk(ROOT);
  return out;
}

const SPECIFIERS = [
  /\b(?:import|export)\s[^'";]*?\bfrom\s*['"]([^'"]+)['"]/g,
  /\bimport\s*\(?\s*['"]([^'"]+)['"]/g,
  /\bdeclare\s+module\s+['"]([^'"]+)['"]/g,
];

/** The files of `sources` that `file` imports (relative imports of .ts/.tsx files under src-renderer only). */
function importsOf(sources: Sources, file: string): string[] {
  // Comments may show an import as an example; only code counts.
  const text = sources.get(file)!.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  const found = new Set<string>();
  for (const re of SPECIFIERS)
    for (const m of text.matchAll(re)) {
      const spec = m[1]!;
      if (!spec.startsWith('.')) continue;
      const base = posix.normalize(posix.join(posix.dirname(file), spec));
      const target = [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`].find((c) => sources.has(c));
      if (target) found.add(target);
    }
  return [...found];
}

/** Higher imports lower; equal only inside one layer's own folder. Null: not placed (nothing may import it). */
function rank(file: string): number | null {
  if (file === 'main.tsx') return 7;
  const top = file.split('/')[0];
  const ranks: Record<string, number> = { app: 6, features: 5, ui: 4, store: 3, lib: 2, 'api.ts': 1 };
  return ranks[top!] ?? null;
}

const featureOf = (file: string): string | null => (file.startsWith('features/') ? file.split('/')[1]! : null);

/** Every import that breaks the layers, as 'from -> to: why'. */
function layerProblems(sources: Sources): string[] {
  const problems: string[] = [];
  const featureEdges = new Map<string, Set<string>>();
  const edges = new Map<string, string[]>();
  for (const file of sources.keys()) {
    const targets = importsOf(sources, file);
    edges.set(file, targets);
    for (const to of targets) {
      const [rf, rt] = [rank(file), rank(to)];
      if (rf === null || rt === null) {
        problems.push(`${file} -> ${to}: not in a layer (main.tsx, app, features, ui, store, lib, api.ts)`);
        continue;
      }
      if (rt > rf) {
        problems.push(`${file} -> ${to}: runs back up`);
        continue;
      }
      const [ff, ft] = [featureOf(file), featureOf(to)];
      if (ft !== null && ff !== ft) {
        if (!/^features\/[^/]+\/(index|slice)\.tsx?$/.test(to)) problems.push(`${file} -> ${to}: enters the feature ${ft} past its index.ts and slice.ts`);
        if (ff !== null) {
          if (!featureEdges.has(ff)) featureEdges.set(ff, new Set());
          featureEdges.get(ff)!.add(ft);
        }
      }
    }
  }
  // A slice and what it imports run in plain Node (the store's unit tests): no view, no page's bridge.
  for (const slice of [...sources.keys()].filter((f) => /^features\/[^/]+\/slice\.ts$/.test(f))) {
    const seen = new Set<string>([slice]);
    const todo = [slice];
    while (todo.length > 0)
      for (const to of edges.get(todo.pop()!) ?? [])
        if (!seen.has(to)) {
          seen.add(to);
          todo.push(to);
        }
    for (const f of seen) if (f.endsWith('.tsx') || f === 'api.ts') problems.push(`${slice} reaches ${f}: a slice imports no view and not the page's bridge`);
  }
  for (const cycle of cycles(new Map([...edges].map(([k, v]) => [k, new Set(v)])))) problems.push(`circle of files: ${cycle.join(' -> ')}`);
  for (const cycle of cycles(featureEdges)) problems.push(`circle of features: ${cycle.join(' -> ')}`);
  return problems;
}

/** One circle per strongly connected group of more than one node (or a node importing itself). */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || graph.get(v)?.has(v)) out.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

const plant = (sources: Sources, file: string, text: string): Sources => new Map([...sources, [file, text]]);

describe('the renderer layers', () => {
  const sources = readSources();

  it('reads the whole renderer', () => {
    expect(sources.size).toBeGreaterThan(60);
    expect(importsOf(sources, 'app/store.ts')).toContain('features/tasks/slice.ts');
    expect(importsOf(sources, 'features/tasks/slice.ts')).toContain('store/types.ts');
  });

  it('has no import that runs back up, no feature entered past its index, no circle', () => {
    expect(layerProblems(sources)).toEqual([]);
  });

  it('catches a planted upward import', () => {
    const upward = plant(sources, 'ui/Planted.tsx', "import { TaskList } from '../features/tasks/TaskList';\nexport const X = TaskList;\n");
    expect(layerProblems(upward)).toContain('ui/Planted.tsx -> features/tasks/TaskList.tsx: runs back up');
    const typeOnly = plant(sources, 'lib/planted.ts', "import type { AppState } from '../store/types';\nexport type X = AppState;\n");
    expect(layerProblems(typeOnly)).toContain('lib/planted.ts -> store/types.ts: runs back up');
    const storeToFeature = plant(sources, 'store/planted.ts', "export { createTasksSlice } from '../features/tasks';\n");
    expect(layerProblems(storeToFeature)).toContain('store/planted.ts -> features/tasks/index.ts: runs back up');
  });

  it('catches a feature entered past its index.ts, and a circle of features', () => {
    const deep = plant(sources, 'features/search/planted.ts', "import { TASK_PAGE } from '../tasks/data-slice';\nexport const X = TASK_PAGE;\n");
    expect(layerProblems(deep)).toContain('features/search/planted.ts -> features/tasks/data-slice.ts: enters the feature tasks past its index.ts and slice.ts');
    const circle = plant(sources, 'features/actions/planted.ts', "export { CaptureView } from '../capture';\n");
    expect(layerProblems(circle).some((p) => p.startsWith('circle of features:') && p.includes('actions') && p.includes('capture'))).toBe(true);
  });

  it('catches a slice that reaches a view', () => {
    const viewInSlice = plant(sources, 'features/capture/slice.ts', `${sources.get('features/capture/slice.ts')}\nexport { ChatView } from '../chat';\n`);
    expect(layerProblems(viewInSlice)).toContain("features/capture/slice.ts reaches features/chat/ChatView.tsx: a slice imports no view and not the page's bridge");
  });

  it('catches a circle of files inside one layer', () => {
    const a = plant(sources, 'lib/planted-a.ts', "import { b } from './planted-b';\nexport const a = b;\n");
    const both = plant(a, 'lib/planted-b.ts', "import { a } from './planted-a';\nexport const b = a;\n");
    expect(layerProblems(both)).toContain('circle of files: lib/planted-a.ts -> lib/planted-b.ts');
  });

  it('places every file in a layer', () => {
    const stray = plant(sources, 'views/Old.tsx', "import { Icon } from '../ui/Icon';\nexport const X = Icon;\n");
    expect(layerProblems(stray)).toContain('views/Old.tsx -> ui/Icon.tsx: not in a layer (main.tsx, app, features, ui, store, lib, api.ts)');
  });
});
