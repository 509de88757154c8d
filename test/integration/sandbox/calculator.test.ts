// The calculator client and its process: arithmetic, plain-word failures, summaries, and the life of
// the process (lazy start, reuse, timeout, death, out of memory, cancellation, queue, close). Runs the
// built worker script (out/cli/calc-worker.mjs, built by the global setup).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleDir } from '../../../src-main/bundle-dir';
import { createCalculator, defaultWorkerPath, workerEnvironment, type Calculator, type CalcOutcome } from '../../../src-main/sandbox/calculator';

const REPO = join(import.meta.dirname, '..', '..', '..');
const RUNAWAY = 'f(n) = n < 1 ? 0 : f(n - 1) + f(n - 1); f(40)';
/** From issue 12: s is 655,360 characters, t holds 512 placeholders; print(t, {a: s}) is 335 million characters. */
const PRINT_ATTACK_SETUP = 'grow(s, n) = n == 0 ? s : grow(concat(s, s), n - 1); s = grow("aaaaaaaaaa", 16); t = grow("$a", 9)';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const resultOf = (o: CalcOutcome) => ('result' in o ? o.result : `error: ${o.error}`);

/** A calculator that records the processes it starts. */
function tracked(options: Parameters<typeof createCalculator>[0] = {}): { calc: Calculator; workers: ChildProcess[] } {
  const workers: ChildProcess[] = [];
  return { calc: createCalculator({ ...options, onWorkerStart: (w) => workers.push(w) }), workers };
}

