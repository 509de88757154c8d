// The `tidy` command line, parsed and run. Each group of commands is loaded only when the command line
// names one of its commands, so `tidy --version` or `tidy tasks` does not load (or even read) the agent, the
// calendar, sync or the MCP SDK. Help, a typo or anything unclear loads every group: the output is the same.
import { Command, CommanderError } from 'commander';
import { DomainError } from '../core/fail';
import { StoreError } from '../core/store/errors';
import type { Cli } from './context';
import { VERSION } from './version';

type Register = (program: Command, cli: Cli) => void;

interface CommandGroup {
  /** The top-level commands the group registers (a name missing here still works: it loads every group). */
  readonly names: readonly string[];
  readonly load: () => Promise<Register>;
}

/** Every group, in the order `tidy --help` lists their commands. */
export const COMMAND_GROUPS: readonly CommandGroup[] = [
  {
    names: ['add', 'tasks', 'search', 'projects', 'lists', 'filter', 'edit', 'move', 'done', 'reopen', 'archive', 'snooze', 'comment', 'indent', 'outdent', 'section', 'project', 'list', 'label'],
    load: async () => (await import('./commands/data')).registerDataCommands,
  },
  { names: ['events', 'cal'], load: async () => (await import('./commands/calendar')).registerCalendarCommands },
  { names: ['plan'], load: async () => (await import('./commands/plan')).registerPlanCommand },
  { names: ['log', 'undo'], load: async () => (await import('./commands/log')).registerLogCommands },
  { names: ['config'], load: async () => (await import('./commands/config')).registerConfigCommands },
  { names: ['ask', 'runs', 'trace'], load: async () => (await import('./commands/agent')).registerAgentCommands },
  { names: ['serve'], load: async () => (await import('./commands/serve')).registerServeCommand },
  { names: ['mcp'], load: async () => (await import('./commands/mcp')).registerMcpCommands },
  { names: ['memory'], load: async () => (await import('./commands/memory')).registerMemoryCommands },
  { names: ['key'], load: async () => (await import('./commands/key')).registerKeyCommands },
  { names: ['backup', 'restore', 'export', 'import'], load: async () => (await import('./commands/backup')).registerBackupCommands },
  { names: ['routines', 'approvals', 'approve', 'decline'], load: async () => (await import('./commands/routines')).registerRoutineCommands },
  { names: ['sync'], load: async () => (await import('./commands/sync')).registerSyncCommands },
];

/** The global options that take a value (`--db FILE` or `--db=FILE`). */
const GLOBAL_VALUE_OPTIONS = new Set(['--db', '--base-url', '--model']);

/**
 * The groups a command line needs: the group of its command; none for a bare `--version`; every group when
 * in doubt (no command, help, an unknown option or command), so Commander's help and suggestions are whole.
 */
export function groupsFor(args: readonly string[], groups: readonly CommandGroup[] = COMMAND_GROUPS): readonly CommandGroup[] {
  let version = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (GLOBAL_VALUE_OPTIONS.has(arg)) {
      i++;
      continue;
    }
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0 && GLOBAL_VALUE_OPTIONS.has(arg.slice(0, eq))) continue;
    if (arg === '-V' || arg === '--version') {
      version = true;
      continue;
    }
    if (arg.startsWith('-')) return groups;
    const group = groups.find((g) => g.names.includes(arg));
    return group ? [group] : groups;
  }
  return version ? [] : groups;
}


/**
 * Runs one command line (the words after `tidy`): output on process.stdout/stderr, the outcome in
 * process.exitCode (0 success, 2 usage error, 1 any other failure — always one clear line, never a stack).
 */
export async function runCli(args: readonly string[]): Promise<void> {
  const program = new Command('tidy')
    .description('Tidy: your tasks, projects and lists, organised by an agent you can undo.')
    .option('--db <path>', 'database file (env TIDY_DB; default: the app data folder)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (env TIDY_BASE_URL)')
    .option('--model <name>', 'model name (env TIDY_MODEL)')
    .version(VERSION, '-V, --version', 'print the version of Tidy')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      outputError: (str, write) => write(`tidy: ${str.trim().replace(/^error: /, '')} (see tidy --help)\n`),
    });

  const groups = groupsFor(args);
  // A bare --version needs neither a command nor the database: it loads neither.
  const context = groups.length > 0 ? await import('./context') : undefined;
  const cli = context?.createCli(program);
  try {
    const registers = await Promise.all(groups.map((g) => g.load()));
    if (cli) for (const register of registers) register(program, cli);
    if (args.length === 0) program.help();
    await program.parseAsync(args, { from: 'user' });
  } catch (e) {
    const { CliFailure, printable } = context ?? (await import('./context'));
    const fatal = (line: string, code: number): void => {
      process.stderr.write(`tidy: ${printable(line)}\n`);
      process.exitCode = code;
    };
    if (e instanceof CommanderError) process.exitCode = e.exitCode === 0 ? 0 : 2;
    else if (e instanceof CliFailure || e instanceof DomainError) fatal(`${e.error} — ${e.hint}`, e instanceof CliFailure ? e.exitCode : 1);
    else if (e instanceof StoreError) fatal(e.message, 1);
    else {
      const code = typeof e === 'object' && e !== null && 'code' in e ? String(e.code) : '';
      const msg = e instanceof Error ? e.message : String(e);
      if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') fatal(`the database is damaged (${msg}); restore a backup or pass --db with another file`, 1);
      else if (code === 'SQLITE_BUSY') fatal('the database is busy (another Tidy is writing); try again in a moment', 1);
      else fatal(`unexpected error: ${msg}${process.env['TIDY_DEBUG'] ? `\n${e instanceof Error ? e.stack : ''}` : ' (set TIDY_DEBUG=1 for details)'}`, 1);
    }
  } finally {
    cli?.close();
  }
}
