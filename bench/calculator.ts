// Calculator sandbox benchmark: cold start, warm calls, and how fast a runaway, an out-of-memory or a
// cancelled call is contained. Needs the built worker (npm run build:cli).
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createCalculator } from '../src-main/sandbox/calculator';
import { median, report, time } from './util';

const RUNAWAY = 'f(n) = n < 1 ? 0 : f(n - 1) + f(n - 1); f(40)';
/** Issue 12: print(t, {a: s}) is 335 million characters. */
const PRINT_ATTACK = 'grow(s, n) = n == 0 ? s : grow(concat(s, s), n - 1); s = grow("aaaaaaaaaa", 16); t = grow("$a", 9); print(t, {a: s}) == "x"';
/** The same text, flattened by concat: one allocation larger than the heap once the size guards are raised. */
const OUT_OF_MEMORY = 'grow(s, n) = n == 0 ? s : grow(concat(s, s), n - 1); s = grow("aaaaaaaaaa", 16); t = grow("$a", 9); size(concat(print(t, {a: s}), "b"))';

/** Resident memory of a process in MB, where /proc tells it (Linux). */
function residentMb(pid: number | undefined): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function benchCalculator(): Promise<void> {
  console.log('Calculator sandbox (a child process per calculator)');

  const children: ChildProcess[] = [];
  let calc = createCalculator({ onWorkerStart: (child) => children.push(child) });
  const cold = await time(() => calc.calculate('15 * 25'));
  report('first call (starts the process, loads mathjs)', cold, 'ms');
  const rss = residentMb(children[0]?.pid);
  if (rss !== undefined) report('calculator process resident memory, warm', rss, ' MB');

  for (let i = 0; i < 200; i++) await calc.calculate(`${i} * 25 + sqrt(${i})`);
  const warm = await median(1_000, () => calc.calculate('15 * 25'));
  report('warm call median: 15 * 25', warm, 'ms', { max: 2, label: '2 ms' });
  const warmUnits = await median(500, () => calc.calculate('5 km to m'));
  report('warm call median: 5 km to m', warmUnits, 'ms', { max: 2, label: '2 ms' });
  const refused = await median(200, () => calc.calculate('zeros(1e8)'));
  report('warm call median: zeros(1e8), refused by the size guard', refused, 'ms', { max: 2, label: '2 ms' });
  const printRefused = await median(20, () => calc.calculate(PRINT_ATTACK));
  report('warm call median: the print attack, refused by the text guard', printRefused, 'ms', { max: 50, label: '50 ms' });

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const runaway = await time(() => calc.calculate(RUNAWAY));
  report('runaway stopped (time limit 1 s)', runaway, 'ms', { max: 1_100, label: '1.1 s' });
  const next = await time(() => calc.calculate('15 * 25'));
  report('next call after a runaway (replacement process)', next, 'ms');
  delay.disable();
  report('main event loop delay, max during the runaway', delay.max / 1e6 - 10, 'ms', { max: 50, label: '50 ms' });
  await calc.close();

  // Cold start again, a few times: one sample is mostly noise on a busy machine.
  const starts: number[] = [];
  for (let i = 0; i < 5; i++) {
    const fresh = createCalculator();
    starts.push(await time(() => fresh.calculate('15 * 25')));
    await fresh.close();
  }
  starts.sort((a, b) => a - b);
  report('cold start median of 5 (fork, load mathjs, first answer)', starts[2]!, 'ms');

  // A real out-of-memory: with the size guards raised, the print attack allocates beyond the heap
  // and V8 ends the calculator's process (in a worker thread it ended the app's).
  calc = createCalculator({ timeoutMs: 30_000, sizeLimits: { textChars: 1e12 } });
  await calc.calculate('1 + 1');
  const oomDelay = monitorEventLoopDelay({ resolution: 10 });
  oomDelay.enable();
  let oomOutcome = '';
  const oom = await time(async () => {
    const outcome = await calc.calculate(OUT_OF_MEMORY);
    oomOutcome = 'error' in outcome ? outcome.error : `result ${outcome.result}`;
  });
  report('out-of-memory contained (guards raised; answer is an error)', oom, 'ms');
  if (!/more memory/.test(oomOutcome)) console.log(`  (unexpected answer: ${oomOutcome})`);
  const afterOom = await time(() => calc.calculate('15 * 25'));
  oomDelay.disable();
  report('next call after an out-of-memory kill (replacement process)', afterOom, 'ms');
  report('main event loop delay, max during the out-of-memory', oomDelay.max / 1e6 - 10, 'ms', { max: 50, label: '50 ms' });
  await calc.close();

  calc = createCalculator({ timeoutMs: 10_000 });
  await calc.calculate('1 + 1');
  const controller = new AbortController();
  const pending = calc.calculate(RUNAWAY, controller.signal);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const cancel = await time(() => {
    controller.abort();
    return pending;
  });
  report('cancel a running call (abort → answer)', cancel, 'ms');
  await calc.close();
}
