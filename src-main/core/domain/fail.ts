import type { Failure, Result } from '../../../src-shared/result';

/** Thrown inside a transaction to roll it back; caught at the API boundary and returned as a value. */
export class DomainError extends Error implements Failure {
  override name = 'DomainError';
  constructor(
    readonly error: string,
    readonly hint: string,
  ) {
    super(error);
  }
}

export function fail(error: string, hint: string): never {
  throw new DomainError(error, hint);
}

/** Runs `fn`, turning a DomainError into a failed Result. Anything else is a bug and propagates. */
export function attempt<T>(fn: () => T): Result<T> {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, error: e.error, hint: e.hint };
    throw e;
  }
}
