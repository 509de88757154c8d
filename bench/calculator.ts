// Calculator sandbox benchmark: cold start, warm calls, and how fast a runaway or a cancelled call is
// contained. Needs the built worker (npm run build:cli).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createCalculator } from '../src-main/sandbox/calculator';
import { median, report, time } from './util';

const RUNAWAY = 'f(n) = n < 1 ? 0 : f(n - 1) + f(n - 1); f(40)';

export async function benchCalculator(): Promise<void> {
  console.log('Calculator sandbox');

  let calc = createCalculator();
  const cold = await time(() => calc.calculate('15 * 25'));
  report('first call (starts the worker, loads mathjs)', cold, 'ms');

  for (let i = 0; i < 200; i++) await calc.calculate(`${i} * 25 + sqrt(${i})`);
  const warm = await median(1_000, () => calc.calculate('15 * 25'));
  report('warm call median: 15 * 25', warm, 'ms', { max: 2, label: '2 ms' });
  const warmUnits = await median(500, () => calc.calculate('5 km to m'));
  report('warm call median: 5 km to m', warmUnits, 'ms', { max: 2, label: '2 ms' });
  const refused = await median(200, () => calc.calculate('zeros(1e8)'));
  report('warm call median: zeros(1e8), refused by the size guard', refused, 'ms', { max: 2, label: '2 ms' });

  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const runaway = await time(() => calc.calculate(RUNAWAY));
  report('runaway stopped (time limit 1 s)', runaway, 'ms', { max: 1_100, label: '1.1 s' });
  const next = await time(() => calc.calculate('15 * 25'));
  report('next call after a runaway (replacement worker)', next, 'ms');
  delay.disable();
  report('main event loop delay, max during the runaway', delay.max / 1e6 - 10, 'ms', { max: 50, label: '50 ms' });
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
