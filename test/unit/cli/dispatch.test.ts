// `tidy` loads only the group of commands its command line names (src-main/cli/program.ts): the groups
// must claim exactly the commands they register, and a command's help must not depend on what else loaded.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createCli } from '../../../src-main/cli/context';
import { COMMAND_GROUPS, groupsFor } from '../../../src-main/cli/program';
import { REPO } from '../../support/cli';

async function programWith(groups: typeof COMMAND_GROUPS): Promise<Command> {
  const program = new Command('tidy').exitOverride();
  const cli = createCli(program);
  for (const register of await Promise.all(groups.map((g) => g.load()))) register(program, cli);
  return program;
}

/** Every command's help, depth first, by its path of names. */
function helpTexts(command: Command, path = ''): Map<string, string> {
  const texts = new Map<string, string>();
  for (const c of command.commands) {
    const name = `${path} ${c.name()}`.trim();
    texts.set(name, c.helpInformation());
    for (const [k, v] of helpTexts(c, name)) texts.set(k, v);
  }
  return texts;
}

describe('the command groups', () => {
  it('each registers the commands it claims, no command is claimed twice, and a command reads the same alone', async () => {
    const claimed = COMMAND_GROUPS.flatMap((g) => g.names);
    expect(new Set(claimed).size).toBe(claimed.length);
    const whole = helpTexts(await programWith(COMMAND_GROUPS));
    for (const group of COMMAND_GROUPS) {
      const alone = await programWith([group]);
      const names = alone.commands.map((c) => c.name());
      for (const name of group.names) expect(names, `${name} is registered by its group`).toContain(name);
      for (const [path, text] of helpTexts(alone)) expect(text, `help of tidy ${path}`).toBe(whole.get(path));
    }
  }, 120_000); // loads every command's code, as `tidy --help` does

  it('picks the group of the command after the global options, none for a bare --version, every group when unsure', () => {
    const only = (args: string[]): string[] => groupsFor(args).flatMap((g) => g.names);
    const all = COMMAND_GROUPS.flatMap((g) => g.names);
    expect(only(['--version'])).toEqual([]);
    expect(only(['-V', '--db', 'x.db'])).toEqual([]);
    expect(only(['--db', 'tasks', 'tasks'])).toContain('add'); // `tasks` as the --db file, then the command
    expect(only(['--db', 'x.db', '--model', 'm', 'ask', 'hi'])).toEqual(['ask', 'runs', 'trace']);
    expect(only(['--db=x.db', '--base-url=http://h', 'cal', 'list'])).toEqual(['events', 'cal']);
    expect(only(['--version', 'sync'])).toEqual(['sync']);
    // No command, help, an unknown option or command: everything, so help and suggestions are whole.
    for (const args of [[], ['--help'], ['-h'], ['help', 'tasks'], ['taks'], ['--bogus', 'tasks'], ['--db'], ['--db=x', '-Vh'], ['--version=1'], ['constructor'], ['__proto__']])
      expect(only(args), JSON.stringify(args)).toEqual(all);
  });
});

describe('the start of the bundled tidy', () => {
  /** The files a module of the bundle loads before it runs: itself and its static imports, recursively. */
  function staticClosure(file: string, seen = new Set<string>()): Set<string> {
    if (seen.has(file)) return seen;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s*"(\.\.?\/[^"]+)"/gms)) staticClosure(join(file, '..', m[1]!), seen);
    return seen;
  }
  const sources = (files: Set<string>): string => [...files].map((f) => readFileSync(f, 'utf8')).join('\n');

  it('reads neither the agent, the SDKs, calendars, sync nor all of zod for --version, and no agent for tasks', () => {
    const entry = join(REPO, 'out', 'cli', 'tidy.mjs');
    const start = staticClosure(entry);
    const startCode = sources(start);
    // esbuild marks where each bundled file begins with a comment naming it.
    for (const absent of ['node_modules/zod/', 'node_modules/openai/', 'node_modules/@modelcontextprotocol/', 'node_modules/ical.js/', 'src-main/core/agent/', 'src-main/core/sync/', 'src-main/core/store/db.ts'])
      expect(startCode, `${absent} at start`).not.toContain(`// ${absent}`);
    expect(startCode).toContain('// node_modules/commander/');

    const dataChunk = /import\("(\.\/chunks\/data-[^"]+)"\)/.exec(readFileSync(entry, 'utf8'))?.[1];
    expect(dataChunk, 'the task commands are a chunk of their own').toBeDefined();
    const tasksCode = sources(staticClosure(join(entry, '..', dataChunk!)));
    for (const absent of ['node_modules/openai/', 'node_modules/@modelcontextprotocol/', 'node_modules/webdav/', 'node_modules/zod/v4/locales/ru.js', 'src-main/core/agent/', 'src-main/core/sync/'])
      expect(tasksCode, `${absent} for tasks`).not.toContain(`// ${absent}`);
    expect(tasksCode).toContain('// src-main/core/domain/tasks.ts');
  });
});
