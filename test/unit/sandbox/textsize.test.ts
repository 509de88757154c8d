// The text accounting of the sandbox (textsize.ts, limits.ts): every function that writes text is
// refused exactly when what it would write is over the limit, and before it writes it. Runs the
// locked-down mathjs in this process (the child process is tested in calculator.test.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MathJsInstance } from 'mathjs';
import { LIMITS, SizeLimitError } from '../../../src-main/sandbox/limits';
import { createLockedMath, type LockedMath } from '../../../src-main/sandbox/lockdown';
import { createTextSizes } from '../../../src-main/sandbox/textsize';

let locked: LockedMath;
const limits = { ...LIMITS };
const evaluate = (expression: string): unknown => locked.parse(expression).compile().evaluate(new Map());

beforeAll(() => {
  locked = createLockedMath(limits);
});
afterAll(() => {
  limits.textChars = LIMITS.textChars;
});

/** The characters of all strings in `value` (a string, or a matrix or array holding strings). */
function textIn(math: MathJsInstance, value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + textIn(math, v), 0);
  if (math.isMatrix(value)) return textIn(math, (value as { toArray(): unknown }).toArray());
  return 0;
}

/** Evaluates `call` under a text limit of `chars`: the characters it wrote, or the guard's refusal. */
function underLimit(setup: string, call: string, chars: number): number | SizeLimitError {
  limits.textChars = chars;
  try {
    const scope = new Map<string, unknown>();
    if (setup) locked.parse(setup).compile().evaluate(scope);
    const result = locked.parse(call).compile().evaluate(scope);
    return textIn(locked.math, result);
  } catch (err) {
    if (err instanceof SizeLimitError) return err;
    throw err;
  } finally {
    limits.textChars = LIMITS.textChars;
  }
}

describe('text accounting: each function is refused exactly at the limit', () => {
  // [setup evaluated first, the call measured]
  const cases: [string, string][] = [
    ['', 'format(1/3)'],
    ['', 'format(123456789)'],
    ['', 'format(-1e-300, {notation: "fixed"})'],
    ['', 'format(pi, {precision: 500, notation: "fixed"})'],
    ['', 'format(pi, bignumber(40))'],
    ['', 'format([1, 2.5; 3, 4])'],
    ['', 'format(ones(20, 30) * 1.25, 4)'],
    ['', 'format("a\\"b\\\\c\\n")'],
    ['', 'format({a: 1, b: "x", c: [1, 2]})'],
    ['', 'format(2 - 3i, {precision: 3})'],
    ['', 'format(5 kg * 3 m^2 / s^3 / A, {precision: 3})'],
    ['', 'format(bignumber("1.23e50"), {notation: "fixed"})'],
    ['', 'format([bignumber("1e300"), bignumber("-2e-300")], {notation: "fixed"})'],
    ['', 'format(bignumber(2)^200)'],
    ['', 'format(fraction(1, 7), {fraction: "decimal"})'],
    ['', 'format(fraction(22, 7))'],
    ['', 'format(bigint(2)^bigint(3000))'],
    ['', 'format(sparse([1, 0; 0, 2]))'],
    ['', 'format(lup([1, 2; 3, 4]))'],
    ['', 'format(index(1:3, 2))'],
    ['', 'format([true, null, fraction(1, 3), bignumber(2), 3 m])'],
    ['f(x) = concat(string(x), "!")', 'format([1, 2, 3], f)'],
    ['s = concat("ab", "cd")', 'format([s, s, s; s, s, s])'],
    ['', 'format(255, {notation: "bin", wordSize: 16})'],
    ['', 'bin(bignumber(2)^100)'],
    ['', 'oct(123456789)'],
    ['', 'hex(-1, 32)'],
    ['', 'print("$a and $b.c and $d. $x $0", {a: 1/3, b: {c: "txt"}, d: [[1, 2], [3, 4]]})'],
    ['', 'print("$0 $1 $2.length", ["a", 2, "xyz"])'],
    ['', 'print("$a..", {a: fraction(1, 3)})'],
    ['', 'print("$constructor $toString", {})'],
    ['', 'print("$a $a $a", {a: [1/3, 2/3]}, 5)'],
    ['s = concat("xy", "z")', 'print("$a$a$a$a$a", {a: s})'],
    ['', 'print("$a.b. $a.c.", {a: {b: sparse([1, 0; 0, 2]), c: matrix([1, 2])}})'],
    ['', 'print("$a. $b.", {a: [bignumber(-0), 2 + 3i, 5 m, fraction(1, 3)], b: {x: 1}})'],
    ['', 'format({s: bigint(-1), n: bigint(3), d: bigint(4)})'],
    ['s = "hello"', 'concat(s, s, s)'],
    ['', 'string([1, 2.5; 1/3, 4])'],
    ['', 'string(sparse([1, 0; 0, 2]))'],
    ['', 'string([fraction(1, 3), bignumber(2)^70, 5 m, true, null])'],
    ['', 'string(lup([1, 2; 3, 4]))'],
  ];

  it.each(cases)('%s; %s', (setup, call) => {
    const written = underLimit(setup, call, 1e9);
    expect(written).not.toBeInstanceOf(SizeLimitError);
    // string() creates one string per element and passes text through untouched: count what is new.
    const passedOn = call.startsWith('string(') ? textIn(locked.math, evaluate(`${setup ? `${setup}; ` : ''}${call.slice(7, -1)}`)) : 0;
    const size = (written as number) - passedOn;
    expect(size).toBeGreaterThan(0);
    expect(underLimit(setup, call, size)).not.toBeInstanceOf(SizeLimitError);
    const refused = underLimit(setup, call, size - 1);
    expect(refused).toBeInstanceOf(SizeLimitError);
    expect((refused as SizeLimitError).what).toBe(`it would create text of more than ${(size - 1).toLocaleString('en')} characters, the most the calculator allows`);
  });
});

