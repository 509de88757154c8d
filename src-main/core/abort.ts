/**
 * A time limit for a request, combined with the signals that may cancel it sooner. Node's own
 * AbortSignal.timeout and AbortSignal.any hold their sources weakly, and Node 20's fetch holds the signal
 * it is given weakly too: under garbage collection such a signal can vanish before it fires, and the
 * request then never ends (test/integration/abort/abort.test.ts shows it). This one is a controller
 * held by its own timer, so it fires on time; the timer does not keep the process alive.
 */
interface TimeLimit {
  signal: AbortSignal;
  /** Whether it was the time limit (not a cancel) that ended it. */
  expired(): boolean;
}

export function timeLimit(ms: number, cancels: readonly (AbortSignal | undefined)[] = []): TimeLimit {
  const controller = new AbortController();
  let expired = false;
  const sources = cancels.filter((s): s is AbortSignal => s !== undefined);
  const stop = (reason: unknown): void => {
    clearTimeout(timer);
    for (const s of sources) s.removeEventListener('abort', onCancel);
    controller.abort(reason);
  };
  const onCancel = (e: Event): void => stop((e.target as AbortSignal).reason);
  const timer = setTimeout(() => {
    expired = true;
    stop(new DOMException(`the time limit of ${ms} ms was reached`, 'TimeoutError'));
  }, ms);
  timer.unref();
  for (const s of sources) {
    if (s.aborted) {
      stop(s.reason);
      break;
    }
    s.addEventListener('abort', onCancel, { once: true });
  }
  return { signal: controller.signal, expired: () => expired };
}
