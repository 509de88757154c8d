import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { bundleDir } from '../../bundle-dir';
import { openDatabase } from '../../core/store/db';
import { resolveDbPath } from '../../core/store/paths';
import { scheduleAutoBackups } from '../../core/data/backup';
import { createHost, HOST_BUSY_TIMEOUT_MS } from '../../host';
import { startWebHost } from '../../host/web';
import { CliFailure, usage, type Cli } from '../context';
import { cliSecrets } from '../keys';

/** The built window: out/renderer, beside the CLI bundle's out/cli. */
const rendererDir = (): string => join(bundleDir(), '..', 'renderer');

/** The first line of an error and where it was thrown: enough to find it, on one line. */
function oneLine(e: unknown): string {
  try {
    if (!(e instanceof Error)) return String(e).split('\n')[0]!.slice(0, 500);
    const at = e.stack?.split('\n').find((l) => l.trimStart().startsWith('at '))?.trim();
    return `${e.name}: ${e.message.split('\n')[0]!.slice(0, 500)}${at ? ` (${at})` : ''}`;
  } catch {
    return 'an error that cannot be shown';
  }
}

/**
 * A server for many clients must outlive a fault in one of them: an error nothing caught (a bug) is
 * logged as one line on stderr and serving goes on. Returns a function that removes the handlers.
 */
export function logProcessFaults(proc: NodeJS.Process = process, write = (line: string) => void proc.stderr.write(line)): () => void {
  const rejection = (reason: unknown): void => write(`tidy serve: a promise failed and nothing handled it (still serving): ${oneLine(reason)}\n`);
  const exception = (error: unknown): void => write(`tidy serve: an error was not caught (still serving): ${oneLine(error)}\n`);
  proc.on('unhandledRejection', rejection);
  proc.on('uncaughtException', exception);
  return () => {
    proc.off('unhandledRejection', rejection);
    proc.off('uncaughtException', exception);
  };
}

/** `tidy serve`: the UI in a browser, through the web host, until Ctrl+C. */
export function registerServeCommand(program: Command, cli: Cli): void {
  program
    .command('serve')
    .description('the UI in a browser, on 127.0.0.1 only; prints the URL with its per-launch token')
    .option('--port <n>', 'the port on 127.0.0.1 (default: a free one)')
    .action(async (o: { port?: string }) => {
      const port = o.port === undefined ? 0 : Number(o.port);
      if (!/^\d+$/.test(o.port ?? '0') || port > 65_535) throw usage(`--port ${o.port} is not a port number`, 'use a whole number from 1 to 65535, or leave it out for a free port');
      const windowDir = rendererDir();
      if (!existsSync(join(windowDir, 'index.html')))
        throw new CliFailure(`the UI is not built yet (no ${join(windowDir, 'index.html')})`, 'run `npx electron-vite build` (or `npm start`) in the Tidy folder');

      const stopLogging = logProcessFaults();
      // A short busy timeout: requests that find the database locked wait on a timer (host/dispatch.ts).
      const db = cli.db({ verify: 'always', busyTimeoutMs: HOST_BUSY_TIMEOUT_MS });
      const dbPath = resolveDbPath(cli.globals.db);
      // A restore from the window opens the file again the same way (host/index.ts).
      const reopen = () => openDatabase(dbPath, { verify: 'always', holder: 'tidy serve', busyTimeoutMs: HOST_BUSY_TIMEOUT_MS });
      const host = createHost({ db, secrets: cliSecrets(), env: process.env, owner: 'tidy serve' }, { reminders: true, routines: true, reopen, sync: true });
      const stopBackups = scheduleAutoBackups(() => host.db, dbPath, (line) => process.stderr.write(`tidy serve: ${line}\n`));
      const web = await startWebHost({ dispatch: host.dispatch, hub: host.hub, rendererDir: windowDir, port }).catch(async (e: unknown) => {
        stopBackups();
        await host.close();
        stopLogging();
        throw new CliFailure(`cannot serve: ${e instanceof Error ? e.message : String(e)}`, 'try another --port, or leave it out');
      });
      cli.out(`Tidy is serving on ${web.url}`);
      cli.out('Open that URL in a browser on this computer (the token in it is your key; do not share it). Press Ctrl+C to stop.');

      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      stopBackups();
      await web.close();
      await host.close();
      // The connection a restore opened is the host's; the first one is the CLI's (closed by it).
      if (host.db !== db) host.db.close();
      stopLogging();
    });
}