describe('calculator: answers', () => {
  let calc: Calculator;
  beforeAll(() => {
    calc = createCalculator();
  });
  afterAll(() => calc.close());

  it.each([
    ['15 * 25', '375'],
    ['2^10', '1024'],
    ['sqrt(16)', '4'],
    ['10 / 4', '2.5'],
    ['0.1 + 0.2', '0.3'],
    ['1 / 3', '0.33333333333333'],
    ['(2 + 3) * 4', '20'],
    ['round(pi, 3)', '3.142'],
    ['log(100, 10)', '2'],
    ['sqrt(-4)', '2i'],
    ['5 km to m', '5000 m'],
    ['2 inch to cm', '5.08 cm'],
    ['90 minute to hour', '1.5 hour'],
    ['200 - 10%', '180'],
    ['50%', '0.5'],
    ['a = 2; a * 3', '6'],
    ['f(x) = x^2; f(3)', '9'],
    ['[1, 2; 3, 4] * [5; 6]', '[[17], [39]]'],
    ['det([1, 2; 3, 4])', '-2'],
    ['map([1, 4, 9], sqrt)', '[1, 2, 3]'],
    ['2 > 1', 'true'],
    ['concat("ab", "cd")', 'abcd'],
    ['fraction(1, 3) + fraction(1, 6)', '1/2'],
    ['bignumber(1) / 3', '0.3333333333333333333333333333333333333333333333333333333333333333'],
  ])('%s = %s', async (expression, expected) => {
    expect(await calc.calculate(expression)).toEqual({ result: expected });
  });

  it.each([
    ['1/0', /^division by zero gives Infinity$/],
    ['a = 0; 5 / a', /^division by zero gives Infinity$/],
    ['0/0', /^division by zero gives NaN/],
    ['9^9^9^9', /too large to represent/],
    ['log(0)', /Infinity/],
    ['foo + 1', /^unknown name "foo"$/],
    ['foo(1)', /^unknown function "foo"$/],
    ['1 +', /^the expression cannot be read/],
    ['(1 + 2', /^the expression cannot be read/],
    ['sin', /is a function, not a value/],
    ['a = 2;', /has no value/],
    ['5 km + 3 kg', /units do not match/],
    ['', /^the expression is empty$/],
    ['   ', /^the expression is empty$/],
    ['x = ones(2); x.map(sqrt)', /^method calls such as \.map\(\.\.\.\) are not available/],
    ['zeros(1e8)', /^the result would be too large: it would create about 100,000,000 values; the calculator allows 1,000,000 \(in zeros\)$/],
    ['ones(1e4, 1) .* ones(1, 1e4)', /about 100,000,000 values.*\(in dotMultiply\)$/],
    ['a = [1]; a[1e7] = 1', /\(in index\)$/],
    ['bigint(2)^bigint(1e7)', /a number of about 3,010,300 digits/],
  ])('%s fails with a plain explanation', async (expression, error) => {
    const outcome = await calc.calculate(expression);
    expect(outcome).toMatchObject({ error: expect.stringMatching(error), hint: expect.any(String) });
    expect('hint' in outcome && outcome.hint.length).toBeGreaterThan(10);
  });

  it('summarises large values instead of dumping them', async () => {
    const matrix = resultOf(await calc.calculate('zeros(1000, 1000)'));
    expect(matrix).toBe('matrix 1000×1000 (first values: 0, 0, 0, 0, 0, 0, 0, 0, …)');
    expect(resultOf(await calc.calculate('1:1000'))).toBe('list of 1000 values (first values: 1, 2, 3, 4, 5, 6, 7, 8, …)');
    const big = resultOf(await calc.calculate('bigint(2)^bigint(10000)'));
    expect(big).toMatch(/^integer with 3011 digits: 19950631168807583848…\d{10} \(about 1\.99506e\+3010\)$/);
    expect(resultOf(await calc.calculate('ones(100) * 1.2345678'))).toBe('list of 100 values (first values: 1.2345678, 1.2345678, 1.2345678, 1.2345678, 1.2345678, 1.2345678, 1.2345678, 1.2345678, …)');
    const text = resultOf(await calc.calculate(`"${'a'.repeat(600)}"`));
    expect(text).toMatch(/^a+… \(600 characters in total\)$/);
    expect(text.length).toBe(500);
    // Values holding large text are described, not written out and cut.
    expect(resultOf(await calc.calculate(`${PRINT_ATTACK_SETUP}; [s, s]`))).toBe(
      'list of 2 values (first values: "aaaaaaaaaaaa…" (655,360 characters), "aaaaaaaaaaaa…" (655,360 characters))',
    );
    expect(resultOf(await calc.calculate(`${PRINT_ATTACK_SETUP}; {a: s, b: 1}`))).toBe('Object too large to show: its text would be more than 100,000 characters');
    expect(await calc.calculate(`${PRINT_ATTACK_SETUP}; s == 1`)).toMatchObject({ error: 'the expression could not be evaluated (its error message is 655,389 characters long)' });
  });

  it('keeps nothing from one call to the next', async () => {
    expect(await calc.calculate('secret = 42')).toEqual({ result: '42' });
    expect(await calc.calculate('secret')).toMatchObject({ error: 'unknown name "secret"' });
  });

  it('has every function beyond arithmetic disabled', async () => {
    const disabled = ['import', 'createUnit', 'reviver', 'replacer', 'evaluate', 'parse', 'compile', 'parser', 'simplify', 'simplifyConstant', 'simplifyCore', 'rationalize', 'derivative', 'resolve', 'symbolicEqual', 'leafCount', 'help', 'config', 'typed'];
    for (const name of disabled) {
      const outcome = await calc.calculate(`${name}("1 + 1")`);
      expect(outcome, name).toEqual(expect.objectContaining({ error: `the function ${name} is not available in the calculator` }));
    }
    // chain is not even visible to expressions.
    expect(await calc.calculate('chain(3)')).toMatchObject({ error: 'unknown function "chain"' });
  });
});

