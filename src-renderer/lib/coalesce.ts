/**
 * Refetching without pile-ups: an agent run sends a burst of change events, and each would refetch the
 * same view. `run(key, load)` starts `load` if none runs for `key`; if one does, it is run once more
 * after it ends (so the last change is always seen). A burst of N events costs at most two fetches.
 */
type Coalesce = (key: string, load: () => Promise<void>) => Promise<void>;

export function createCoalescer(): Coalesce {
  const running = new Map<string, { again: boolean; done: Promise<void> }>();
  return (key, load) => {
    const current = running.get(key);
    if (current) {
      current.again = true;
      return current.done;
    }
    const entry = { again: false, done: Promise.resolve() };
    entry.done = (async () => {
      try {
        do {
          entry.again = false;
          await load();
        } while (entry.again);
      } finally {
        running.delete(key);
      }
    })();
    running.set(key, entry);
    return entry.done;
  };
}
