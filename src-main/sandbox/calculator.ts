// The app-side client of the calculator. Expressions never run in the app's process: they go to one
// warm child process (started lazily, reused between calls, one call at a time), which is killed and
// replaced when a call runs too long, runs out of memory, dies or is cancelled.
//
// Why a process and not a worker thread: V8 ends the whole process, not just the worker, when one
// allocation in a worker cannot fit under its resourceLimits (Node.js issue 47224; the print attack of
// calculator.test.ts did exactly that). A separate process with its own --max-old-space-size takes
// only itself down.
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Failure } from '../../src-shared/result';
import { bundleDir } from '../bundle-dir';
import type { SizeLimits } from './limits';
import { WorkerMessage, type CalcRequest } from './protocol';
import { clip } from './text';

/** The answer of one call: exactly the `calculate` tool's result shape, `{result}` or `{error, hint}`. */
export type CalcOutcome = { result: string } | Failure;

export interface Calculator {
  /** Evaluates `expression`; never rejects. An aborted signal cancels the call, queued or running. */
  calculate(expression: string, signal?: AbortSignal): Promise<CalcOutcome>;
  /** Stops the calculator's process; pending calls get an error. */
  close(): Promise<void>;
}

interface CalculatorOptions {
  /** The bundled worker script (out/cli/calc-worker.mjs); beside the running bundle's entry when omitted. */
  workerPath?: string | URL;
  /** Per-call time limit, in ms, after which the process is killed. Default 1000. */
  timeoutMs?: number;
  /** Longest expression accepted, in characters. Default 10,000. */
  maxLength?: number;
  /** Longest result text; larger values are summarised. Default 500. */
  maxResultChars?: number;
  /** How long a new process may take to start and load mathjs (not counted in timeoutMs). Default 15 s. */
  startupTimeoutMs?: number;
  /** The process's old-generation heap, in MB (--max-old-space-size); a call that exhausts it gets an error. Default 128. */
  heapMb?: number;
  /** The size guards inside the sandbox (limits.ts). Tests and benchmarks raise them to force a real out-of-memory. */
  sizeLimits?: Partial<SizeLimits>;
  /** Called with each process started, for diagnostics and tests (e.g. to kill it mid-call). */
  onWorkerStart?: (child: ChildProcess) => void;
}

const WORKER_FILE = 'calc-worker.mjs';

const DEFAULTS = {
  timeoutMs: 1_000,
  maxLength: 10_000,
  maxResultChars: 500,
  startupTimeoutMs: 15_000,
  // mathjs itself needs about 20 MB; the rest is room for honest matrices.
  heapMb: 128,
};

/**
 * The stack of the calculator's main thread, in KB: deep but honest expressions (a sum of 5,000 terms)
 * need more than V8's default of about 1 MB. Linux and macOS give a process's main thread 8 MB; on
 * Windows it is 1 MB, so V8's default stays.
 */
const STACK_KB = process.platform === 'win32' ? undefined : 3_900;

/** Keeps the stderr of a dying process: V8 says there why it stopped ("heap out of memory"). */
const MAX_STDERR_CHARS = 4_096;

/**
 * The environment of the calculator's process: nothing of the app's (API keys live there). In
 * Electron, process.execPath is the app itself, which runs as plain Node only with ELECTRON_RUN_AS_NODE.
 */
export function workerEnvironment(versions: NodeJS.ProcessVersions = process.versions): NodeJS.ProcessEnv {
  return versions.electron ? { ELECTRON_RUN_AS_NODE: '1' } : {};
}

/**
 * Where the bundled worker is: beside the running bundle's entry (`tidy`'s out/cli/calc-worker.mjs, or the
 * app's out/main/calc-worker.js); unbundled (vitest, tsx), the package's out/cli/.
 */
export function defaultWorkerPath(dir: string = bundleDir()): string {
  const candidates = [join(dir, WORKER_FILE), join(dir, WORKER_FILE.replace(/\.mjs$/, '.js'))];
  return candidates.find((p) => existsSync(p)) ?? candidates[0]!;
}

const seconds = (ms: number): string => (ms >= 1000 ? `${+(ms / 1000).toFixed(2)} s` : `${ms} ms`);

const fail = (error: string, hint: string): Failure => ({ error, hint });
const CANCELLED = fail('the calculation was cancelled', 'run it again if the result is still needed');
const CLOSED = fail('the calculator is closed', 'the app is shutting down; try again after it restarts');
const OUT_OF_MEMORY = fail(
  'expression needed more memory than the calculator allows and was stopped',
  'use smaller matrices, ranges or numbers',
);
const CRASHED = fail('the calculator stopped unexpectedly', 'try again: a fresh calculator is started for the next call');
/** The line of a Node error report that names the error ("SyntaxError: …"), else its first line. */
const firstError = (report: string): string => {
  const lines = report.split('\n').map((l) => l.trim());
  return lines.find((l) => /^[A-Z]\w*Error\b/.test(l)) ?? lines.find(Boolean) ?? report;
};
/** What V8 prints when an allocation fails (Node's OOM handler, or a fatal "invalid size" error). */
const OOM_TEXT = /heap out of memory|Allocation failed|Reached heap limit|invalid (table|array) (size|length)/i;

