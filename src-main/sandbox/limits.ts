// Size guards, checked before a function called from an expression runs.
//
// Why: the calculator runs in a child process with a bounded heap (calculator.ts), so an expression
// that runs out of memory ends only that process. But it should not get that far: a worker thread's
// resourceLimits did not contain one allocation larger than the heap (Node.js issue 47224), and a
// process that dies takes the calculator's warm start with it. So nothing an expression calls may
// create one large object: no matrix of more than a million values (counting the empty rows of
// `zeros(1e8, 0)`), no text of more than a million characters (measured by textsize.ts, as mathjs
// would write it), no integer of more than a million bits.
import type { MathJsInstance, Matrix } from 'mathjs';
import { largestDigitOption, type FormatRequest } from './text-bounds';
import { createTextSizes } from './textsize';

export const LIMITS = {
  /** Values in one matrix (8 MB of numbers). */
  elements: 1_000_000,
  /** Characters in one string. */
  textChars: 1_000_000,
  /** Bits in one big integer or fraction part (about 300,000 digits). */
  bits: 1_000_000,
  /** Digits or word size asked of a formatting function. */
  precision: 1_000,
};
export type SizeLimits = typeof LIMITS;

export class SizeLimitError extends Error {
  override name = 'SizeLimitError';
  constructor(
    readonly functionName: string,
    readonly what: string,
  ) {
    super(`${functionName}: ${what}`);
  }
}

/**
 * The template print works on: expressions call mathjs's print transform, which first turns one-based
 * positions into zero-based ones (`$1` into `$0`), as node_modules/mathjs/lib/esm/expression/transform/print.transform.js.
 */
function zeroBased(template: string): string {
  return template.replace(/\$([\w.]+)/g, (placeholder) =>
    '$' + placeholder.slice(1).split('.').map((part) => (part.length > 0 && !Number.isNaN(Number(part)) ? parseInt(part) - 1 : part)).join('.'),
  );
}

/** Thrown by the guard once a call runs past its deadline (the parent process normally stops it first). */
export class TimeLimitError extends Error {
  override name = 'TimeLimitError';
}

type Rule = (args: unknown[]) => number;

export interface CallGuard {
  /** Throws SizeLimitError when calling `name` with `args` would create something too large. */
  check(name: string, args: unknown[]): void;
  /**
   * From now on, every call after `at` (performance.now() time) throws TimeLimitError; undefined for
   * none. A backstop: if the app dies mid-call, a runaway stops here rather than running on unowned.
   */
  setDeadline(at: number | undefined): void;
}

const say = (n: number) => Math.round(n).toLocaleString('en');
const about = (n: number) => (Number.isFinite(n) ? `about ${say(n)}` : 'countless');

