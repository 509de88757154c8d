/**
 * The CLI's side of keys and providers: one keychain store per process, keychain notices printed once on
 * stderr, and the Connection a model request uses (profile + --base-url/--model overrides + the key).
 */
import { resolveConnection, type Connection } from '../core/providers/connection';
import { ApiKeyError, type KeyDeps } from '../core/secrets/api-key';
import { createKeychainStore } from '../core/secrets/keychain';
import { KeychainUnavailableError, type SecretStore } from '../core/secrets/store';
import { CliFailure, usage, type Cli } from './context';

let store: SecretStore | undefined;

/** The OS keychain (service "Tidy"); keytar is loaded on first use only. */
export function cliSecrets(): SecretStore {
  store ??= createKeychainStore();
  return store;
}

const printed = new Set<string>();

/** A one-line note on stderr (not an error: the command goes on), at most once per process. */
export function notice(line: string): void {
  if (printed.has(line)) return;
  printed.add(line);
  process.stderr.write(`tidy: ${line}\n`);
}

export function cliKeyDeps(): KeyDeps {
  return { secrets: cliSecrets(), env: process.env, onNotice: notice };
}

const envOr = (flag: string | undefined, name: string): string | undefined => flag ?? (process.env[name] || undefined);

/**
 * The connection a model request from the CLI uses: the active profile (or `profile`), with --base-url
 * (TIDY_BASE_URL) and --model (TIDY_MODEL) applied for this run. `connection.apiKey` is the `getApiKey`
 * to hand to createOpenAIModel.
 */
export function cliConnection(cli: Cli, profile?: string): Connection {
  const r = resolveConnection(cli.db(), cliKeyDeps(), {
    profile,
    baseUrl: envOr(cli.globals.baseUrl, 'TIDY_BASE_URL'),
    model: envOr(cli.globals.model, 'TIDY_MODEL'),
  });
  if (!r.ok) throw usage(r.error, r.hint);
  return r.value;
}

/** ApiKeyError and KeychainUnavailableError as the one line the CLI prints (exit 1); anything else as is. */
export function asCliFailure(e: unknown): unknown {
  if (e instanceof ApiKeyError) return new CliFailure(e.error, e.hint);
  if (e instanceof KeychainUnavailableError) return new CliFailure(`no OS keychain available (${e.reason})`, e.fix);
  return e;
}
