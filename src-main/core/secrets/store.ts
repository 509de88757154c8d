/**
 * Where API keys live: the OS keychain in the app and the CLI, memory in tests of other layers. A store
 * holds one opaque secret per account (the provider profile id); what the secret means is api-key.ts's.
 */

export interface SecretStore {
  /** Which backend, for messages ("saved in the OS keychain"). */
  readonly label: string;
  /** Where it keeps secrets, for KeyStatus.storage: the OS keychain (the default), Electron's safeStorage, memory for this session. */
  readonly kind?: 'keychain' | 'safe_storage' | 'session';
  /** The secret, or undefined when none is stored. Throws KeychainUnavailableError. */
  get(account: string): Promise<string | undefined>;
  /** Stores or replaces the secret. Throws KeychainUnavailableError; never falls back to a file. */
  set(account: string, secret: string): Promise<void>;
  /** Removes it; false when there was none. Throws KeychainUnavailableError. */
  clear(account: string): Promise<boolean>;
  /** Whether the store can be used at all, without touching any entry. */
  probe(): Promise<{ available: true } | { available: false; error: KeychainUnavailableError }>;
}

/**
 * The keychain cannot be used: keytar failed to load, no Secret Service is running, the keyring is
 * locked, or it did not answer. `reason` is short ("Secret Service not running"); `message` is the one
 * line for the user, with how to fix it.
 */
export class KeychainUnavailableError extends Error {
  override name = 'KeychainUnavailableError';
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`no OS keychain available (${reason}): ${fix}`);
  }
}

/** Keeps secrets in a Map; for tests and for hosts that inject keys themselves. */
export function createMemorySecretStore(initial: Record<string, string> = {}): SecretStore & { readonly entries: Map<string, string> } {
  const entries = new Map(Object.entries(initial));
  return {
    label: 'memory',
    entries,
    get: (account) => Promise.resolve(entries.get(account)),
    set: (account, secret) => {
      entries.set(account, secret);
      return Promise.resolve();
    },
    clear: (account) => Promise.resolve(entries.delete(account)),
    probe: () => Promise.resolve({ available: true }),
  };
}

/** A store that is never available, as on a machine without a keychain; `reason`/`fix` as the user would read them. */
export function createUnavailableSecretStore(reason: string, fix: string): SecretStore {
  const fail = (): Promise<never> => Promise.reject(new KeychainUnavailableError(reason, fix));
  return {
    label: 'none',
    get: fail,
    set: fail,
    clear: fail,
    probe: () => Promise.resolve({ available: false, error: new KeychainUnavailableError(reason, fix) }),
  };
}

/**
 * Keys kept for this session only: in memory, forgotten when Tidy quits — for a machine without a
 * keychain, where the key must still never go to the database or a plain file.
 */
export function createSessionSecretStore(): SecretStore & { readonly entries: Map<string, string> } {
  return { ...createMemorySecretStore(), label: 'this session only (memory, forgotten when Tidy quits)', kind: 'session' };
}

/**
 * The first of `stores` that is available (probed on first use, remembered once one is): the OS keychain,
 * else Electron's safeStorage where the OS really encrypts. When none is, the first one's errors stand.
 */
export function createFirstAvailableSecretStore(stores: [SecretStore, ...SecretStore[]]): SecretStore {
  let current: SecretStore | undefined;
  const pick = async (): Promise<SecretStore> => {
    if (current) return current;
    for (const s of stores) {
      if ((await s.probe()).available) return (current = s);
    }
    return stores[0]; // not remembered: the keychain may come up later
  };
  return {
    get label() {
      return (current ?? stores[0]).label;
    },
    get kind() {
      return (current ?? stores[0]).kind;
    },
    get: async (account) => (await pick()).get(account),
    set: async (account, secret) => (await pick()).set(account, secret),
    clear: async (account) => (await pick()).clear(account),
    probe: async () => (await pick()).probe(),
  };
}
