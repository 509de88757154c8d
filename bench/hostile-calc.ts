// The calculator part of the hostile suite, run as its own process by bench/hostile.ts so that an
// expression that takes the whole process down is counted (and the rest still tried) instead of ending
// the benchmark. Prints one JSON line per expression, then one with the main loop's largest delay.
// Usage: node --import tsx bench/hostile-calc.ts <first index>
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createCalculator } from '../src-main/sandbox/calculator';

const TEMPLATE = '$a'.repeat(1_000);

/** Expressions a model (or text injected into its context) could send; each must end in a result or an error. */
export const CALC_ATTACKS: string[] = [
  // Escapes.
  '[].constructor.constructor("return process")()',
  'cos.constructor("return process")()',
  'f(x) = x; f.constructor("return this")()',
  'o = {}; o.__proto__.polluted = 1',
  'import({}, {override: true})',
  'evaluate("1 + 1")',
  'createUnit("foo", "5 m")',
  '"x".repeat(5e8)',
  'process',
  'require("fs")',
  // Giant values.
  '9^9^9^9',
  'factorial(bignumber(1e6))',
  'bigint(2)^bigint(1e9)',
  'zeros(1e5, 1e5)',
  'zeros(1e8)',
  '1:1e9',
  'a = [1]; a[1e8] = 1',
  'kron(ones(1e4), ones(1e4))',
  'string(ones(1000, 1000))',
  'format(bignumber(2), 1e9)',
  'f(s, n) = n == 0 ? s : f(concat(s, s), n - 1); f("aaaaaaaaaa", 40)',
  // Strings built by print: the template multiplies the value's length.
  `t = "${TEMPLATE}"; s1 = print(t, {a: "xxxxxxxxxx"}); s2 = print(t, {a: s1}); size(s2)`,
  `t = "${TEMPLATE}"; s1 = print(t, {a: "xxxxxxxxxx"}); s2 = print(t, {a: s1}); s3 = print("${'$a'.repeat(50)}", {a: s2}); s3 == s3`,
  // Runaway work and recursion.
  'f(n) = n < 1 ? 0 : f(n - 1) + f(n - 1); f(40)',
  'f(x) = f(x + 1); f(1)',
  // Nesting and size of the text itself.
  '('.repeat(4_999) + '1' + ')'.repeat(4_999),
  '['.repeat(4_999) + '1' + ']'.repeat(4_999),
  '1+'.repeat(500_000) + '1',
  '\u202E1 + 1',
  '\uD800 + 1',
];

export interface CalcLine {
  index: number;
  ok: boolean;
  ms: number;
}

/**
 * Longer than the app's 1 s limit: a memory attack must be stopped by the sandbox's memory bounds, not
 * by the clock happening to run out first on a slow machine.
 */
export const CALC_TIMEOUT_MS = 3_000;

async function main(first: number): Promise<void> {
  const calc = createCalculator({ timeoutMs: CALC_TIMEOUT_MS });
  await calc.calculate('1 + 1');
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  for (let index = first; index < CALC_ATTACKS.length; index++) {
    const t0 = performance.now();
    const outcome = await calc.calculate(CALC_ATTACKS[index]!);
    const ok = ('result' in outcome && outcome.result.length <= 500) || ('error' in outcome && typeof outcome.hint === 'string');
    console.log(JSON.stringify({ index, ok, ms: performance.now() - t0 } satisfies CalcLine));
  }
  const after = await calc.calculate('15 * 25');
  delay.disable();
  console.log(JSON.stringify({ done: true, works: 'result' in after && after.result === '375', maxDelayMs: delay.max / 1e6 - 10 }));
  await calc.close();
}

if (process.argv[1]?.endsWith('hostile-calc.ts')) await main(Number(process.argv[2] ?? 0));
