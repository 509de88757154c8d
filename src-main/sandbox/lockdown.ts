// A mathjs instance with every function that reaches beyond arithmetic disabled, following the mathjs
// security guide: https://mathjs.org/docs/expressions/security.html
// Runs only inside the calculator's child process (worker.ts); nothing in the app's process evaluates expressions.
import { all, create, type MathJsInstance } from 'mathjs';
import { createCallGuard, LIMITS, SizeLimitError, type CallGuard, type SizeLimits } from './limits';

/**
 * Disabled for expressions. The guide's list (import, createUnit, reviver, evaluate, parse, simplify,
 * derivative, resolve) plus everything else that turns text into an expression tree or code, re-enters
 * the parser, or changes the shared instance (config would leak from one call to the next).
 */
const DISABLED_FUNCTIONS = [
  'import',
  'createUnit',
  'reviver',
  'replacer',
  'evaluate',
  'parse',
  'compile',
  'parser',
  'simplify',
  'simplifyConstant',
  'simplifyCore',
  'rationalize',
  'derivative',
  'resolve',
  'symbolicEqual',
  'leafCount',
  'chain',
  'help',
  'config',
  'typed',
] as const;

/**
 * `config` and `typed` are the instance's own plumbing: lazily created functions look `typed` up on the
 * namespace, so overriding them through `import` would break arithmetic. They are hidden from
 * expressions only, in the namespace the expression compiler resolves names against.
 */
const EXPRESSION_ONLY = new Set<string>(['config', 'typed']);

export class DisabledFunctionError extends Error {
  override name = 'DisabledFunctionError';
  constructor(readonly functionName: string) {
    super(`Function ${functionName} is disabled`);
  }
}

export interface LockedMath {
  math: MathJsInstance;
  /** The evaluate and parse functions captured before the lockdown, for the worker's own use. */
  evaluate: MathJsInstance['evaluate'];
  parse: MathJsInstance['parse'];
  /** The size and time guard in front of every function expressions can call. */
  guard: CallGuard;
}

export function createLockedMath(limits: SizeLimits = LIMITS): LockedMath {
  const math = create(all);
  const evaluate = math.evaluate;
  const parse = math.parse;

  const disabled = (name: string) => () => {
    throw new DisabledFunctionError(name);
  };
  const overrides: Record<string, () => never> = {};
  for (const name of DISABLED_FUNCTIONS) if (!EXPRESSION_ONLY.has(name)) overrides[name] = disabled(name);
  math.import(overrides, { override: true });

  // Not part of the public typings: the namespace expressions see (functions plus their transforms).
  const visible = (math as unknown as { expression: { mathWithTransform: Record<string, unknown> } }).expression.mathWithTransform;
  for (const name of EXPRESSION_ONLY) {
    Object.defineProperty(visible, name, { value: disabled(name), writable: false, configurable: false, enumerable: true });
  }
  const guard = createCallGuard(math, limits);
  guardNamespace(math, visible, guard);
  return { math, evaluate, parse, guard };
}

type TypedFn = ((...args: unknown[]) => unknown) & { signatures: Record<string, (...args: unknown[]) => unknown> };
type RawArgsFn = ((...args: unknown[]) => unknown) & { rawArgs: true };

/**
 * Puts the size guard in front of every function an expression can reach. Wrapping happens on first
 * use, as mathjs itself creates functions lazily: wrapping all ~300 up front would cost a second.
 */
function guardNamespace(math: MathJsInstance, visible: Record<string, unknown>, guard: CallGuard): void {
  const disabledNames = new Set<string>(DISABLED_FUNCTIONS);
  for (const name of Object.keys(visible)) {
    if (disabledNames.has(name)) continue;
    const descriptor = Object.getOwnPropertyDescriptor(visible, name)!;
    let wrapped: unknown;
    let done = false;
    Object.defineProperty(visible, name, {
      enumerable: true,
      configurable: false,
      get() {
        if (!done) {
          wrapped = guarded(math, name, descriptor.get ? descriptor.get.call(visible) : descriptor.value, guard);
          done = true;
        }
        return wrapped;
      },
    });
  }
}

function guarded(math: MathJsInstance, name: string, value: unknown, guard: CallGuard): unknown {
  if (typeof value !== 'function') return value;
  const fn = value as (...args: unknown[]) => unknown;
  if ('rawArgs' in fn && fn.rawArgs === true) {
    // Lazy transforms get unevaluated nodes. Only map can build something larger than its input:
    // several collections are broadcast together.
    if (name !== 'map') return fn;
    const map = fn as RawArgsFn;
    const checked = function (this: unknown, ...args: unknown[]) {
      if (Array.isArray(args[0]) && args[0].length > 2) {
        throw new SizeLimitError('map', 'mapping several matrices together is not available; map one matrix at a time');
      }
      return map.apply(this, args);
    };
    return Object.assign(checked, { rawArgs: true });
  }
  if ('signatures' in fn && typeof fn.signatures === 'object') {
    // A typed function is rebuilt from its own signatures (as mathjs's import does), so dispatch and
    // the use of functions as callbacks (map(A, sqrt)) are unchanged. A rest parameter arrives as an array.
    const typed = fn as TypedFn;
    const signatures: Record<string, (...args: unknown[]) => unknown> = {};
    for (const [signature, impl] of Object.entries(typed.signatures)) {
      const rest = signature.includes('...');
      signatures[signature] = function (this: unknown, ...args: unknown[]) {
        const last = args[args.length - 1];
        guard.check(name, rest && Array.isArray(last) ? [...args.slice(0, -1), ...last] : args);
        return impl.apply(this, args);
      };
    }
    return math.typed(name, signatures);
  }
  return function (this: unknown, ...args: unknown[]) {
    guard.check(name, args);
    return fn.apply(this, args);
  };
}
