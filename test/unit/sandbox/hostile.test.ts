// Hostile expressions against one shared calculator: each gets a result or an error within 2 s, the
// main event loop keeps running, the process survives with bounded memory, and a normal calculation
// still works afterwards. The calculator runs in its own process, so "survives" is asserted twice:
// this process is still here, and the calculator's process was not lost to the attacks it refused.
import type { ChildProcess } from 'node:child_process';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCalculator, type Calculator, type CalcOutcome } from '../../../src-main/sandbox/calculator';

interface Case {
  expression: string;
  /** Escapes and disabled functions must fail; resource attacks may also end in a short result. */
  mustFail?: boolean;
  /** Refused by the size guards, so the calculator's process lives on (no out-of-memory, no kill). */
  refusedInPlace?: boolean;
}

const escape = (expression: string): Case => ({ expression, mustFail: true });
const attack = (expression: string): Case => ({ expression });
/** s is 655,360 characters and t holds 512 placeholders: print(t, {a: s}) is 335 million characters (issue 12). */
const GROW = 'grow(s, n) = n == 0 ? s : grow(concat(s, s), n - 1); s = grow("aaaaaaaaaa", 16); t = grow("$a", 9)';
/** Text of hundreds of millions of characters (or beyond V8's longest string) if it were written. */
const blowUp = (expression: string): Case => ({ expression: `${GROW}; ${expression}`, mustFail: true, refusedInPlace: true });

