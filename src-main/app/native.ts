/**
 * Native modules (better-sqlite3, keytar) are built for one ABI, and Node's and Electron's differ.
 * node_modules keeps the Node builds (tests, the CLI); the app uses builds for Electron's ABI, made once on
 * first start into the user-data folder: better-sqlite3 gets its through the `nativeBinding` option
 * (https://github.com/WiseLibs/better-sqlite3/blob/master/docs/api.md#new-databasepath-options), the
 * keychain store loads keytar's addon from there.
 */
import { app } from 'electron';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { KeytarLike } from '../core';

type NativeModule = 'better-sqlite3' | 'keytar';

// Not named `require`: electron-vite's ESM output declares one at the top of the bundle already.
const requireHere = createRequire(import.meta.url);

/** One file per module version, Electron version, platform and arch: an upgrade of either builds afresh. */
function nativeBindingPath(module: NativeModule): string {
  const { version } = requireHere(`${module}/package.json`) as { version: string };
  const tag = `${module}-${version}-electron-${process.versions.electron}-${process.platform}-${process.arch}`;
  return join(app.getPath('userData'), 'native', tag, `${module.replace(/-/g, '_')}.node`);
}

/**
 * The module's addon for this Electron, built on first start (a prebuilt download, else a compile with
 * node-gyp against Electron's headers: scripts/build-native.mjs). A packaged app carries its addons
 * already (electron-builder rebuilds native modules when packaging): undefined means "use those".
 */
export async function ensureNativeBinding(module: NativeModule, log: (line: string) => void): Promise<string | undefined> {
  if (app.isPackaged) return undefined;
  const file = nativeBindingPath(module);
  if (existsSync(file)) return file;
  log(`Tidy: building ${module} for Electron ${process.versions.electron} (first start only; this can take a minute or two)…`);
  const script = join(app.getAppPath(), 'scripts', 'build-native.mjs');
  const args = [script, '--module', module, '--electron', process.versions.electron, '--out', file];
  // Electron runs the build script as plain Node; its output goes to the terminal `npm start` runs in.
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0 || !existsSync(file)) {
    throw new Error(
      `could not build ${module} for Electron ${process.versions.electron} (exit ${code}); see the output above, or run: node scripts/build-native.mjs --module ${module} --electron ${process.versions.electron} --out "${file}"`,
    );
  }
  return file;
}

/** keytar for the keychain store: its addon for Electron's ABI (the addon exports the same three functions). */
export function electronKeytar(built: Promise<string | undefined>): () => Promise<KeytarLike> {
  // A failed build is reported when the keychain is first used (as "keychain unavailable"), not as an unhandled rejection now.
  built.catch(() => undefined);
  return async () => {
    const file = await built;
    return (file ? requireHere(file) : requireHere('keytar')) as KeytarLike;
  };
}