interface Job {
  expression: string;
  signal: AbortSignal | undefined;
  settle: (outcome: CalcOutcome) => void;
}

interface SpawnSettings {
  path: string;
  heapMb: number;
  sizeLimits: Partial<SizeLimits>;
  startupTimeoutMs: number;
}

/** One calculator process and the call it is running. */
class Slot {
  readonly child: ChildProcess;
  readonly ready: Promise<Failure | null>;
  private markReady!: (f: Failure | null) => void;
  private current: { id: number; settle: (o: CalcOutcome) => void } | null = null;
  /** Why this side killed the process (time limit, cancel, close), which is then the answer. */
  private killedFor: Failure | null = null;
  /** What Node reported ('error' event), unless the process's own stderr says more. */
  private failure: Failure | null = null;
  private stderr = '';
  exited = false;
  private started = false;
  readonly exitedPromise: Promise<void>;
  private markExited!: () => void;

  constructor(
    private readonly settings: SpawnSettings,
    private readonly onDeath: (slot: Slot) => void,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.exitedPromise = new Promise((resolve) => (this.markExited = resolve));
    const { path, heapMb, sizeLimits, startupTimeoutMs } = settings;
    if (!existsSync(path)) throw new Error(`${path} does not exist`);
    const execArgv = [`--max-old-space-size=${heapMb}`, '--disallow-code-generation-from-strings'];
    if (STACK_KB) execArgv.push(`--stack-size=${STACK_KB}`);
    this.child = fork(path, [JSON.stringify(sizeLimits)], {
      cwd: dirname(path),
      env: workerEnvironment(),
      execArgv,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    const startup = setTimeout(() => this.kill(fail(`the calculator did not start within ${seconds(startupTimeoutMs)}`, 'try again in a moment')), startupTimeoutMs);
    startup.unref();
    this.release();

    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      if (this.stderr.length < MAX_STDERR_CHARS) this.stderr += chunk.slice(0, MAX_STDERR_CHARS - this.stderr.length);
    });
    this.child.on('message', (raw: unknown) => {
      const parsed = WorkerMessage.safeParse(raw);
      if (!parsed.success) return;
      const msg = parsed.data;
      if (msg.type === 'ready') {
        clearTimeout(startup);
        this.started = true;
        this.markReady(null);
      } else if (this.current && msg.id === this.current.id) {
        this.finish(msg.type === 'result' ? { result: msg.result } : { error: msg.error, hint: msg.hint });
      }
    });
    this.child.on('error', (err: Error) => {
      this.failure ??= this.started
        ? fail(`the calculator failed: ${clip(err.message, 300)}`, 'try again: a fresh calculator is started for the next call')
        : this.cannotStart(err.message);
      // A process that never started emits no 'close'.
      if (this.child.pid === undefined) this.died();
    });
    // 'close' comes after the stderr pipe has been read to its end, so the reason is known.
    this.child.once('close', () => {
      clearTimeout(startup);
      this.died();
    });
  }

  private cannotStart(message: string): Failure {
    return fail(clip(`the calculator could not start: ${message}`, 300), `check that ${this.settings.path} exists (npm run build:cli builds it)`);
  }

  private died(): void {
    if (this.exited) return;
    this.exited = true;
    const said = this.stderr.trim();
    const reason =
      this.killedFor ??
      (OOM_TEXT.test(said)
        ? OUT_OF_MEMORY
        : (this.failure ?? (!this.started && said ? this.cannotStart(firstError(said)) : CRASHED)));
    this.markReady(reason);
    this.finish(reason);
    this.markExited();
    this.onDeath(this);
  }

  /** Keeps the app alive while a call waits for this process; an idle calculator never does. */
  hold(): void {
    if (this.exited) return;
    this.child.ref();
    this.child.channel?.ref();
    (this.child.stderr as { ref?: () => void } | null)?.ref?.();
  }

  release(): void {
    if (this.exited) return;
    this.child.unref();
    this.child.channel?.unref();
    (this.child.stderr as { unref?: () => void } | null)?.unref?.();
  }

  /** Sends one request; `settle` gets the answer, or the reason the process died first. */
  send(request: CalcRequest, settle: (o: CalcOutcome) => void): void {
    this.current = { id: request.id, settle };
    this.hold();
    // A channel that fails is a process on its way out: the call gets the reason it died.
    const broken = () => {
      this.failure ??= CRASHED;
      this.stop();
    };
    try {
      this.child.send(request, (err) => {
        if (err) broken();
      });
    } catch {
      broken();
    }
  }

  /** Settles the running call with `outcome` and kills the process (waited for, so close() can await it). */
  kill(reason: Failure): void {
    this.killedFor ??= reason;
    this.finish(reason);
    this.markReady(reason);
    this.stop();
  }

  private stop(): void {
    if (this.exited) return;
    this.child.ref();
    this.child.kill('SIGKILL');
  }

