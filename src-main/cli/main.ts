// The `tidy` command: every command is a thin shell over src-main/core. Exit 0 on success, 2 on a usage
// error, 1 on any other failure — always with one clear line on stderr, never a stack trace.
import { Command, CommanderError } from 'commander';
import { DomainError, StoreError } from '../core';
import { registerAgentCommands } from './commands/agent';
import { registerBackupCommands } from './commands/backup';
import { registerCalendarCommands } from './commands/calendar';
import { registerConfigCommands } from './commands/config';
import { registerDataCommands } from './commands/data';
import { registerKeyCommands } from './commands/key';
import { registerLogCommands } from './commands/log';
import { registerMcpCommands } from './commands/mcp';
import { registerRoutineCommands } from './commands/routines';
import { registerPlanCommand } from './commands/plan';
import { registerMemoryCommands } from './commands/memory';
import { registerServeCommand } from './commands/serve';
import { registerSyncCommands } from './commands/sync';
import { CliFailure, createCli, printable } from './context';
import { VERSION } from './version';

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

const cli = createCli(program);
registerDataCommands(program, cli);
registerCalendarCommands(program, cli);
registerPlanCommand(program, cli);
registerLogCommands(program, cli);
registerConfigCommands(program, cli);
registerAgentCommands(program, cli);
registerServeCommand(program, cli);
registerMcpCommands(program, cli);
registerMemoryCommands(program, cli);
registerKeyCommands(program, cli);
registerBackupCommands(program, cli);
registerRoutineCommands(program, cli);
registerSyncCommands(program, cli);

function fatal(line: string, code: number): void {
  process.stderr.write(`tidy: ${printable(line)}\n`);
  process.exitCode = code;
}

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

try {
  if (process.argv.length <= 2) program.help();
  await program.parseAsync(process.argv);
} catch (e) {
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
  cli.close();
}
