/** Bounds on the shape of untrusted JSON-like values (IPC inputs, tool arguments from a model), checked before any recursive code walks them. */

/** How big and how deep a request's input may be before any schema walks it. */
export interface InputLimits {
  /** Levels of arrays and objects inside one another (the input itself is level 1). */
  maxDepth: number;
  /** Values in all: every object, array (counting its length) and primitive. */
  maxNodes: number;
  /** Characters in all strings, object keys included. */
  maxChars: number;
}

/**
 * The contract's inputs are at most three levels deep and hold a few dozen values and some 20,000
 * characters of text; these limits leave ample room. They exist because the schemas recurse (zod walks
 * `z.json()` values recursively): a value nested a few thousand levels overflows the stack, and a
 * structured clone from Electron can be cyclic or a sparse array of length 2^32 - 1.
 */
export const INPUT_LIMITS: InputLimits = { maxDepth: 32, maxNodes: 10_000, maxChars: 1_000_000 };

/**
 * What is wrong with the shape of `value` (too deep, too many values, too much text), or null when it
 * is within `limits`. Iterative, so no nesting can overflow the stack, and it stops at the first
 * excess, so its cost is bounded by the limits whatever the input. It descends into arrays and plain
 * objects, which are all that JSON and the schemas hold; any other object (Map, Date, typed array) is
 * one value the schemas refuse without looking inside.
 */
export function inputShapeProblem(value: unknown, limits: InputLimits = INPUT_LIMITS): string | null {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  let chars = 0;
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    nodes++;
    if (typeof v === 'string') chars += v.length;
    if (chars > limits.maxChars) return `it holds more than ${limits.maxChars.toLocaleString('en')} characters of text`;
    if (nodes > limits.maxNodes) return `it holds more than ${limits.maxNodes.toLocaleString('en')} values`;
    if (typeof v !== 'object' || v === null) continue;
    const isArray = Array.isArray(v);
    const proto: unknown = Object.getPrototypeOf(v);
    if (!isArray && proto !== Object.prototype && proto !== null) continue;
    if (depth > limits.maxDepth) return `it is nested more than ${limits.maxDepth} levels deep`;
    if (isArray) {
      // A schema walks every index up to length, holes included: count them all before walking any.
      if (nodes + v.length > limits.maxNodes) return `it holds more than ${limits.maxNodes.toLocaleString('en')} values`;
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i] as unknown, depth + 1]);
    } else {
      const keys = Object.keys(v);
      if (nodes + keys.length > limits.maxNodes) return `it holds more than ${limits.maxNodes.toLocaleString('en')} values`;
      for (const k of keys) {
        chars += k.length;
        stack.push([(v as Record<string, unknown>)[k], depth + 1]);
      }
    }
  }
  return null;
}

/** The largest file the UI sends (src-main/host/uploads.ts); larger ones are for the tidy command. */
export const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;
/** Bytes in one part of an upload: 144 KiB, 196,608 characters of base64, well within one web-host frame and maxChars. */
export const UPLOAD_PART_BYTES = 144 * 1024;
