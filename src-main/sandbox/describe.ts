// Turns what mathjs returns (or throws) into the calculator's answer: a short result text, or an error
// with a hint in plain words. Runs inside the calculator's process, next to the locked-down mathjs
// instance. Nothing is written out whole before its size is known: a result may hold text or values
// far larger than the answer (textsize.ts measures them first).
import type { MathJsInstance, MathNode, Matrix } from 'mathjs';
import type { Failure } from '../../src-shared/result';
import { SizeLimitError, TimeLimitError } from './limits';
import { DisabledFunctionError } from './lockdown';
import { clip } from './text';
import { createTextSizes, type TextSizes } from './textsize';

export type Answer = { result: string } | Failure;

const USAGE = 'the calculator understands arithmetic such as (2 + 3) * 4, functions such as sqrt(16) or log(100, 10), and units such as 5 km to m';
const MAX_ERROR_CHARS = 300;
/** A matrix with more values than this is summarised without formatting all of it. */
const MAX_LISTED_VALUES = 100;
const PREVIEW_VALUES = 8;
/** A value whose text would be longer than this is described rather than written out and cut. */
const MAX_WRITTEN_CHARS = 100_000;
/** An error message longer than this is not read at all (reading a long rope of text flattens it). */
const MAX_READ_MESSAGE_CHARS = 100_000;

const textSizes = new WeakMap<MathJsInstance, TextSizes>();
/** Characters of format(value, options), counted up to `limit` (anything over it is some number above). */
function formattedLength(math: MathJsInstance, value: unknown, limit: number, options?: object): number {
  let sizes = textSizes.get(math);
  if (!sizes) textSizes.set(math, (sizes = createTextSizes(math, () => MAX_WRITTEN_CHARS)));
  return sizes.format(value, sizes.request(options), limit);
}

export function describeValue(math: MathJsInstance, value: unknown, maxChars: number, divisionByZero: () => boolean): Answer {
  if (math.isResultSet(value)) {
    // Several statements (`a = 2; a * 3`): the answer is the last value shown.
    const entries: unknown[] = value.entries;
    if (entries.length === 0) return noValue();
    return describeValue(math, entries[entries.length - 1], maxChars, divisionByZero);
  }
  if (value === undefined || value === null) return noValue();
  if (typeof value === 'function' || math.isNode(value) || math.isHelp(value) || math.isChain(value)) {
    return {
      error: 'the expression is a function, not a value',
      hint: 'call the function with arguments, e.g. sqrt(16)',
    };
  }
  if (typeof value === 'number' && !Number.isFinite(value)) return notFinite(value, divisionByZero());
  if (math.isBigNumber(value) && !value.isFinite()) return notFinite(value.toNumber(), divisionByZero());
  if (math.isComplex(value) && (!Number.isFinite(value.re) || !Number.isFinite(value.im))) {
    return notFinite(Number.isNaN(value.re) || Number.isNaN(value.im) ? NaN : Infinity, divisionByZero());
  }
  if (typeof value === 'string') return { result: clip(value, maxChars) };
  if (math.isMatrix(value) || Array.isArray(value)) return { result: describeMatrix(math, value, maxChars) };
  if (typeof value === 'object' && !math.isFraction(value) && formattedLength(math, value, MAX_WRITTEN_CHARS, formatOptions(math, value)) > MAX_WRITTEN_CHARS) {
    return { result: clip(`${math.typeOf(value)} too large to show: its text would be more than ${MAX_WRITTEN_CHARS.toLocaleString('en')} characters`, maxChars) };
  }
  const text = formatValue(math, value);
  if (text.length > maxChars && typeof value === 'bigint') return { result: clip(describeInteger(text), maxChars) };
  if (text.length > maxChars && math.isFraction(value)) {
    const [n = '', d = ''] = text.split('/');
    const approx = Number(value.valueOf());
    const near = Number.isFinite(approx) && approx !== 0 ? `about ${math.format(approx, { precision: 6 })}` : 'an exact fraction';
    return { result: clip(`fraction, ${near}: a ${digits(n)}-digit numerator over a ${digits(d)}-digit denominator`, maxChars) };
  }
  return { result: clip(text, maxChars) };
}

const digits = (integer: string): number => integer.replace(/^-/, '').length;

