// How many characters mathjs's text functions would build, worked out before they build it.
//
// Why: one large string is one large allocation, and V8 ends the whole process (not just the
// sandbox's heap) when a single allocation cannot fit. A guard that counted each value given to print
// as 24 characters let a 10 KB expression build a 500-million-character string. Each measure
// here follows the mathjs code it stands for (node_modules/mathjs/lib/esm/utils/string.js `format`,
// function/string/print.js, type/string.js and the format/toString methods of each type), so what it
// counts is what mathjs would build.
//
// Cheap bounds first, so that neither an answer nor a refusal usually needs anything formatted: an
// upper bound for every leaf value (a number formats to at most 49 characters with default options)
// accepts; a lower bound (its significant digits, the brackets and separators) refuses. Only a total
// between the two formats each leaf for its exact length, so a loose bound never decides. Every pass
// stops as soon as the running total passes the limit.
import type { Complex, Fraction, MathJsInstance, Matrix, Unit } from 'mathjs';
import { bigintDigits, escapedLength, numberBound, numberLower, type FormatRequest } from './text-bounds';

export interface TextSizes {
  /** The options of format(value, options), normalised as mathjs does (a BigNumber precision is a number). */
  request(options: unknown): FormatRequest;
  /** Characters of format(value, options); `max` replaces the limit for this measure. */
  format(value: unknown, request: FormatRequest, max?: number): number;
  /** Characters of print(template, values, options). */
  print(template: string, values: unknown, request: FormatRequest): number;
  /** Characters of all the strings string(value) creates (one per element of a matrix). */
  string(value: unknown): number;
}

// Sentinels thrown through a measure: over the limit, or a bound that cannot be known without formatting.
const OVER = Symbol('over the limit');
const NEEDS_EXACT = Symbol('needs the exact pass');

/** upper and lower bound the text without formatting leaves; exact formats them. */
type Pass = 'upper' | 'lower' | 'exact';

const DEFAULT_REQUEST: Omit<FormatRequest, 'raw'> = {
  notation: 'auto',
  precision: undefined,
  wordSize: undefined,
  lowerExp: -3,
  upperExp: 5,
  decimalFractions: false,
};

/** mathjs's own test for a fraction (utils/string.js looksLikeFraction): three bigints s, n and d. */
const looksLikeFraction = (x: unknown): boolean => {
  const f = x as { s?: unknown; n?: unknown; d?: unknown } | null;
  return typeof f === 'object' && f !== null && typeof f.s === 'bigint' && typeof f.n === 'bigint' && typeof f.d === 'bigint';
};

const isPlainObject = (x: unknown): x is Record<string, unknown> =>
  typeof x === 'object' && x !== null && (x as { constructor?: unknown }).constructor === Object;

interface BigNumberLike {
  d?: number[];
  e: number;
  isFinite(): boolean;
  toString(): string;
  valueOf(): string;
}
interface UnitPart {
  unit: { name: string };
  prefix: { name: string };
  power: number;
}
interface SparseInternals {
  _size: number[];
  _ptr: number[];
  _index: number[];
  _values?: unknown[];
}

