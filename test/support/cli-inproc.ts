/**
 * `tidy` run inside the test process: the same command line through the CLI's own entry (runCli in
 * src-main/cli/program.ts), its stdout, stderr and exit code captured as the spawned `tidy` (./cli.ts)
 * gives them, without starting a process (about half a second each on a loaded machine). For tests of what
 * a command does and prints; what only a process shows (the built bundle, exit on a signal, stdin, a
 * terminal, the locale read from the environment) stays with `tidy` / `tidyAsync`.
 *
 * Runs are one at a time (they share process.stdout, process.env and process.exitCode); awaiting one
 * leaves the event loop free, so a fake server living in the test answers it.
 */
import { runCli } from '../../src-main/cli/program';
import type { CliResult } from './cli';

/** Read once per process by the CLI (src-main/cli/readable.ts): a test of the locale spawns `tidy`. */
const LOCALE_ENV = ['LC_ALL', 'LC_TIME', 'LANG'];

let queue: Promise<unknown> = Promise.resolve();

/** Runs `tidy --db <db> <args>` in this process, with `env` added to the environment (and TIDY_DB, TIDY_BASE_URL, TIDY_MODEL, OPENAI_API_KEY removed unless given). */
export function tidyIn(db: string, args: string[], { env = {} }: { env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  const run = queue.then(() => runOnce(db, args, env));
  queue = run.catch(() => undefined);
  return run;
}

async function runOnce(db: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  const locale = Object.keys(env).filter((k) => LOCALE_ENV.includes(k));
  if (locale.length > 0) throw new Error(`tidyIn cannot change ${locale.join(', ')}: the CLI reads the locale once per process; spawn tidy for that`);
  const saved = new Map<string, string | undefined>();
  const set = (key: string, value: string | undefined): void => {
    if (!saved.has(key)) saved.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  };
  // The developer's own settings never reach a test: what a test wants it passes in `env`.
  for (const key of ['TIDY_DB', 'TIDY_BASE_URL', 'TIDY_MODEL', 'OPENAI_API_KEY']) set(key, undefined);
  for (const [key, value] of Object.entries(env)) set(key, value);

  let stdout = '';
  let stderr = '';
  const { stdout: out, stderr: err } = process;
  const writeOut = out.write;
  const writeErr = err.write;
  const capture =
    (append: (s: string) => void) =>
    (chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
      const done = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
      done?.();
      return true;
    };
  const exitCode = process.exitCode;
  process.exitCode = undefined;
  out.write = capture((s) => (stdout += s)) as typeof out.write;
  err.write = capture((s) => (stderr += s)) as typeof err.write;
  try {
    await runCli(['--db', db, ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    out.write = writeOut;
    err.write = writeErr;
    process.exitCode = exitCode;
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}