const HOSTILE: Case[] = [
  // Reaching constructors, prototypes and the host.
  escape('[].constructor.constructor("return process")()'),
  escape('cos.constructor'),
  escape('cos.constructor("return process")()'),
  escape('f(x) = x; f.constructor("return this")()'),
  escape('"abc".constructor'),
  escape('o = {}; o.__proto__.polluted = 1'),
  escape('o = {}; o["constructor"]["prototype"]["polluted"] = 1'),
  escape('sin.call(1)'),
  escape('sin.apply'),
  escape('x = 5 km; x.constructor'),
  escape('process'),
  escape('require("fs")'),
  escape('globalThis'),
  // Functions that alter mathjs or re-enter the parser.
  escape('import({}, {override: true})'),
  escape('import({sin: 1}, {override: true}); sin'),
  escape('createUnit("foo", "5 m")'),
  escape('evaluate("1 + 1")'),
  escape('parse("1 + 1")'),
  escape('compile("1 + 1")'),
  escape('simplify("x + x")'),
  escape('derivative("x^2", "x")'),
  escape('resolve("x", {x: 1})'),
  escape('reviver()'),
  escape('config({number: "BigNumber"})'),
  escape('typed("f", {"number": sin})'),
  escape('parser()'),
  escape('help("sin")'),
  escape('chain(3)'),
  // Method calls on values, which would bypass the size guards.
  escape('"x".repeat(5e8)'),
  escape('matrix([1, 2]).resize([1e9])'),
  escape('bignumber("1e100000000").toFixed()'),
  // Giant numbers, matrices, ranges, strings.
  attack('9^9^9^9'),
  attack('factorial(1e9)'),
  attack('factorial(bignumber(1e6))'),
  attack('bigint(2)^bigint(1e9)'),
  attack('leftShift(bigint(1), bigint(1e9))'),
  attack('zeros(1e5, 1e5)'),
  attack('zeros(1e8)'),
  attack('1:1e9'),
  attack('range("1:1e9")'),
  attack('a = [1]; a[1e8] = 1'),
  attack('ones(1e4, 1) + ones(1, 1e4)'),
  attack('kron(ones(1e4), ones(1e4))'),
  attack('identity(1e5)'),
  attack('random([1e8])'),
  attack('setPowerset(1:30)'),
  attack('map(ones(1e4, 1), ones(1, 1e4), f(a, b) = a + b)'),
  attack('string(ones(1000, 1000))'),
  attack('format(bignumber(2), 1e9)'),
  attack('format(bignumber("1e100000"), {notation: "fixed"})'),
  attack('f(s, n) = n == 0 ? s : f(concat(s, s), n - 1); f("aaaaaaaaaa", 40)'),
  attack('f(n) = n < 1 ? [1] : concat(f(n - 1), f(n - 1)); size(f(25))'),
  // Text blow-ups through every function that writes text (the print attack of issue 12 first).
  blowUp('print(t, {a: s}) == "x"'),
  blowUp('print(t, {a: s})'),
  blowUp('print(t, {a: [s]})'),
  blowUp('print(t, {a: {b: s}})'),
  blowUp('print(t, {a: s}, 5)'),
  blowUp('print("$a.", {a: [s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s]})'),
  blowUp('print(grow("$1", 9), [s])'),
  blowUp('format([s, s])'),
  blowUp('format({a: s, b: s})'),
  blowUp('format(matrix([s, s, s, s]))'),
  blowUp('f(x) = s; format(ones(1000), f)'),
  blowUp('format(ones(1000, 1000))'),
  blowUp('format(ones(100) * bignumber("1e100000"), {notation: "fixed"})'),
  blowUp('format(bignumber("1e9000000000000000"), {notation: "fixed"})'),
  blowUp('format(pi, {precision: bignumber(1e9)})'),
  blowUp('format(bignumber(2), bignumber(1e9))'),
  blowUp('x = lup(ones(60, 60) + identity(60)); format([x, x, x, x, x, x, x, x, x, x, x, x, x, x, x, x])'),
  blowUp('bin(bignumber("1e9000000000000000"))'),
  blowUp('oct(bignumber("1e100000000"))'),
  blowUp('hex(bignumber("1e100000000"))'),
  blowUp('concat(s, s)'),
  blowUp('string(range(0.5, 400000))'),
  // Large text that may exist, handed back whole: summarised, never written out whole.
  attack(`${GROW}; {a: s, b: s}`),
  attack(`${GROW}; [s, s, s]`),
  attack(`${GROW}; u = [s]; u[1]`),
  attack(`${GROW}; s == 1`),
  attack(`${GROW}; sum([{a: s, b: s}])`),
  attack(`${GROW}; string([s, s])`),
  // Many texts of allowed size at once: the heap limit ends the calculator's process, not this one.
  attack(`${GROW}; f(x) = concat(s, "x"); size(map(ones(1000), f))`),
  // Arrays whose empty axes hide their size.
  escape('size(zeros(1e8, 0))'),
  escape('size(zeros(0, 1e8, "sparse"))'),
  escape('size(reshape([], [1e8, 0]))'),
  escape('size(resize([], [1e8, 0]))'),
  escape('f(a, n) = n == 0 ? a : f(concat(a, a, 1), n - 1); size(f(zeros(1000, 0), 20))'),
  // Runaway work and recursion.
  attack('f(n) = n < 1 ? 0 : f(n - 1) + f(n - 1); f(40)'),
  attack('f(x) = f(x + 1); f(1)'),
  attack('A = ones(1000, 1000); A(1)'),
  // Nesting and size of the text itself.
  attack('('.repeat(4_999) + '1' + ')'.repeat(4_999)),
  attack('['.repeat(4_999) + '1' + ']'.repeat(4_999)),
  attack('-'.repeat(9_999) + '1'),
  attack('('.repeat(100_000) + '1' + ')'.repeat(100_000)),
  attack('1+'.repeat(500_000) + '1'),
  // Odd text.
  attack('２＋２'),
  attack('\u202E1 + 1'),
  attack('1\u00002'),
  attack('\uD800 + 1'),
  attack('🙂 + 1'),
  attack('\u200B1 + 1'),
  attack('"\\u0000" + 1'),
];

const MB = 1024 * 1024;
const RESOLUTION_MS = 10;

