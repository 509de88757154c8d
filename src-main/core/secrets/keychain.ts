/**
 * The OS keychain through keytar: macOS Keychain, Windows Credential Vault, the Secret Service (GNOME
 * Keyring, KWallet, KeePassXC) on Linux. keytar is a native module loaded on first use, so the CLI starts
 * fast and a missing or broken build, or a machine without a Secret Service, becomes one clear
 * KeychainUnavailableError instead of a crash.
 */
import { KeychainUnavailableError, type SecretStore } from './store';

/** The part of keytar we use; tests inject a failing or fake one. */
export interface KeytarLike {
  getPassword(service: string, account: string): Promise<string | null>;
  setPassword(service: string, account: string, password: string): Promise<void>;
  deletePassword(service: string, account: string): Promise<boolean>;
}

export interface KeychainOptions {
  /** The keychain's service name; "Tidy" in the app and the CLI. */
  service?: string;
  load?: () => Promise<KeytarLike>;
  /** A keychain waiting for an unlock prompt nobody can see must not hang a request forever. Default 30 s: room for a person to answer a real prompt. */
  timeoutMs?: number;
  platform?: NodeJS.Platform;
}

export const KEYCHAIN_SERVICE = 'Tidy';

async function loadKeytar(): Promise<KeytarLike> {
  const mod = (await import('keytar')) as KeytarLike & { default?: KeytarLike };
  return mod.default ?? mod;
}

const oneLine = (s: string): string => (s.split('\n')[0] ?? '').trim().slice(0, 160);

function fixFor(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'unlock your login keychain (Keychain Access), or set OPENAI_API_KEY';
  if (platform === 'win32') return 'check Windows Credential Manager, or set OPENAI_API_KEY';
  return "start your desktop's keyring (sign in to a GNOME or KDE session), or set OPENAI_API_KEY before starting Tidy";
}

/**
 * Maps what libsecret, Keychain Services and keytar say to a short reason and the fix, in words a user
 * reads in the settings screen: what is wrong and what to do, without D-Bus names or daemon commands.
 */
export function classifyKeychainError(e: unknown, platform: NodeJS.Platform = process.platform): KeychainUnavailableError {
  const msg = e instanceof Error ? e.message : String(e);
  const fix = fixFor(platform);
  if (/autolaunch D-Bus|Could not connect|DBUS_SESSION_BUS_ADDRESS|was not provided by any \.service files|ServiceUnknown/i.test(msg)) {
    return new KeychainUnavailableError('no keyring service is running', fix);
  }
  if (/collection\/(login|default)|No such secret collection/i.test(msg)) {
    return new KeychainUnavailableError('your keyring has not been created yet', 'sign in to your desktop session once to create it, or set OPENAI_API_KEY before starting Tidy');
  }
  if (/locked|User interaction is not allowed|interaction not allowed/i.test(msg)) {
    return new KeychainUnavailableError(
      platform === 'linux' ? 'the keyring is locked' : 'the keychain is locked',
      platform === 'linux' ? 'unlock it by signing in to your desktop session again, or set OPENAI_API_KEY before starting Tidy' : fix,
    );
  }
  return new KeychainUnavailableError(`keychain error: ${oneLine(msg)}`, fix);
}

export function createKeychainStore(options: KeychainOptions = {}): SecretStore {
  const service = options.service ?? KEYCHAIN_SERVICE;
  const platform = options.platform ?? process.platform;
  const timeoutMs = options.timeoutMs ?? 30_000;
  let keytar: Promise<KeytarLike> | undefined;

  const load = (): Promise<KeytarLike> =>
    (keytar ??= (options.load ?? loadKeytar)().catch((e: unknown) => {
      throw new KeychainUnavailableError(
        `keytar could not be loaded: ${oneLine(e instanceof Error ? e.message : String(e))}`,
        platform === 'linux'
          ? 'install libsecret-1-0 and run `npm rebuild keytar` in the Tidy folder, or set OPENAI_API_KEY'
          : 'run `npm rebuild keytar` in the Tidy folder, or set OPENAI_API_KEY',
      );
    }));

  async function call<T>(op: (k: KeytarLike) => Promise<T>): Promise<T> {
    const k = await load();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new KeychainUnavailableError(`it did not answer within ${Math.round(timeoutMs / 1000)} s — waiting for an unlock prompt?`, fixFor(platform))),
        timeoutMs,
      );
      timer.unref();
    });
    try {
      return await Promise.race([op(k), timeout]);
    } catch (e) {
      throw e instanceof KeychainUnavailableError ? e : classifyKeychainError(e, platform);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    label: 'the OS keychain',
    async get(account) {
      return (await call((k) => k.getPassword(service, account))) ?? undefined;
    },
    set(account, secret) {
      return call((k) => k.setPassword(service, account, secret));
    },
    clear(account) {
      return call((k) => k.deletePassword(service, account));
    },
    async probe() {
      // A lookup of an account nobody uses: it fails exactly when the keychain cannot be reached. (A
      // locked GNOME keyring answers "not found" here; only writing tells, and probing must not write.)
      try {
        await call((k) => k.getPassword(service, '.probe'));
        return { available: true };
      } catch (e) {
        return { available: false, error: e instanceof KeychainUnavailableError ? e : classifyKeychainError(e, platform) };
      }
    },
  };
}
