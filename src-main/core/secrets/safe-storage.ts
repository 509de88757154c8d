/**
 * Keys through Electron's safeStorage: encrypted by the OS (macOS Keychain's key, Windows DPAPI, the
 * Secret Service or KWallet on Linux) and kept, as ciphertext only, in a file next to the database. Used
 * only where the OS really encrypts: on Linux without a keyring Electron falls back to `basic_text`, a
 * fixed password, and then this store says it is unavailable rather than write a key anyone can read.
 */
import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { KeychainUnavailableError, type SecretStore } from './store';

/** The part of Electron's safeStorage used here; tests inject a fake. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  /** Linux only in Electron: 'basic_text', 'gnome_libsecret', 'kwallet', … */
  getSelectedStorageBackend?(): string;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

const FIX = "start your desktop's keyring, or keep the key for this session only";

export function createSafeStorageSecretStore(safe: SafeStorageLike, file: string): SecretStore {
  const why = (): string | null => {
    if (!safe.isEncryptionAvailable()) return 'the OS offers no encryption to Electron';
    const backend = safe.getSelectedStorageBackend?.();
    if (backend === 'basic_text') return 'Electron would store it with a fixed password (basic_text), not encrypted by the OS';
    return null;
  };
  const check = (): void => {
    const reason = why();
    if (reason) throw new KeychainUnavailableError(reason, FIX);
  };
  const read = (): Record<string, string> => {
    if (!existsSync(file)) return {};
    try {
      const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
      return typeof v === 'object' && v !== null && !Array.isArray(v) ? (Object.fromEntries(Object.entries(v).filter(([, x]) => typeof x === 'string')) as Record<string, string>) : {};
    } catch {
      return {};
    }
  };
  const write = (entries: Record<string, string>): void => {
    const tmp = `${file}.tmp`;
    writeFileSync(tmp, `${JSON.stringify(entries)}\n`, { mode: 0o600 });
    chmodSync(tmp, 0o600);
    renameSync(tmp, file);
  };
  return {
    label: "the OS's encryption (Electron safeStorage)",
    kind: 'safe_storage',
    get(account) {
      try {
        check();
        const sealed = read()[account];
        return Promise.resolve(sealed === undefined ? undefined : safe.decryptString(Buffer.from(sealed, 'base64')));
      } catch (e) {
        return Promise.reject(e instanceof KeychainUnavailableError ? e : new KeychainUnavailableError('the stored key could not be decrypted', FIX));
      }
    },
    set(account, secret) {
      try {
        check();
        const entries = read();
        entries[account] = safe.encryptString(secret).toString('base64');
        write(entries);
        return Promise.resolve();
      } catch (e) {
        return Promise.reject(e instanceof KeychainUnavailableError ? e : new KeychainUnavailableError('the key could not be encrypted', FIX));
      }
    },
    clear(account) {
      try {
        check();
        const entries = read();
        if (!(account in entries)) return Promise.resolve(false);
        delete entries[account];
        write(entries);
        return Promise.resolve(true);
      } catch (e) {
        return Promise.reject(e instanceof KeychainUnavailableError ? e : new KeychainUnavailableError('the key file could not be written', FIX));
      }
    },
    probe() {
      const reason = why();
      return Promise.resolve(reason ? { available: false, error: new KeychainUnavailableError(reason, FIX) } : { available: true });
    },
  };
}
