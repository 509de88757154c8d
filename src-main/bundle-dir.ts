// Where the running program's built files are. A module cannot tell from its own import.meta.url: the
// bundler moves modules into chunks (out/cli/chunks/ for `tidy`), so a path relative to a module depends on
// which chunk it landed in. The bundle's entry knows where it sits, and says so once at start: the CLI
// (src-main/cli/main.ts) in out/cli/, the app (src-main/app/main.ts) in out/main/. Running from source
// (vitest, tsx), no entry sets it, and the package's out/cli/ is meant.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let entryDir: string | undefined;

/** Called by a bundle's entry with its own import.meta.url, before it does anything else. */
export function setBundleDir(entryUrl: string | URL): void {
  entryDir = dirname(fileURLToPath(entryUrl));
}

/**
 * The folder of the running bundle's entry: out/cli/ (`tidy`: the calculator's worker beside it, the
 * window's build in ../renderer/) or out/main/ (the app); unbundled, the package's out/cli/.
 */
export function bundleDir(): string {
  return entryDir ?? fileURLToPath(new URL('../out/cli/', import.meta.url)).replace(/[\\/]$/, '');
}

/** The `tidy` command's script in this package (bin/tidy.mjs, which loads out/cli/tidy.mjs). */
export function tidyScript(): string {
  return join(bundleDir(), '..', '..', 'bin', 'tidy.mjs');
}