/** `integer with 3011 digits: 19950631168807583848…6668069376 (about 1.99506e+3010)`. */
function describeInteger(text: string): string {
  const sign = text.startsWith('-') ? '-' : '';
  const body = text.slice(sign.length);
  return `integer with ${body.length} digits: ${sign}${body.slice(0, 20)}…${body.slice(-10)} (about ${sign}${body[0]}.${body.slice(1, 6)}e+${body.length - 1})`;
}

// BigNumbers carry the precision the user asked for; plain numbers are rounded to hide float noise (0.1 + 0.2).
const formatOptions = (math: MathJsInstance, value: unknown): object | undefined => (math.isBigNumber(value) ? undefined : { precision: 14 });

function formatValue(math: MathJsInstance, value: unknown): string {
  const options = formatOptions(math, value);
  return options ? math.format(value, options) : math.format(value);
}

/** One value of a matrix preview: written out when short, else what it is. */
function previewValue(math: MathJsInstance, value: unknown, maxChars: number): string {
  if (formattedLength(math, value, 4 * maxChars, formatOptions(math, value)) <= 4 * maxChars) return clip(formatValue(math, value), maxChars);
  if (typeof value === 'string') return clip(`"${value.slice(0, 12)}…" (${value.length.toLocaleString('en')} characters)`, maxChars);
  return clip(`${math.typeOf(value)} …`, maxChars);
}

function describeMatrix(math: MathJsInstance, value: unknown[] | Matrix, maxChars: number): string {
  const dims = math.isMatrix(value) ? value.size() : arraySize(value);
  const count = dims.reduce((a, b) => a * b, 1);
  if (count <= MAX_LISTED_VALUES && formattedLength(math, value, maxChars, { precision: 14 }) <= maxChars) {
    const text = formatValue(math, value);
    if (text.length <= maxChars) return text;
  }
  const shape = dims.length === 1 ? `list of ${dims[0]} values` : `matrix ${dims.join('×')}`;
  if (math.isSparseMatrix(value)) {
    // Turning a large sparse matrix into arrays could need more memory than the worker has.
    return clip(`sparse ${shape} (${Math.round(value.density() * count)} non-zero values)`, maxChars);
  }
  const first = firstValues(math.isMatrix(value) ? (value.valueOf() as unknown[]) : value, PREVIEW_VALUES);
  const preview = first.map((v) => previewValue(math, v, 40)).join(', ');
  return clip(`${shape} (first values: ${preview}${count > first.length ? ', …' : ''})`, maxChars);
}

function arraySize(array: unknown[]): number[] {
  const dims: number[] = [];
  let level: unknown = array;
  while (Array.isArray(level)) {
    dims.push(level.length);
    level = level[0];
  }
  return dims;
}

function firstValues(array: unknown[], n: number): unknown[] {
  const out: unknown[] = [];
  const walk = (level: unknown[]): void => {
    for (const item of level) {
      if (out.length >= n) return;
      if (Array.isArray(item)) walk(item);
      else out.push(item);
    }
  };
  walk(array);
  return out;
}

function noValue(): Failure {
  return { error: 'the expression has no value', hint: `end with the expression to compute, not with an assignment or a semicolon; ${USAGE}` };
}

function notFinite(value: number, dividesByZero: boolean): Failure {
  if (dividesByZero) {
    return Number.isNaN(value)
      ? { error: 'division by zero gives NaN (not a number)', hint: 'check the divisor: 0/0 has no value' }
      : { error: 'division by zero gives Infinity', hint: 'check the divisor: a number divided by 0 has no finite value' };
  }
  if (Number.isNaN(value)) {
    return { error: 'the result is not a number (NaN)', hint: 'check for undefined operations such as Infinity - Infinity or 0 * Infinity' };
  }
  return {
    error: 'the result is Infinity: it is too large to represent, or undefined such as log(0)',
    hint: 'numbers beyond about 1.8e308 overflow; use a smaller expression, its logarithm, or bignumber(...) for huge values',
  };
}

/**
 * Whether the expression divides by something that evaluates to zero. Only asked when the result is
 * Infinity or NaN, to tell `1/0` from an overflow such as `9^9^9^9`.
 */