export function createCallGuard(math: MathJsInstance, limits: SizeLimits = LIMITS): CallGuard {
  const isCollection = (x: unknown): x is unknown[] | Matrix => Array.isArray(x) || math.isMatrix(x);

  const dims = (x: unknown): number[] => {
    if (math.isMatrix(x)) return x.size();
    const out: number[] = [];
    for (let level: unknown = x; Array.isArray(level); level = level[0]) out.push(level.length);
    return out;
  };
  /**
   * The slots a shape allocates: its values, or more when an axis is empty (`zeros(1e8, 0)` is 1e8
   * empty rows; a sparse 0×1e8 matrix has a column pointer per column).
   */
  const cells = (shape: number[]): number => {
    let prefix = 1;
    let most = shape.length === 0 ? 1 : 0;
    for (const n of shape) {
      const size = Math.max(0, Math.ceil(Math.abs(n)));
      prefix *= size;
      most = Math.max(most, prefix, size);
    }
    return Number.isNaN(most) ? Infinity : most;
  };
  const count = (x: unknown): number => (isCollection(x) ? cells(dims(x)) : 1);
  const eachValue = (x: unknown[] | Matrix, fn: (v: unknown) => void): void => {
    const walk = (level: unknown): void => {
      if (Array.isArray(level)) for (const item of level) walk(item);
      else fn(level);
    };
    walk(math.isMatrix(x) ? x.valueOf() : x);
  };

  const toNumber = (x: unknown): number => {
    if (typeof x === 'number') return x;
    if (typeof x === 'bigint') return Number(x);
    if (typeof x === 'boolean') return Number(x);
    if (math.isBigNumber(x)) return x.toNumber();
    if (math.isFraction(x)) return Number(x.valueOf());
    if (math.isUnit(x)) return x.value ?? NaN;
    return NaN;
  };

  /** The numbers of a size argument: a scalar, or a list of lengths (more than 64 axes counts as unlimited). */
  const numbersIn = (x: unknown): number[] => {
    if (!isCollection(x)) return Number.isNaN(toNumber(x)) ? [] : [toNumber(x)];
    if (count(x) > 64) return [Infinity];
    const flat: unknown[] = math.isMatrix(x) ? math.flatten(x).toArray() : x.flat(Infinity);
    return flat.map(toNumber).filter((n) => !Number.isNaN(n));
  };
  const product = cells;

  /** Elementwise functions broadcast their inputs: each axis is the longest among the inputs. */
  const broadcast: Rule = (args) => {
    if (!args.some(isCollection)) return 0;
    const shape: number[] = [];
    for (const arg of args) {
      const d = dims(arg);
      while (shape.length < d.length) shape.unshift(1);
      const offset = shape.length - d.length;
      d.forEach((n, i) => (shape[offset + i] = Math.max(shape[offset + i]!, n)));
    }
    return cells(shape);
  };
  const sumOfCounts: Rule = (args) => args.reduce<number>((n, a) => n + count(a), 0);
  const productOfCounts: Rule = (args) => args.reduce<number>((n, a) => n * count(a), 1);

  const rangeLength: Rule = (args) => {
    let parts = args.filter((a) => typeof a !== 'boolean').map(toNumber);
    if (typeof args[0] === 'string') {
      const p = args[0].split(':').map(Number);
      parts = p.length === 3 ? [p[0]!, p[2]!, p[1]!] : p;
    }
    const [start = 0, end = 0, step = 1] = parts;
    return step === 0 ? 0 : Math.abs((end - start) / step) + 1;
  };

  /** Upper bounds of the number of values each function creates, when not the broadcast shape. */
  const elementRules: Record<string, Rule> = {
    zeros: (args) => product(args.flatMap(numbersIn)),
    ones: (args) => product(args.flatMap(numbersIn)),
    identity: (args) => {
      const ns = args.flatMap(numbersIn);
      return ns.length === 1 ? product([ns[0]!, ns[0]!]) : product(ns);
    },
    random: (args) => (isCollection(args[0]) ? product(numbersIn(args[0])) : 1),
    randomInt: (args) => (isCollection(args[0]) ? product(numbersIn(args[0])) : 1),
    pickRandom: (args) => (typeof args[1] === 'number' ? args[1] : 1),
    resize: (args) => product(numbersIn(args[1])),
    reshape: (args) => Math.max(count(args[0]), product(numbersIn(args[1]))),
    matrixFromFunction: (args) => product(numbersIn(args[0])),
    range: rangeLength,
    diag: (args) => {
      const n = Math.max(0, ...dims(args[0]));
      const k = Math.abs(toNumber(args[1]) || 0);
      return (n + k) ** 2;
    },
    kron: productOfCounts,
    setCartesian: productOfCounts,
    setPowerset: (args) => 2 ** count(args[0]),
    concat: sumOfCounts,
    matrixFromRows: sumOfCounts,
    matrixFromColumns: sumOfCounts,
    freqz: (args) => (typeof args[2] === 'number' ? args[2] : count(args[2])),
    // Assigning `a[1e9] = 1` grows `a` to the farthest position the index reaches on each axis.
    index: (args) =>
      args.reduce<number>((reach, arg) => {
        if (typeof arg === 'string') return reach;
        let max = 0;
        if (isCollection(arg)) eachValue(arg, (v) => void (max = Math.max(max, toNumber(v) || 0)));
        else max = toNumber(arg) || 0;
        return reach * Math.max(1, Math.abs(max));
      }, 1),
  };

  const sizes = createTextSizes(math, () => limits.textChars);
  /** The options of a formatting call, refused when they ask for more digits than the limit. */
  const formatRequest = (name: string, options: unknown): FormatRequest => {
    const request = sizes.request(options);
    if (largestDigitOption(request) > limits.precision) throw new SizeLimitError(name, `the precision asked for is above ${say(limits.precision)} digits`);
    return request;
  };
  const inBase = (notation: string): Rule => (args) =>
    sizes.format(args[0], formatRequest(notation, args.length > 1 ? { notation, wordSize: args[1] } : { notation }));
  /** The characters of text each function creates. */
  const textRules: Record<string, Rule> = {
    concat: (args) => (args.every((a) => typeof a === 'string') ? args.reduce<number>((n, a) => n + (a as string).length, 0) : 0),
    format: (args) => sizes.format(args[0], formatRequest('format', args[1])),
    print: (args) => (typeof args[0] === 'string' ? sizes.print(zeroBased(args[0]), args[1], formatRequest('print', args[2])) : 0),
    string: (args) => sizes.string(args[0]),
    bin: inBase('bin'),
    oct: inBase('oct'),
    hex: inBase('hex'),
  };

  const bitsOf = (x: unknown): number => {
    if (typeof x === 'bigint') {
      if (x === 0n) return 0;
      const hex = (x < 0n ? -x : x).toString(16);
      return (hex.length - 1) * 4 + (32 - Math.clz32(parseInt(hex[0]!, 16)));
    }
    if (math.isFraction(x)) return bitsOf(x.n) + bitsOf(x.d);
    if (isCollection(x) && count(x) > 0) {
      const first = math.isMatrix(x) ? x.get(dims(x).map(() => 0)) : dims(x).reduce<unknown>((l) => (l as unknown[])[0], x);
      if (typeof first !== 'bigint' && !math.isFraction(first)) return 0;
      let total = 0;
      eachValue(x, (v) => void (total += bitsOf(v)));
      return total;
    }
    return 0;
  };
  const sumOfBits: Rule = (args) => args.reduce<number>((n, a) => n + bitsOf(a), 0);
  /** log2 of a big integer or fraction, so 2^n counts n bits rather than 2n. */
  const log2Of = (x: unknown): number => {
    if (typeof x === 'bigint') return x > -(2n ** 53n) && x < 2n ** 53n ? Math.log2(Math.max(2, Math.abs(Number(x)))) : bitsOf(x);
    if (math.isFraction(x)) return log2Of(x.n) + log2Of(x.d);
    return bitsOf(x);
  };
  const powerBits: Rule = (args) => log2Of(args[0]) * Math.abs(toNumber(args[1]) || 0);
  /** Upper bounds of the bits of a big integer or fraction each function creates. */
  const bitRules: Record<string, Rule> = {
    pow: powerBits,
    dotPow: powerBits,
    leftShift: (args) => (typeof args[0] === 'bigint' ? bitsOf(args[0]) + Math.abs(toNumber(args[1]) || 0) : 0),
    multiply: sumOfBits,
    dotMultiply: sumOfBits,
    prod: sumOfBits,
    lcm: sumOfBits,
  };

  let deadline: number | undefined;

  return {
    check(name, args) {
      if (deadline !== undefined && performance.now() > deadline) throw new TimeLimitError(`${name}: past the time limit`);
      const elements = (elementRules[name] ?? broadcast)(args);
      if (elements > limits.elements) {
        throw new SizeLimitError(name, `it would create ${about(elements)} values; the calculator allows ${say(limits.elements)}`);
      }
      const text = textRules[name]?.(args) ?? 0;
      if (text > limits.textChars) {
        throw new SizeLimitError(name, `it would create text of more than ${say(limits.textChars)} characters, the most the calculator allows`);
      }
      const bits = bitRules[name]?.(args) ?? 0;
      if (bits > limits.bits) {
        throw new SizeLimitError(name, `it would create a number of ${about(bits * Math.LOG10E * Math.LN2)} digits; the calculator allows ${say(limits.bits * Math.LOG10E * Math.LN2)}`);
      }
    },
    setDeadline(at) {
      deadline = at;
    },
  };
}
