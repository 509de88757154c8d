import { failure, type Failure, type FailureCode, type FailureDetails, type Result } from '../../src-shared/result';

/** Thrown inside a transaction to roll it back; caught at the API boundary and returned as a value. */
export class DomainError extends Error implements Failure {
  override name = 'DomainError';
  constructor(
    readonly error: string,
    readonly hint: string,
    readonly code: FailureCode = 'refused',
    readonly details?: FailureDetails,
  ) {
    super(error);
  }

  toFailure(): Failure {
    return failure(this.error, this.hint, this.code, this.details);
  }
}

export function fail(error: string, hint: string, code?: FailureCode, details?: FailureDetails): never {
  throw new DomainError(error, hint, code, details);
}

/** Runs `fn`, turning a DomainError into a failed Result. Anything else is a bug and propagates. */
export function attempt<T>(fn: () => T): Result<T> {
  try {
    return { ok: true, value: fn() };
  } catch (e) {
    if (e instanceof DomainError) return { ok: false, ...e.toFailure() };
    throw e;
  }
}
