/**
 * better-sqlite3 is a native module, and Node and Electron have different ABIs. node_modules keeps the
 * Node build (tests, the CLI); the app uses its own build for Electron's ABI, made once on first start
 * into the user-data folder and handed to better-sqlite3 through its `nativeBinding` option.
 * https://github.com/WiseLibs/better-sqlite3/blob/master/docs/api.md#new-databasepath-options
 */
import { app } from 'electron';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** Where the Electron build of better-sqlite3 lives: one file per module version, Electron version, platform and arch. */
export function sqliteBindingPath(): string {
  const { version } = createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string };
  const tag = `better-sqlite3-${version}-electron-${process.versions.electron}-${process.platform}-${process.arch}`;
  return join(app.getPath('userData'), 'native', tag, 'better_sqlite3.node');
}

/**
 * The better-sqlite3 binary for this Electron, building it on first start (a prebuilt download, else a
 * compile with node-gyp against Electron's headers; scripts/build-native.mjs). A packaged app carries
 * its binary already (electron-builder rebuilds native modules when packaging): undefined means "use it".
 */
export async function ensureSqliteBinding(log: (line: string) => void): Promise<string | undefined> {
  if (app.isPackaged) return undefined;
  const file = sqliteBindingPath();
  if (existsSync(file)) return file;
  log(`Tidy: building the SQLite module for Electron ${process.versions.electron} (first start only; a minute or two)…`);
  const script = join(app.getAppPath(), 'scripts', 'build-native.mjs');
  const args = [script, '--module', 'better-sqlite3', '--electron', process.versions.electron, '--out', file];
  // Electron runs the build script as plain Node; its output goes to the terminal `npm start` runs in.
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ELECTRON_RUN_AS_NODE: '1' }, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0 || !existsSync(file)) {
    throw new Error(`could not build better-sqlite3 for Electron ${process.versions.electron} (exit ${code}); see the output above, or run: node scripts/build-native.mjs --module better-sqlite3 --electron ${process.versions.electron} --out "${file}"`);
  }
  return file;
}