  private finish(outcome: CalcOutcome): void {
    const current = this.current;
    this.current = null;
    this.release();
    current?.settle(outcome);
  }
}

function whenAborted(signal: AbortSignal | undefined): { promise: Promise<Failure | null>; dispose: () => void } {
  if (!signal) return { promise: new Promise(() => {}), dispose: () => {} };
  let onAbort = () => {};
  const promise = new Promise<Failure>((resolve) => {
    onAbort = () => resolve(CANCELLED);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal.removeEventListener('abort', onAbort) };
}

export function createCalculator(options: CalculatorOptions = {}): Calculator {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const maxLength = options.maxLength ?? DEFAULTS.maxLength;
  const maxResultChars = options.maxResultChars ?? DEFAULTS.maxResultChars;
  const startupTimeoutMs = options.startupTimeoutMs ?? DEFAULTS.startupTimeoutMs;
  const workerPath = options.workerPath ?? defaultWorkerPath();
  const settings: SpawnSettings = {
    path: workerPath instanceof URL ? fileURLToPath(workerPath) : workerPath,
    heapMb: options.heapMb ?? DEFAULTS.heapMb,
    sizeLimits: options.sizeLimits ?? {},
    startupTimeoutMs,
  };
  const TIMED_OUT = fail(
    `expression took longer than ${seconds(timeoutMs)} and was stopped`,
    'simplify it, or use smaller numbers, matrices or ranges',
  );

  const queue: Job[] = [];
  let running: Job | null = null;
  let slot: Slot | null = null;
  let closed = false;
  let nextId = 1;

  function spawn(): Slot {
    const s = new Slot(settings, (dead) => {
      if (slot === dead) slot = null;
    });
    options.onWorkerStart?.(s.child);
    return s;
  }

  /** Kills the process running a call; a replacement starts warming up at once. */
  function replace(dead: Slot, reason: Failure): void {
    if (slot === dead) slot = null;
    dead.kill(reason);
    if (closed) return;
    try {
      slot = spawn();
    } catch {
      // The next call starts one itself and reports why it cannot.
    }
  }

  async function run(job: Job): Promise<CalcOutcome> {
    let s: Slot;
    try {
      s = slot ??= spawn();
    } catch (err) {
      return fail(
        clip(`the calculator could not start: ${err instanceof Error ? err.message : String(err)}`, 300),
        `check that ${settings.path} exists (npm run build:cli builds it)`,
      );
    }
    // A cold start is not counted in the call's time limit, but it can be cancelled.
    s.hold();
    const abort = whenAborted(job.signal);
    const startFailure = await Promise.race([s.ready, abort.promise]);
    abort.dispose();
    if (startFailure || closed) {
      s.release();
      return closed ? CLOSED : (startFailure ?? CRASHED);
    }

    return new Promise<CalcOutcome>((resolve) => {
      let done = false;
      const settle = (outcome: CalcOutcome) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        job.signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
      const onAbort = () => replace(s, CANCELLED);
      const timer = setTimeout(() => replace(s, TIMED_OUT), timeoutMs);
      job.signal?.addEventListener('abort', onAbort, { once: true });
      s.send({ id: nextId++, expression: job.expression, maxResultChars, timeoutMs }, settle);
    });
  }

  function pump(): void {
    if (running || closed) return;
    const job = queue.shift();
    if (!job) return;
    running = job;
    void run(job).then((outcome) => {
      running = null;
      job.settle(outcome);
      pump();
    });
  }

  function calculate(expression: string, signal?: AbortSignal): Promise<CalcOutcome> {
    if (closed) return Promise.resolve(CLOSED);
    if (signal?.aborted) return Promise.resolve(CANCELLED);
    if (typeof expression !== 'string') return Promise.resolve(fail('the expression must be text', 'send it as a string, e.g. "15 * 25"'));
    if (expression.length > maxLength) {
      return Promise.resolve(
        fail(`the expression is too long (${expression.length} characters; the limit is ${maxLength})`, 'split the calculation into smaller steps'),
      );
    }
    if (expression.trim() === '') return Promise.resolve(fail('the expression is empty', 'send something to compute, e.g. 15 * 25'));

    return new Promise((resolve) => {
      const job: Job = {
        expression,
        signal,
        settle: (outcome) => {
          signal?.removeEventListener('abort', dequeue);
          resolve('result' in outcome ? { result: clip(outcome.result, maxResultChars) } : outcome);
        },
      };
      // While queued, cancelling just drops the job; once running, run() owns the signal.
      const dequeue = () => {
        const at = queue.indexOf(job);
        if (at >= 0) {
          queue.splice(at, 1);
          job.settle(CANCELLED);
        }
      };
      signal?.addEventListener('abort', dequeue, { once: true });
      queue.push(job);
      pump();
    });
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    for (const job of queue.splice(0)) job.settle(CLOSED);
    const s = slot;
    slot = null;
    if (s && !s.exited) {
      s.kill(CLOSED);
      await s.exitedPromise;
    }
  }

  return { calculate, close };
}