export function hasDivisionByZero(math: MathJsInstance, tree: MathNode, scope: Map<string, unknown>): boolean {
  let found = false;
  tree.traverse((node) => {
    if (found) return;
    const isDivision =
      (math.isOperatorNode(node) && (node.fn === 'divide' || node.fn === 'dotDivide')) ||
      (math.isFunctionNode(node) && (node.fn.name === 'divide' || node.fn.name === 'dotDivide'));
    if (!isDivision || node.args.length !== 2) return;
    try {
      const divisor: unknown = node.args[1]!.compile().evaluate(new Map(scope));
      found = math.isNumeric(divisor) || math.isUnit(divisor) ? math.isZero(divisor as number) === true : false;
    } catch {
      // The divisor refers to a function parameter or fails on its own: not a plain division by zero.
    }
  });
  return found;
}

/**
 * Refuses `x.method(...)`. mathjs lets expressions call the methods of the values they hold (a string's
 * repeat, a matrix's resize, a BigNumber's toFixed), which bypass the size guards of the function
 * namespace; the calculator only needs functions and operators.
 */
export function refuseMethodCalls(math: MathJsInstance, tree: MathNode): Failure | null {
  let method: string | null = null;
  tree.traverse((node) => {
    if (method !== null || !math.isFunctionNode(node)) return;
    const callee: MathNode = node.fn;
    if (math.isAccessorNode(callee)) method = callee.name || 'method';
  });
  if (method === null) return null;
  return {
    error: clip(`method calls such as .${method}(...) are not available in the calculator`, MAX_ERROR_CHARS),
    hint: `use functions and operators instead, e.g. to(5 km, m) or 5 km to m; ${USAGE}`,
  };
}

/** Explains a failure thrown while parsing or evaluating, in plain words. */
export function describeError(err: unknown): Failure {
  if (err instanceof TimeLimitError) {
    return { error: 'expression took longer than the calculator allows and was stopped', hint: 'simplify it, or use smaller numbers, matrices or ranges' };
  }
  if (err instanceof SizeLimitError) {
    return { error: clip(`the result would be too large: ${err.what} (in ${err.functionName})`, MAX_ERROR_CHARS), hint: 'use smaller sizes, ranges, exponents or precision' };
  }
  if (err instanceof DisabledFunctionError) {
    return {
      error: `the function ${err.functionName} is not available in the calculator`,
      hint: `write the arithmetic out instead; ${USAGE}`,
    };
  }
  const raw: unknown = err instanceof Error ? err.message : err;
  if (typeof raw === 'string' && raw.length > MAX_READ_MESSAGE_CHARS) {
    // Some mathjs messages quote the value that failed; a huge one is not worth reading.
    return { error: `the expression could not be evaluated (its error message is ${raw.length.toLocaleString('en')} characters long)`, hint: 'use smaller values' };
  }
  const message = typeof raw === 'string' ? raw : String(raw);
  if (err instanceof RangeError) {
    if (/call stack/i.test(message)) {
      return { error: 'the expression is nested too deeply', hint: 'use fewer nested parentheses or function calls' };
    }
    if (/array length|allocation|string length/i.test(message)) {
      return { error: 'the result would be too large to hold in memory', hint: 'use smaller matrices, ranges or values' };
    }
  }
  const cut = (s: string) => clip(s, MAX_ERROR_CHARS);
  if (err instanceof SyntaxError) return { error: cut(`the expression cannot be read: ${message}`), hint: `check the parentheses and operators; ${USAGE}` };
  let match = /^Undefined (symbol|function) (.+)$/.exec(message);
  if (match) {
    const kind = match[1] === 'function' ? 'function' : 'name';
    return { error: cut(`unknown ${kind} "${match[2]}"`), hint: `variables must be assigned first (x = 2; x * 3); ${USAGE}` };
  }
  match = /^(No access to (?:property|method) .+|Cannot access method .+)$/.exec(message);
  if (match) return { error: cut(`not allowed: ${message}`), hint: `object properties and methods are not available; ${USAGE}` };
  if (/^Units do not match/.test(message)) return { error: cut(`the units do not match: ${message}`), hint: 'convert between units of the same kind, e.g. 5 km to m or 3 h to min' };
  return { error: cut(message || 'the expression could not be evaluated'), hint: `check the expression; ${USAGE}` };
}