export function createTextSizes(math: MathJsInstance, limit: () => number): TextSizes {
  const toNumber = (x: unknown): number | undefined => {
    if (typeof x === 'number') return x;
    if (math.isBigNumber(x)) return x.toNumber();
    return undefined;
  };

  /** mathjs's own format, which refuses an explicit `undefined` for the options. */
  const write = (value: unknown, r: FormatRequest): string =>
    r.raw === undefined ? math.format(value) : math.format(value, r.raw as Parameters<MathJsInstance['format']>[1]);

  function request(options: unknown): FormatRequest {
    if (options === undefined) return { raw: options, ...DEFAULT_REQUEST };
    if (typeof options === 'function') return { raw: options, ...DEFAULT_REQUEST, callback: options as (v: unknown) => unknown };
    if (typeof options === 'number' || math.isBigNumber(options)) return { raw: options, ...DEFAULT_REQUEST, precision: toNumber(options) };
    if (typeof options !== 'object' || options === null) return { raw: options, ...DEFAULT_REQUEST };
    const o = options as Record<string, unknown>;
    return {
      raw: options,
      notation: typeof o.notation === 'string' && o.notation !== '' ? o.notation : 'auto',
      precision: toNumber(o.precision),
      wordSize: toNumber(o.wordSize),
      lowerExp: toNumber(o.lowerExp) ?? DEFAULT_REQUEST.lowerExp,
      upperExp: toNumber(o.upperExp) ?? DEFAULT_REQUEST.upperExp,
      decimalFractions: o.fraction === 'decimal',
    };
  }

  /** One walk over a value, adding characters to `total` and stopping once it passes `max`. */
  class Count {
    total = 0;
    constructor(
      readonly max: number,
      readonly pass: Pass,
    ) {}

    add(n: number): void {
      this.total += Number.isNaN(n) ? Infinity : n;
      if (this.total > this.max) throw OVER;
    }

    /**
     * One leaf value: `upper` or `lower` in those passes, else the length of what `write()` returns.
     * Formatting is skipped only for a leaf so large (a BigNumber of millions of digits in fixed
     * notation) that its text is beyond the limit too.
     */
    leaf(upper: number, write: () => unknown, lower = 1): void {
      if (this.pass === 'lower') return this.add(Math.min(lower, upper));
      if (this.pass === 'upper' || this.hopeless(upper)) return this.add(upper);
      const out = write();
      if (typeof out === 'string') this.add(out.length);
      else this.plain(out, 'default');
    }

    /** As leaf, for a length counted without writing the text. */
    leafLength(upper: number, length: () => number, lower: number): void {
      if (this.pass === 'lower') return this.add(Math.min(lower, upper));
      this.add(this.pass === 'exact' && !this.hopeless(upper) ? length() : upper);
    }

    /** User code that writes text (a format callback): called only in the exact pass. */
    userText(call: () => unknown): void {
      if (this.pass === 'upper') throw NEEDS_EXACT;
      if (this.pass === 'exact') this.plain(call(), 'default');
    }

    hopeless(bound: number): boolean {
      return bound > Math.max(4 * this.max, 65_536);
    }

    /** Text built on the way (print's `$a.` writes `a + '.'`): within the limit on its own. */
    created(value: unknown): void {
      const text = new Count(this.max, this.pass);
      try {
        text.plain(value, 'default');
      } catch (err) {
        if (err === OVER) this.add(Infinity);
        throw err;
      }
    }

    /** A leaf a callback formats: its length is known only by calling it. */
    callback(value: unknown, r: FormatRequest): void {
      this.userText(() => r.callback!(value));
    }

    /** format(value, options): mathjs's `_format` in utils/string.js, case by case. */
    formatted(value: unknown, r: FormatRequest): void {
      if (typeof value === 'number') {
        if (r.callback) return this.callback(value, r);
        return this.leaf(numberBound(r), () => write(value, r), numberLower(value, r));
      }
      if (math.isBigNumber(value)) {
        if (r.callback) return this.callback(value, r);
        return this.leaf(this.bigNumberBound(value as unknown as BigNumberLike, r), () => write(value, r));
      }
      if (looksLikeFraction(value)) return this.fraction(value as Fraction, r.decimalFractions && !r.callback, r);
      if (Array.isArray(value)) {
        this.add(2);
        value.forEach((item, i) => {
          if (i > 0) this.add(2);
          this.formatted(item, r);
        });
        return;
      }
      if (typeof value === 'string') return this.leafLength(2 * value.length + 2, () => escapedLength(value), value.length + 2);
      if (typeof value === 'function') {
        const syntax = (value as { syntax?: unknown }).syntax;
        return this.add(syntax ? String(syntax).length : 'function'.length);
      }
      if (typeof value === 'bigint') return this.leaf(bigintDigits(value) + 1, () => String(value));
      if (typeof value !== 'object' || value === null) return this.add(String(value).length);
      this.object(value, r);
    }

    /** An object's text: its format method, else its own toString, else `{"key": value, …}`. */
    object(value: unknown, r: FormatRequest): void {
      if (math.isComplex(value)) return this.complex(value, r);
      if (math.isUnit(value)) return this.unit(value, r);
      if (math.isMatrix(value)) return this.matrix(value, r);
      if (math.isRange(value)) {
        const range = value as unknown as { start: unknown; step: unknown; end: unknown };
        this.formatted(range.start, r);
        if (range.step !== 1) {
          this.add(1);
          this.formatted(range.step, r);
        }
        this.add(1);
        return this.formatted(range.end, r);
      }
      if (math.isIndex(value)) return this.index(value as unknown);
      if (math.isResultSet(value)) return this.list((value as unknown as { entries: unknown[] }).entries, 2, 2, 'string');
      const obj: unknown = value;
      if (isPlainObject(obj)) {
        if (typeof obj.format === 'function') {
          // An object literal with a function under "format": mathjs calls it and uses what it returns.
          return this.userText(() => (obj.format as (o: unknown) => unknown)(r.raw));
        }
        if (Object.hasOwn(obj, 'toString')) return this.ownToString(obj);
        const keys = Object.keys(obj);
        this.add(2 + 2 * Math.max(0, keys.length - 1));
        for (const key of keys) {
          this.leafLength(2 * key.length + 4, () => escapedLength(key) + 2, key.length + 4);
          this.formatted(obj[key], r);
        }
        return;
      }
      // Nothing else is reachable from an expression; an unknown kind is refused rather than guessed.
      this.add(Infinity);
    }

    /** String(value), or `value + ''` when `hint` is 'default' (which asks valueOf first). */
    plain(value: unknown, hint: 'default' | 'string'): void {
      if (typeof value === 'string') return this.add(value.length);
      if (typeof value === 'bigint') return this.leaf(bigintDigits(value) + 1, () => String(value));
      if (typeof value === 'function') return this.add(Function.prototype.toString.call(value).length);
      if (typeof value !== 'object' || value === null) return this.add(String(value).length);
      if (Array.isArray(value)) {
        // Array.prototype.join(','): empty for null and undefined.
        this.add(Math.max(0, value.length - 1));
        for (const item of value) if (item !== null && item !== undefined) this.plain(item, 'string');
        return;
      }
      if (math.isBigNumber(value)) {
        const big = value as unknown as BigNumberLike;
        // decimal.js switches to exponential notation from e+21 and below e-7; valueOf also signs -0.
        return this.leaf((big.d?.length ?? 1) * 7 + 30, () => (hint === 'default' ? big.valueOf() : big.toString()));
      }
      if (math.isFraction(value)) {
        if (hint === 'default') return this.leaf(24, () => String(value.valueOf()));
        return this.fraction(value, true, request(undefined));
      }
      if (math.isSparseMatrix(value)) return this.sparseAsArray(value as unknown as SparseInternals);
      if (isPlainObject(value)) {
        if (Object.hasOwn(value, 'toString')) return this.ownToString(value);
        return this.add('[object Object]'.length);
      }
      // Complex, Unit, dense matrices, ranges, indexes and result sets write themselves with format().
      this.object(value, request(undefined));
    }

    bigNumberBound(big: BigNumberLike, r: FormatRequest): number {
      if (!big.isFinite()) return 9;
      const digits = (big.d?.length ?? 1) * 7;
      const e = Math.abs(big.e);
      const significant = Math.max(r.precision ?? 0, digits);
      switch (r.notation) {
        case 'fixed':
          return e + digits + (r.precision ?? 0) + 4;
        case 'exponential':
        case 'engineering':
          return significant + 24;
        case 'bin':
        case 'oct':
        case 'hex':
          return 4 * (e + digits + (r.precision ?? 0)) + 64;
        default:
          return Math.max(Math.abs(r.lowerExp), Math.abs(r.upperExp)) + significant + 24;
      }
    }

    fraction(value: Fraction, decimal: boolean, r: FormatRequest): void {
      const f = value as unknown as { n: bigint; d: bigint };
      const ratio = bigintDigits(f.n) + bigintDigits(f.d) + 2;
      // fraction.js writes at most 300 digits before the repeating part and a cycle of at most 2,000.
      const bound = decimal ? bigintDigits(f.n) + 2_400 : ratio;
      this.leaf(bound, () => (decimal ? value.toString() : write(value, r)));
    }

    complex(value: Complex, r: FormatRequest): void {
      if (r.callback) return this.userText(() => write(value, r));
      this.leaf(2 * numberBound(r) + 4, () => write(value, r));
    }

    unit(value: Unit, r: FormatRequest): void {
      const inner = value as unknown as { value: unknown; units: UnitPart[] };
      // The value is scaled to the unit's prefix before formatting: a BigNumber's text is known only
      // by formatting it.
      if (r.callback || math.isBigNumber(inner.value)) return this.userText(() => write(value, r));
      let bound = 8;
      for (const part of inner.units) bound += part.prefix.name.length + part.unit.name.length + 28;
      if (typeof inner.value === 'number') bound += numberBound(r);
      else if (math.isComplex(inner.value)) bound += 2 * numberBound(r) + 6;
      else if (math.isFraction(inner.value)) {
        const f = inner.value as unknown as { n: bigint; d: bigint };
        bound += bigintDigits(f.n) + bigintDigits(f.d) + (r.decimalFractions ? 2_400 : 2);
      } else if (inner.value !== null && inner.value !== undefined && !math.isBigNumber(inner.value)) bound = Infinity;
      this.leaf(bound, () => write(value, r));
    }

    matrix(value: Matrix, r: FormatRequest): void {
      if (!math.isSparseMatrix(value)) return this.formatted((value as Matrix).valueOf(), r);
      // SparseMatrix.prototype.format: a header, then one line per stored value.
      const s = value as unknown as SparseInternals;
      const [rows = 0, columns = 0] = s._size;
      this.add(30);
      this.formatted(rows, r);
      this.formatted(columns, r);
      this.formatted(value.density(), r);
      for (let j = 0; j < columns; j++) {
        for (let k = s._ptr[j]!; k < s._ptr[j + 1]!; k++) {
          this.add(14);
          this.formatted(s._index[k], r);
          this.formatted(j, r);
          if (s._values) this.formatted(s._values[k], r);
          else this.add(1);
        }
      }
    }

    /** SparseMatrix.prototype.toString formats the dense array: every cell, zeros included. */
    sparseAsArray(s: SparseInternals): void {
      const [rows = 0, columns = 0] = s._size;
      // Brackets and separators, then one character for each cell without a stored value (its
      // toArray writes the number 0, or 1 in a pattern matrix).
      this.add(2 + 2 * Math.max(0, rows - 1) + rows * (2 + 2 * Math.max(0, columns - 1)));
      this.add(Math.max(0, rows * columns - (s._values?.length ?? 0)));
      for (const v of s._values ?? []) this.formatted(v, request(undefined));
    }

    index(value: unknown): void {
      const dims = (value as { _dimensions: unknown[] })._dimensions;
      this.add(2 + 2 * Math.max(0, dims.length - 1));
      for (const dim of dims) {
        if (typeof dim === 'string') this.leaf(6 * dim.length + 2, () => JSON.stringify(dim));
        else this.plain(dim, 'string');
      }
    }

    list(items: unknown[], open: number, separator: number, hint: 'default' | 'string'): void {
      this.add(open + separator * Math.max(0, items.length - 1));
      for (const item of items) this.plain(item, hint);
    }

    /**
     * The results of lup, qr and slu carry a toString that writes each of their fields after a short
     * label: bounded by the fields, and written out for its exact length when that bound is too much.
     */
    ownToString(value: Record<string, unknown>): void {
      const write = value.toString;
      if (typeof write !== 'function') return this.add(Infinity);
      const fields = (pass: 'upper' | 'lower'): number => {
        const count = new Count(Infinity, pass);
        try {
          // The labels ('L: ', '\nU: ') count in the upper bound only.
          if (pass === 'upper') count.add(8);
          for (const [key, field] of Object.entries(value)) {
            if (typeof field === 'function') continue;
            if (pass === 'upper') count.add(key.length + 4);
            count.plain(field, 'string');
          }
        } catch (err) {
          if (err !== NEEDS_EXACT) throw err;
          return Infinity;
        }
        return count.total;
      };
      this.leaf(fields('upper'), () => (write as () => unknown).call(value), this.pass === 'lower' ? fields('lower') : 0);
    }
  }

  function measure(walk: (count: Count) => void, max = limit()): number {
    const run = (pass: Pass): number => {
      const count = new Count(max, pass);
      try {
        walk(count);
      } catch (err) {
        if (err === NEEDS_EXACT) return Infinity;
        if (err !== OVER) throw err;
      }
      return count.total;
    };
    const upper = run('upper');
    if (upper <= max) return upper;
    const lower = run('lower');
    return lower > max ? lower : run('exact');
  }

  return {
    request,
    format: (value, r, max) => measure((c) => c.formatted(value, r), max),
    print: (template, values, r) =>
      measure((c) => {
        // print.js: each `$key.path` is replaced by the value it names, formatted unless it is text.
        // The replacements are counted first, so the running total never passes the final one.
        let kept = template.length;
        for (const match of template.matchAll(/\$([\w.]+)/g)) {
          const keys = match[1]!.split('.');
          let value = (values as Record<string, unknown>)[keys.shift()!];
          if (value !== undefined && (value as { isMatrix?: boolean }).isMatrix) value = (value as Matrix).toArray();
          while (keys.length && value !== undefined) {
            const k = keys.shift()!;
            if (k) {
              value = (value as Record<string, unknown>)[k];
            } else {
              // `$a.` writes `a + '.'` (valueOf first, as `+` does) and goes on with that text.
              c.created(value);
              value = (value as string) + '.';
            }
          }
          if (value === undefined) continue;
          kept -= match[0].length;
          if (typeof value === 'string') c.add(value.length);
          else c.formatted(value, r);
        }
        c.add(kept);
      }),
    string: (value) =>
      measure((c) => {
        // type/string.js: element by element; text stays as it is, numbers are formatted, the rest is String(x).
        const each = (x: unknown): void => {
          if (Array.isArray(x)) x.forEach(each);
          // A sparse matrix maps only its stored values; its zeros stay numbers.
          else if (math.isSparseMatrix(x)) ((x as unknown as SparseInternals)._values ?? []).forEach(each);
          else if (math.isMatrix(x)) each(x.valueOf());
          else if (typeof x === 'number') c.leaf(24, () => math.format(x), numberLower(x, request(undefined)));
          else if (typeof x !== 'string') c.plain(x, 'string');
        };
        each(value);
      }),
  };
}
