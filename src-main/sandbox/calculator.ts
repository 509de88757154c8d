// The main-side client of the calculator worker. Expressions never run on this thread: they go to one
// warm worker thread (started lazily, reused between calls, one call at a time), which is terminated
// and replaced when a call runs too long, runs out of memory, dies or is cancelled.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import type { Failure } from '../../src-shared/result';
import { WorkerMessage, type CalcRequest } from './protocol';
import { clip } from './text';

/** The answer of one call: exactly the `calculate` tool's result shape, `{result}` or `{error, hint}`. */
export type CalcOutcome = { result: string } | Failure;

export interface Calculator {
  /** Evaluates `expression`; never rejects. An aborted signal cancels the call, queued or running. */
  calculate(expression: string, signal?: AbortSignal): Promise<CalcOutcome>;
  /** Stops the worker; pending calls get an error. */
  close(): Promise<void>;
}

export interface CalculatorOptions {
  /** The bundled worker (out/cli/calc-worker.mjs); found next to this file or under the repo when omitted. */
  workerPath?: string | URL;
  /** Per-call time limit, in ms, after which the worker is terminated. Default 1000. */
  timeoutMs?: number;
  /** Longest expression accepted, in characters. Default 10,000. */
  maxLength?: number;
  /** Longest result text; larger values are summarised. Default 500. */
  maxResultChars?: number;
  /** How long a new worker may take to load mathjs (not counted in timeoutMs). Default 15 s. */
  startupTimeoutMs?: number;
  /** V8 limits of the worker; a call that exceeds them gets an error and the worker is replaced. */
  resourceLimits?: ResourceLimits;
  /** Called with each worker started, for diagnostics and tests (e.g. to kill it mid-call). */
  onWorkerStart?: (worker: Worker) => void;
}

export const WORKER_FILE = 'calc-worker.mjs';

const DEFAULTS = {
  timeoutMs: 1_000,
  maxLength: 10_000,
  maxResultChars: 500,
  startupTimeoutMs: 15_000,
  // mathjs itself needs about 20 MB; the rest is room for honest matrices.
  resourceLimits: { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 } satisfies ResourceLimits,
};

/**
 * Where the bundled worker is: next to the running file (the CLI bundle out/cli/tidy.mjs, or an
 * Electron main bundle that emits calc-worker.js beside out/main/index.js), else `out/cli/` of the
 * enclosing package (running from source, as under vitest or tsx).
 */
export function defaultWorkerPath(from: string | URL = import.meta.url): string {
  const here = dirname(fileURLToPath(from));
  const candidates = [join(here, WORKER_FILE), join(here, WORKER_FILE.replace(/\.mjs$/, '.js'))];
  for (let dir = here; ; dir = dirname(dir)) {
    candidates.push(join(dir, 'out', 'cli', WORKER_FILE));
    if (existsSync(join(dir, 'package.json')) || dirname(dir) === dir) break;
  }
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

interface Job {
  expression: string;
  signal: AbortSignal | undefined;
  settle: (outcome: CalcOutcome) => void;
}

/** One worker thread and the call it is running. */
class Slot {
  readonly worker: Worker;
  readonly ready: Promise<Failure | null>;
  private markReady!: (f: Failure | null) => void;
  private current: { id: number; settle: (o: CalcOutcome) => void } | null = null;
  private deathReason: Failure | null = null;
  exited = false;
  private started = false;
  readonly exitedPromise: Promise<void>;

  constructor(
    path: string | URL,
    resourceLimits: ResourceLimits,
    startupTimeoutMs: number,
    private readonly onDeath: (slot: Slot) => void,
  ) {
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    // No environment (API keys live there), no inherited loader flags: the worker needs only mathjs.
    this.worker = new Worker(path, { name: 'tidy-calculator', resourceLimits, env: {}, execArgv: [], argv: [] });
    this.worker.unref();
    const startup = setTimeout(() => this.kill(fail(`the calculator did not start within ${seconds(startupTimeoutMs)}`, 'try again in a moment')), startupTimeoutMs);
    startup.unref();
    this.exitedPromise = new Promise((resolve) => this.worker.once('exit', () => resolve()));

    this.worker.on('message', (raw: unknown) => {
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
    this.worker.on('error', (err: Error & { code?: string }) => {
      const message = clip(err.message, 300);
      this.deathReason ??=
        err.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? OUT_OF_MEMORY
          : this.started
            ? fail(`the calculator failed: ${message}`, 'try again: a fresh calculator is started for the next call')
            : fail(`the calculator could not start: ${message}`, `check that ${String(path)} exists (npm run build:cli builds it)`);
    });
    this.worker.once('exit', () => {
      clearTimeout(startup);
      this.exited = true;
      const reason = this.deathReason ?? CRASHED;
      this.markReady(reason);
      this.finish(reason);
      this.onDeath(this);
    });
  }

  /** Keeps the process alive while a call waits for this worker; idle workers never do. */
  hold(): void {
    if (!this.exited) this.worker.ref();
  }

  release(): void {
    if (!this.exited) this.worker.unref();
  }

  /** Sends one request; `settle` gets the answer, or the reason the worker died first. */
  send(request: CalcRequest, settle: (o: CalcOutcome) => void): void {
    this.current = { id: request.id, settle };
    this.hold();
    this.worker.postMessage(request);
  }

  /** Settles the running call with `outcome` and terminates the thread. */
  kill(reason: Failure): void {
    this.deathReason ??= reason;
    this.finish(reason);
    this.markReady(reason);
    void this.worker.terminate();
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
  const resourceLimits = { ...DEFAULTS.resourceLimits, ...options.resourceLimits };
  const workerPath = options.workerPath ?? defaultWorkerPath();
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
    const s = new Slot(workerPath, resourceLimits, startupTimeoutMs, (dead) => {
      if (slot === dead) slot = null;
    });
    options.onWorkerStart?.(s.worker);
    return s;
  }

  /** Terminates the worker running a call; a replacement starts warming up at once. */
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
      return fail(clip(`the calculator could not start: ${err instanceof Error ? err.message : String(err)}`, 300), 'try again later');
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
      s.send({ id: nextId++, expression: job.expression, maxResultChars }, settle);
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
