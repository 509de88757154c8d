import { performance } from 'node:perf_hooks';

/** Median of `runs` timings of fn, in milliseconds. */
export async function median(runs: number, fn: () => unknown): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

export async function time(fn: () => unknown): Promise<number> {
  const t0 = performance.now();
  await fn();
  return performance.now() - t0;
}

export const ms = (n: number): string => `${n.toFixed(n < 10 ? 2 : 1)} ms`;

/** One result line: figure, target and whether it is met. */
export function report(name: string, value: number, unit: string, target?: { max: number; label?: string }): void {
  const shown = unit === 'ms' ? ms(value) : `${value.toFixed(2)}${unit}`;
  const goal = target ? `  (target < ${target.label ?? target.max}: ${value < target.max ? 'met' : 'NOT met'})` : '';
  console.log(`  ${name.padEnd(58)} ${shown}${goal}`);
}
