import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Electron's userData folder for the app name "Tidy", computed without Electron so that the CLI and
 * the desktop app open the same database.
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'Tidy');
  if (platform === 'win32') return join(env['APPDATA'] ?? join(homedir(), 'AppData', 'Roaming'), 'Tidy');
  const config = env['XDG_CONFIG_HOME'] && env['XDG_CONFIG_HOME'].startsWith('/') ? env['XDG_CONFIG_HOME'] : join(homedir(), '.config');
  return join(config, 'Tidy');
}

/** `--db PATH` wins, then TIDY_DB, then the shared default. */
export function resolveDbPath(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  if (flag) return flag;
  if (env['TIDY_DB']) return env['TIDY_DB'];
  return join(userDataDir(env), 'tidy.db');
}
