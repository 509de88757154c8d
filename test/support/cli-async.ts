import { spawn, type ChildProcess } from 'node:child_process';
import { TIDY_BIN, type CliResult } from './cli';

export interface RunningCli {
  child: ChildProcess;
  /** Resolves when the process exits. */
  done: Promise<CliResult>;
  /** stdout so far. */
  stdout(): string;
}

/**
 * Runs the real `tidy` command without blocking this process, so a fake server living in the test can
 * answer it (spawnSync would freeze the event loop the fake needs).
 */
export function tidyAsync(db: string, args: string[], options: { env?: NodeJS.ProcessEnv; input?: string } = {}): RunningCli {
  const env = { ...process.env, ...options.env };
  delete env['TIDY_DB'];
  delete env['OPENAI_API_KEY'];
  const child = spawn(process.execPath, [TIDY_BIN, '--db', db, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  child.stdin!.end(options.input ?? '');
  const done = new Promise<CliResult>((resolve) => child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })));
  return { child, done, stdout: () => stdout };
}
