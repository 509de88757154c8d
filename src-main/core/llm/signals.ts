/** Waiting that an AbortSignal ends at once: for the adapter's retries and its body reads. */
import { oneLine } from './errors';
import { ModelError } from './port';

/** The `aborted` ModelError for a fired signal, with its reason when the caller gave one. */
export function abortedError(signal: AbortSignal): ModelError {
  const reason: unknown = signal.reason;
  const detail =
    reason instanceof Error && reason.name !== 'AbortError' && reason.message ? `: ${oneLine(reason.message, 200)}` : '';
  return new ModelError(`the request was cancelled${detail}`, 'aborted');
}

/** Resolves after `ms`, or rejects with abortedError as soon as `signal` fires. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortedError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      if (signal) reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Rejects as soon as `signal` aborts, whatever `promise` does. */
export function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new Error('aborted'));
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