describe('calculator: hostile expressions', () => {
  let calc: Calculator;
  const started: ChildProcess[] = [];
  beforeAll(async () => {
    calc = createCalculator({ onWorkerStart: (child) => started.push(child) });
    await calc.calculate('1 + 1'); // warm: the baseline below includes one live calculator process
  });
  afterAll(() => calc.close());

  it(`contains ${HOSTILE.length} hostile expressions without blocking or crashing the main process`, async () => {
    expect(HOSTILE.length).toBeGreaterThanOrEqual(30);
    const baseline = process.memoryUsage();
    let peakRss = baseline.rss;
    const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
    const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    delay.enable();

    const slow: string[] = [];
    const outcomes: [string, CalcOutcome][] = [];
    const lost: string[] = [];
    for (const { expression, mustFail, refusedInPlace } of HOSTILE) {
      const shown = expression.startsWith(GROW) ? `(grow s, t)${expression.slice(GROW.length)}` : expression;
      const label = shown.length > 80 ? `${shown.slice(0, 80)}… (${expression.length} chars)` : shown;
      // The call before has left a calculator that answers (a replacement, if it was stopped): each
      // expression is timed on its own, not with the start of a process an earlier one cost.
      expect(await calc.calculate('2 + 3'), `the call before ${label}`).toEqual({ result: '5' });
      const processes = started.length;
      const t0 = performance.now();
      const outcome = await calc.calculate(expression);
      const took = performance.now() - t0;
      // A refused blow-up leaves the warm process in place; a replacement would start on the next call.
      if (refusedInPlace && (started.length !== processes || started.at(-1)!.exitCode !== null || started.at(-1)!.signalCode !== null)) lost.push(`${label}: ${JSON.stringify(outcome)}`);
      if (took > 2_000) slow.push(`${label}: ${Math.round(took)} ms`);
      outcomes.push([label, outcome]);
      if ('result' in outcome) {
        expect(mustFail, `${label} should fail but gave ${outcome.result}`).toBeFalsy();
        expect(outcome.result.length, label).toBeLessThanOrEqual(500);
      } else {
        expect(outcome, label).toEqual({ error: expect.any(String), hint: expect.any(String) });
        expect(outcome.error.length, label).toBeLessThanOrEqual(300);
      }
    }

    delay.disable();
    clearInterval(sampler);
    const after = process.memoryUsage();
    expect(slow, 'expressions that took longer than 2 s').toEqual([]);
    expect(lost, 'blow-ups that cost the calculator its process').toEqual([]);
    // The main thread only sends messages and starts or stops the calculator's process. The histogram counts each tick
    // of `resolution`, so lateness is a sample minus the resolution. The max also catches the OS
    // scheduling the main thread late on a busy 2-core machine; any evaluation on this thread (the
    // runaways run for a second) would push both far beyond these bounds.
    const late = (ns: number) => ns / 1e6 - RESOLUTION_MS;
    expect(late(delay.percentile(99)), 'event loop delay p99 (ms)').toBeLessThan(50);
    expect(late(delay.max), 'event loop delay max (ms)').toBeLessThan(150);
    // The calculator's heap is in its own process (capped by --max-old-space-size); this process only
    // holds the messages.
    expect((peakRss - baseline.rss) / MB, 'peak rss growth (MB)').toBeLessThan(400);
    expect((after.heapUsed - baseline.heapUsed) / MB, 'main heap growth (MB)').toBeLessThan(32);
    // Nothing leaked into the host: no result mentions the process or a JavaScript function.
    for (const [label, outcome] of outcomes) {
      if ('result' in outcome) expect(outcome.result, label).not.toMatch(/process|function|\[object/);
    }

    expect(await calc.calculate('15 * 25')).toEqual({ result: '375' });
    expect(await calc.calculate('o = {}; o.polluted')).toMatchObject({ error: 'the expression has no value' });
  }, 120_000);
});
