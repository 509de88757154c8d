// How long the text of one number or string is, bounded without formatting it: the leaves of the
// measures in textsize.ts. Each bound follows mathjs's own formatting (node_modules/mathjs/lib/esm/utils/
// string.js `format` and `stringify`): an upper bound that accepts, a lower bound that refuses.

/** The text a formatting call asks for, with mathjs's defaults and number/BigNumber options made numbers. */
export interface FormatRequest {
  /** The options as passed, for formatting a leaf exactly. */
  raw: unknown;
  /** A formatting function called for every numeric leaf (format(x, callback)). */
  callback?: (value: unknown) => unknown;
  notation: string;
  precision: number | undefined;
  wordSize: number | undefined;
  lowerExp: number;
  upperExp: number;
  /** `fraction: 'decimal'`: fractions as repeating decimals rather than n/d. */
  decimalFractions: boolean;
}

/** The digits or exponent a request asks for, to refuse before formatting ("precision: 1e9"). */
export function largestDigitOption(request: FormatRequest): number {
  return Math.max(0, ...[request.precision, request.wordSize, request.lowerExp, request.upperExp].map((n) => Math.abs(n ?? 0)));
}

/** Longest formatted double for a request: 309 integer digits, 323 leading zeros, 1024 binary digits. */
export function numberBound(r: FormatRequest): number {
  const digits = Math.max(r.precision ?? 0, 17);
  const exponential = digits + 32;
  switch (r.notation) {
    case 'fixed':
      return 330 + (r.precision ?? 0);
    case 'exponential':
    case 'engineering':
      return exponential;
    case 'bin':
    case 'oct':
    case 'hex':
      return 1_100;
    default:
      return Math.max(exponential, Math.min(330 + digits, Math.abs(r.lowerExp) + Math.abs(r.upperExp) + digits + 4));
  }
}

/**
 * At least as many characters as format(x) writes without a precision: its significant digits (and
 * sign) appear whatever the notation, and a fraction adds a point or an exponent ("0.5", "5e-1"),
 * below 1 both a leading zero and a point, or "e-" and a digit. With a precision, digits may be
 * rounded away.
 */
export function numberLower(x: number, r: FormatRequest): number {
  if (!Number.isFinite(x)) return 3;
  if (r.precision !== undefined || !['auto', 'fixed', 'exponential', 'engineering'].includes(r.notation)) return 1;
  const sign = x < 0 ? 1 : 0;
  if (Number.isInteger(x)) return 1 + sign;
  // The digits of the shortest round-trip text, without leading and trailing zeros.
  const text = String(Math.abs(x));
  let first = -1;
  let last = -1;
  let digits = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 101) break; // 'e'
    if (c < 48 || c > 57) continue;
    digits++;
    if (c !== 48) {
      if (first < 0) first = digits;
      last = digits;
    }
  }
  return Math.max(1, first < 0 ? 1 : last - first + 1) + sign + (Math.abs(x) < 1 ? 2 : 1);
}

/** Decimal digits of a big integer, from its bit length (never fewer than the real count). */
export function bigintDigits(n: bigint): number {
  const abs = n < 0n ? -n : n;
  if (abs < 2n ** 53n) return String(abs).length;
  return Math.ceil(abs.toString(16).length * 4 * Math.LOG10E * Math.LN2) + 1;
}

/** The length of mathjs's stringify(text): two quotes, and a backslash added before each quote, backslash, \b, \f, \n, \r and \t. */
export function escapedLength(text: string): number {
  let n = text.length + 2;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 || c === 92 || c === 8 || c === 12 || c === 10 || c === 13 || c === 9) n++;
  }
  return n;
}
