/** `tidy serve` as a child process for end-to-end tests: started on a free port, its printed URL read back. */
import { spawn, type ChildProcess } from 'node:child_process';
import { TIDY_BIN } from './cli';

export interface Served {
  /** The URL with the access token, as printed. */
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

export function startServe(dbPath: string, env: NodeJS.ProcessEnv = process.env): Promise<Served> {
  const child = spawn(process.execPath, [TIDY_BIN, '--db', dbPath, 'serve'], { stdio: ['ignore', 'pipe', 'inherit'], env });
  return new Promise((resolve, reject) => {
    let out = '';
    const onExit = (code: number | null) => reject(new Error(`tidy serve exited (${code}): ${out}`));
    child.once('exit', onExit);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const m = /http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(out);
      if (!m) return;
      child.off('exit', onExit);
      resolve({
        url: m[0],
        process: child,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