describe('text accounting: blow-ups are refused before anything is built', () => {
  // Each would build hundreds of millions of characters (or a string past V8's maximum) if allowed.
  const setup = 'grow(s, n) = n == 0 ? s : grow(concat(s, s), n - 1); s = grow("aaaaaaaaaa", 16); t = grow("$a", 9)';
  let scope: Map<string, unknown>;
  beforeAll(() => {
    scope = new Map();
    locked.parse(setup).compile().evaluate(scope);
    scope.set('million', evaluate('ones(1000, 1000)'));
    scope.set('millionAndAHalf', evaluate('ones(1000, 1000) * 1.5'));
  });
  it.each([
    ['print(t, {a: s})', 'print'],
    ['print(t, {a: [s]})', 'print'],
    ['print(t, {a: {b: s}})', 'print'],
    ['print("$a.", {a: [s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s]})', 'print'],
    ['print(grow("$1", 9), [s])', 'print'],
    ['format([s, s])', 'format'],
    ['format({a: s, b: s})', 'format'],
    ['format(matrix([s, s, s, s]))', 'format'],
    ['f(x) = s; format(ones(1000), f)', 'format'],
    ['format(million)', 'format'],
    ['format(ones(100) * bignumber("1e100000"), {notation: "fixed"})', 'format'],
    ['format(bignumber("1e9000000000000000"), {notation: "fixed"})', 'format'],
    ['format(bignumber(2), bignumber(1e9))', 'format'],
    ['format(pi, {precision: bignumber(1e9)})', 'format'],
    ['bin(bignumber("1e9000000000000000"))', 'bin'],
    ['hex(bignumber("1e100000000"))', 'hex'],
    ['concat(s, s)', 'concat'],
    ['string(millionAndAHalf)', 'string'],
    ['string(range(0.5, 400000))', 'string'],
    ['x = lup(ones(60, 60) + identity(60)); format([x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x])', 'format'],
  ])('%s', (call, fn) => {
    const code = locked.parse(call).compile();
    // CPU time, not wall time: a loaded machine's scheduler does not count, writing the text would.
    const cpu0 = process.cpuUsage();
    let thrown: unknown;
    try {
      code.evaluate(new Map(scope));
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SizeLimitError);
    expect((thrown as SizeLimitError).functionName).toBe(fn);
    const cpu = process.cpuUsage(cpu0);
    expect((cpu.user + cpu.system) / 1000, 'refused without writing the text (CPU ms)').toBeLessThan(1_000);
  });
});

describe('element accounting: empty axes count their rows', () => {
  it.each(['zeros(1e8, 0)', 'zeros(0, 1e8, "sparse")', 'ones([1e8, 0])', 'reshape([], [1e8, 0])', 'resize([], [1e8, 0])', 'identity(0, 1e8, "sparse")', 'concat(zeros(6e5, 0), zeros(6e5, 0))'])(
    '%s is refused',
    (call) => {
      expect(() => evaluate(call)).toThrow(SizeLimitError);
    },
  );

  it('still allows a million values', () => {
    expect(locked.math.size(evaluate('zeros(1000, 1000)') as never).valueOf()).toEqual([1000, 1000]);
    expect(locked.math.size(evaluate('zeros(1e6, 0)') as never).valueOf()).toEqual([1_000_000, 0]);
  });
});

describe('text accounting: numbers', () => {
  it('counts exactly what format writes, for numbers of every size and each notation', () => {
    const math = locked.math;
    let limit = 0;
    const sizes = createTextSizes(math, () => limit);
    // A fixed seed: the same values on every run.
    let seed = 12345;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const number = () => {
      const kind = random();
      if (kind < 0.2) return Math.round((random() - 0.5) * 1e6);
      if (kind < 0.25) return [0, -0, 5e-324, -Number.MAX_VALUE, 1e21, 120000, 0.1 + 0.2][Math.floor(random() * 7)]!;
      return (random() - 0.5) * 10 ** Math.floor(random() * 620 - 310);
    };
    const options: unknown[] = [undefined, { notation: 'fixed' }, { notation: 'exponential' }, { notation: 'engineering' }, { precision: 3 }, 5, { lowerExp: -10, upperExp: 20 }, { notation: 'fixed', precision: 2 }];
    for (let round = 0; round < 300; round++) {
      const values = Array.from({ length: 1 + Math.floor(random() * 20) }, number);
      const option = options[round % options.length];
      const request = sizes.request(option);
      const text = option === undefined ? math.format(values) : math.format(values, option as number);
      limit = text.length;
      expect(sizes.format(values, request), `${text} fits`).toBeLessThanOrEqual(text.length);
      limit = text.length - 1;
      expect(sizes.format(values, request), `${text} is over by one`).toBeGreaterThan(text.length - 1);
    }
  });
});