describe('calculator: limits and lifecycle', () => {
  it('refuses over-long expressions before any worker starts', async () => {
    // The time limit is not under test here: a 9,999-character expression may take over the default 1 s on a
    // loaded machine.
    const { calc, workers } = tracked({ timeoutMs: 30_000 });
    const long = '1+'.repeat(5_000) + '1'; // 10,001 characters
    expect(await calc.calculate(long)).toMatchObject({ error: 'the expression is too long (10001 characters; the limit is 10000)' });
    expect(await calc.calculate('1'.repeat(1_000_000))).toMatchObject({ error: expect.stringMatching(/too long/) });
    expect(workers).toHaveLength(0);
    expect(await calc.calculate('1+'.repeat(4_999) + '1')).toEqual({ result: '5000' }); // 9,999 characters
    expect(workers).toHaveLength(1);
    await calc.close();
  });

  it('starts one worker lazily and reuses it between calls', async () => {
    const { calc, workers } = tracked();
    expect(workers).toHaveLength(0);
    const answers = await Promise.all(['1 + 1', '2 * 2', '3^2', 'sqrt(16)'].map((e) => calc.calculate(e)));
    expect(answers.map(resultOf)).toEqual(['2', '4', '9', '4']);
    expect(await calc.calculate('6 * 7')).toEqual({ result: '42' });
    expect(workers).toHaveLength(1);
    await calc.close();
  });

  it('stops a runaway expression at the time limit and replaces the worker', async () => {
    const { calc, workers } = tracked({ timeoutMs: 300 });
    await calc.calculate('1 + 1');
    const t0 = performance.now();
    const outcome = await calc.calculate(RUNAWAY);
    const took = performance.now() - t0;
    expect(outcome).toEqual({ error: 'expression took longer than 300 ms and was stopped', hint: expect.any(String) });
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1_000);
    expect(await calc.calculate('2 + 2')).toEqual({ result: '4' });
    expect(workers).toHaveLength(2);
    await calc.close();
  });

  it('says "1 s" with the default time limit', async () => {
    const calc = createCalculator();
    expect(await calc.calculate(RUNAWAY)).toMatchObject({ error: 'expression took longer than 1 s and was stopped' });
    await calc.close();
  });

  it('gives an error when the worker dies mid-call, and a fresh worker to the next call', async () => {
    const { calc, workers } = tracked({ timeoutMs: 10_000 });
    await calc.calculate('1 + 1');
    const pending = calc.calculate(RUNAWAY);
    await sleep(100);
    workers[0]!.kill('SIGKILL');
    expect(await pending).toEqual({ error: 'the calculator stopped unexpectedly', hint: expect.stringMatching(/try again/) });
    expect(await calc.calculate('2 + 2')).toEqual({ result: '4' });
    expect(workers).toHaveLength(2);
    expect(workers[1]).not.toBe(workers[0]);
    await calc.close();
  });

  it('turns a heap that fills up gradually into an error and carries on', async () => {
    const { calc, workers } = tracked({ heapMb: 32, timeoutMs: 30_000 }); // memory is under test, not time
    const hog = 'a = ones(1e6); b = ones(1e6); c = ones(1e6); d = ones(1e6); e1 = ones(1e6); f = ones(1e6); size(f)';
    expect(await calc.calculate(hog)).toMatchObject({ error: 'expression needed more memory than the calculator allows and was stopped' });
    expect(await calc.calculate('15 * 25')).toEqual({ result: '375' });
    expect(workers).toHaveLength(2);
    await calc.close();
  });

  it('keeps a real out-of-memory inside the calculator: the print attack with the size guards raised', async () => {
    // With the guards out of the way, print builds a 335-million-character text and concat flattens
    // it: one allocation larger than the whole heap, which V8 answers by ending the process. In a
    // worker thread that was the app's process (exit 134); here it is only the calculator's.
    const { calc, workers } = tracked({ timeoutMs: 30_000, sizeLimits: { textChars: 1e12 } });
    expect(await calc.calculate('15 * 25')).toEqual({ result: '375' });
    expect(await calc.calculate(`${PRINT_ATTACK_SETUP}; size(concat(print(t, {a: s}), "b"))`)).toEqual({
      error: 'expression needed more memory than the calculator allows and was stopped',
      hint: 'use smaller matrices, ranges or numbers',
    });
    expect(workers[0]!.signalCode ?? workers[0]!.exitCode).not.toBe(0);
    expect(await calc.calculate('15 * 25')).toEqual({ result: '375' });
    expect(workers).toHaveLength(2);
    await calc.close();
  });

  it('refuses the print attack from the issue before it writes anything, and carries on', async () => {
    const { calc, workers } = tracked();
    for (const attack of [`${PRINT_ATTACK_SETUP}; print(t, {a: s}) == "x"`, `${PRINT_ATTACK_SETUP}; size(concat(print(t, {a: s}), "b"))`]) {
      expect(await calc.calculate(attack)).toEqual({
        error: 'the result would be too large: it would create text of more than 1,000,000 characters, the most the calculator allows (in print)',
        hint: expect.any(String),
      });
    }
    expect(await calc.calculate('15 * 25')).toEqual({ result: '375' });
    expect(workers).toHaveLength(1); // refused, not crashed
    await calc.close();
  });

  it('starts the calculator with an empty environment, a bounded heap and no code generation', async () => {
    const { calc, workers } = tracked();
    expect(await calc.calculate('1 + 1')).toEqual({ result: '2' });
    const child = workers[0]!;
    expect(child.spawnargs).toEqual(expect.arrayContaining(['--max-old-space-size=128', '--disallow-code-generation-from-strings']));
    if (process.platform === 'linux') {
      // Only the variables fork adds for the IPC channel itself.
      const names = readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0').filter(Boolean).map((v) => v.split('=')[0]);
      expect(names.filter((name) => !name!.startsWith('NODE_CHANNEL_'))).toEqual([]);
    }
    await calc.close();
  });

  it('runs the Electron binary as Node in the desktop app, and passes nothing else', () => {
    expect(workerEnvironment({ ...process.versions, electron: '45.4.1' })).toEqual({ ELECTRON_RUN_AS_NODE: '1' });
    const { electron: _none, ...node } = process.versions as NodeJS.ProcessVersions & { electron?: string };
    expect(workerEnvironment(node as NodeJS.ProcessVersions)).toEqual({});
  });

  it('stops a runaway by itself, and exits, when the app dies mid-call', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidy-calc-'));
    try {
      // The app starts a runaway with a 1 s limit and is killed at once: nobody is left to stop the
      // calculator, which must notice by itself (its own deadline, then the closed channel).
      const script = join(dir, 'orphan.mts');
      const source = pathToFileURL(join(REPO, 'src-main', 'sandbox', 'calculator.ts')).href;
      writeFileSync(
        script,
        `import { createCalculator } from '${source}';
const calc = createCalculator({ timeoutMs: 1000, onWorkerStart: (c) => console.log('pid', c.pid) });
await calc.calculate('1 + 1');
void calc.calculate(${JSON.stringify(RUNAWAY)});
setTimeout(() => process.kill(process.pid, 'SIGKILL'), 300);
`,
      );
      const app = spawn(process.execPath, ['--import', 'tsx', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      app.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      await new Promise((resolve) => app.once('exit', resolve));
      const pid = Number(/pid (\d+)/.exec(out)?.[1]);
      expect(pid).toBeGreaterThan(0);
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      const t0 = performance.now();
      while (alive() && performance.now() - t0 < 10_000) await sleep(50);
      const orphaned = alive();
      if (orphaned) process.kill(pid, 'SIGKILL');
      expect(orphaned, 'calculator process still running after the app died').toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('cancels a running call by terminating its worker', async () => {
    const { calc, workers } = tracked({ timeoutMs: 10_000 });
    await calc.calculate('1 + 1');
    const controller = new AbortController();
    const t0 = performance.now();
    const pending = calc.calculate(RUNAWAY, controller.signal);
    setTimeout(() => controller.abort(), 100);
    expect(await pending).toMatchObject({ error: 'the calculation was cancelled' });
    expect(performance.now() - t0, 'cancelled, not stopped at the 10 s time limit').toBeLessThan(5_000);
    expect(await calc.calculate('2 + 2')).toEqual({ result: '4' });
    expect(workers).toHaveLength(2);
    await calc.close();
  });

  it('cancels a queued call without touching the running one', async () => {
    const { calc, workers } = tracked({ timeoutMs: 500 });
    await calc.calculate('1 + 1');
    const running = calc.calculate(RUNAWAY);
    const controller = new AbortController();
    const queued = calc.calculate('2 + 2', controller.signal);
    const after = calc.calculate('3 + 3');
    const settled: string[] = [];
    void queued.then(() => settled.push('queued'));
    void running.then(() => settled.push('running'));
    controller.abort();
    expect(await queued).toMatchObject({ error: 'the calculation was cancelled' });
    expect(settled, 'the queued call ends at once, before the running one reaches its time limit').toEqual(['queued']);
    expect(await running).toMatchObject({ error: expect.stringMatching(/took longer than 500 ms/) });
    expect(await after).toEqual({ result: '6' });
    expect(workers).toHaveLength(2);
    await calc.close();
  });

  it('answers an already aborted signal without starting a worker', async () => {
    const { calc, workers } = tracked();
    expect(await calc.calculate('1 + 1', AbortSignal.abort())).toMatchObject({ error: 'the calculation was cancelled' });
    expect(workers).toHaveLength(0);
    await calc.close();
  });

  it('close ends pending calls and refuses later ones', async () => {
    const { calc, workers } = tracked({ timeoutMs: 10_000 });
    await calc.calculate('1 + 1');
    const running = calc.calculate(RUNAWAY);
    const queued = calc.calculate('2 + 2');
    await sleep(50);
    await calc.close();
    expect(await running).toMatchObject({ error: 'the calculator is closed' });
    expect(await queued).toMatchObject({ error: 'the calculator is closed' });
    expect(await calc.calculate('3 + 3')).toMatchObject({ error: 'the calculator is closed' });
    expect(workers[0]!.exitCode !== null || workers[0]!.signalCode !== null).toBe(true); // exited
    await calc.close();
  });

  it('reports a missing worker file as an error', async () => {
    const calc = createCalculator({ workerPath: join(tmpdir(), 'no-such-dir', 'calc-worker.mjs') });
    expect(await calc.calculate('1 + 1')).toMatchObject({ error: expect.stringMatching(/^the calculator could not start/), hint: expect.stringMatching(/build:cli/) });
    await calc.close();
  });

  it('reports a worker that fails to load with the error it printed', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidy-calc-'));
    try {
      const broken = join(dir, 'calc-worker.mjs');
      writeFileSync(broken, "throw new TypeError('mathjs is missing');\n");
      const calc = createCalculator({ workerPath: broken });
      expect(await calc.calculate('1 + 1')).toEqual({
        error: 'the calculator could not start: TypeError: mathjs is missing',
        hint: expect.stringMatching(/build:cli/),
      });
      await calc.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("finds the built worker from the sources (the package's out/cli) and beside the CLI bundle's entry", () => {
    const built = join(REPO, 'out', 'cli', 'calc-worker.mjs');
    expect(bundleDir()).toBe(join(REPO, 'out', 'cli'));
    expect(defaultWorkerPath()).toBe(built);
    expect(defaultWorkerPath(join(REPO, 'out', 'cli'))).toBe(built);
  });

  it("takes the worker beside the app bundle's entry (calc-worker.js), else names the CLI's", () => {
    const pkg = mkdtempSync(join(tmpdir(), 'tidy-calc-pkg-'));
    try {
      const main = join(pkg, 'out', 'main');
      mkdirSync(main, { recursive: true });
      expect(defaultWorkerPath(main)).toBe(join(main, 'calc-worker.mjs'));
      writeFileSync(join(main, 'calc-worker.js'), '');
      expect(defaultWorkerPath(main)).toBe(join(main, 'calc-worker.js'));
    } finally {
      rmSync(pkg, { recursive: true, force: true });
    }
  });

  it('does not keep the process alive while the calculator is idle, and ends with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tidy-calc-'));
    try {
      const script = join(dir, 'idle.mts');
      const source = pathToFileURL(join(REPO, 'src-main', 'sandbox', 'calculator.ts')).href;
      writeFileSync(
        script,
        `import { createCalculator } from '${source}';\nconst calc = createCalculator({ onWorkerStart: (c) => console.log(c.pid) });\nconsole.log(JSON.stringify(await calc.calculate('6 * 7')));\n`,
      );
      const run = spawnSync(process.execPath, ['--import', 'tsx', script], { cwd: REPO, encoding: 'utf8', timeout: 20_000 });
      const [pid, answer] = run.stdout.trim().split('\n');
      expect(answer).toBe('{"result":"42"}');
      expect(run.status).toBe(0);
      // The calculator's process sees its channel close and exits too.
      const t0 = performance.now();
      let alive = true;
      while (alive && performance.now() - t0 < 5_000) {
        try {
          process.kill(Number(pid), 0);
          await sleep(50);
        } catch {
          alive = false;
        }
      }
      expect(alive, 'calculator process left running after the app exited').toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
