// `npm start` builds once: the stamp logic of scripts/build-stamp.mjs, in plain Node on a made-up project.
import { mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint as print, needsBuild as needs, writeStamp as stamp } from '../../../scripts/build-stamp.mjs';
import { tempDir } from '../../support/db';

function put(root: string, file: string, text: string): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), text);
}

/** A project with sources and a finished build. */
function project(): string {
  const root = tempDir();
  put(root, 'package.json', '{"name":"tidy"}');
  put(root, 'src-main/app/main.ts', 'export const a = 1;\n');
  put(root, 'src-renderer/index.html', '<!doctype html>');
  put(root, 'src-shared/result.ts', 'export type R = 1;\n');
  for (const f of ['out/main/index.js', 'out/renderer/index.html', 'out/cli/tidy.mjs']) put(root, f, '// built');
  return root;
}

describe('the build stamp of npm start', () => {
  it('builds when there is no stamp, then not again until a source changes', () => {
    const root = project();
    expect(needs(root)).toBe('there is no build yet');
    stamp(root);
    expect(needs(root)).toBeNull();
    // A touch that changes nothing (a checkout, an editor saving the same text) does not rebuild.
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src-main/app/main.ts'), later, later);
    expect(needs(root)).toBeNull();
    // Files the build does not read do not count.
    put(root, 'README.md', 'docs');
    put(root, 'test/unit/x.test.ts', 'test');
    put(root, 'src-main/node_modules/x/index.js', 'dep');
    expect(needs(root)).toBeNull();
    put(root, 'src-main/app/main.ts', 'export const a = 2;\n');
    expect(needs(root)).toBe('sources changed since the last build');
    stamp(root);
    expect(needs(root)).toBeNull();
  });

  it('rebuilds for a new, removed or renamed source, a changed build config or dependency list', () => {
    const root = project();
    stamp(root);
    const base = print(root);
    put(root, 'src-preload/index.ts', 'x');
    expect(needs(root)).toBe('sources changed since the last build');
    rmSync(join(root, 'src-preload'), { recursive: true });
    expect(print(root)).toBe(base);
    rmSync(join(root, 'src-shared/result.ts'));
    put(root, 'src-shared/result2.ts', 'export type R = 1;\n');
    expect(print(root)).not.toBe(base);
    rmSync(join(root, 'src-shared/result2.ts'));
    put(root, 'src-shared/result.ts', 'export type R = 1;\n');
    expect(print(root)).toBe(base);
    put(root, 'package-lock.json', '{}');
    expect(needs(root)).toBe('sources changed since the last build');
    stamp(root);
    put(root, 'electron.vite.config.ts', 'export default {}');
    expect(needs(root)).toBe('sources changed since the last build');
  });

  it('rebuilds with --rebuild, when an output is missing, or when the stamp is damaged', () => {
    const root = project();
    stamp(root);
    expect(needs(root, { rebuild: true })).toBe('--rebuild asked for it');
    rmSync(join(root, 'out/renderer/index.html'));
    expect(needs(root)).toBe('out/renderer/index.html is missing');
    put(root, 'out/renderer/index.html', 'built');
    for (const damaged of ['', 'not json', '{"inputs": 5}', 'null', '[]', '{'.repeat(10_000)]) {
      put(root, 'out/.build-stamp', damaged);
      expect(needs(root)).toBe('the build stamp is unreadable');
    }
  });

  it('stamps the inputs as they were when the build started: a source saved during the build still rebuilds', () => {
    const root = project();
    const before = print(root);
    put(root, 'src-main/app/main.ts', 'export const a = 3;\n'); // saved while the build ran
    stamp(root, before);
    expect(needs(root)).toBe('sources changed since the last build');
  });
});
