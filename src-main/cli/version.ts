/** The package's version, for `tidy --version`; bundled from package.json at build time. */
import pkg from '../../package.json' with { type: 'json' };

export const VERSION: string = pkg.version;
