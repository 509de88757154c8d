// The layer rule (docs/ARCHITECTURE.md, "Layers") is enforced by eslint; these tests prove the rule really bites.
import { ESLint } from 'eslint';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../../support/cli';

const eslint = new ESLint({ cwd: REPO });

async function importErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(REPO, file) });
  return result!.messages.filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('layer rule', () => {
  it('forbids the renderer to import the main side or electron', async () => {
    expect(await importErrors('src-renderer/x.ts', "import { openDatabase } from '../src-main/core';\nvoid openDatabase;\n")).toHaveLength(1);
    expect(await importErrors('src-renderer/x.ts', "import { ipcRenderer } from 'electron';\nvoid ipcRenderer;\n")).toHaveLength(1);
    expect(await importErrors('src-renderer/x.ts', "import type { Task } from '../src-shared/domain';\nexport type T = Task;\n")).toEqual([]);
  });

  it('lets only the app, the electron host and the preload import electron', async () => {
    const src = "import { app } from 'electron';\nvoid app;\n";
    expect(await importErrors('src-main/core/x.ts', src)).toHaveLength(1);
    expect(await importErrors('src-main/cli/x.ts', src)).toHaveLength(1);
    expect(await importErrors('src-main/host/web.ts', src)).toHaveLength(1);
    expect(await importErrors('src-main/host/electron-ipc.ts', src)).toEqual([]);
    expect(await importErrors('src-main/app/x.ts', src)).toEqual([]);
    expect(await importErrors('src-preload/x.ts', src)).toEqual([]);
  });

  it('keeps the core at the bottom and src-shared pure', async () => {
    expect(await importErrors('src-main/core/x.ts', "import { x } from '../cli/context';\nvoid x;\n")).toHaveLength(1);
    expect(await importErrors('src-main/core/x.ts', "import { x } from '../host/web';\nvoid x;\n")).toHaveLength(1);
    expect(await importErrors('src-shared/x.ts', "import { readFileSync } from 'node:fs';\nvoid readFileSync;\n")).toHaveLength(1);
  });
});
