// The `tidy` command: every command is a thin shell over src-main/core. Exit 0 on success, 2 on a usage
// error, 1 on any other failure — always with one clear line on stderr, never a stack trace.
// This entry stays small: program.ts loads only the group of commands the command line names.
import { setBundleDir } from '../bundle-dir';
import { runCli } from './program';

// This file is the bundle's entry, out/cli/tidy.mjs: what the commands find beside it is found from here.
setBundleDir(import.meta.url);

process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

await runCli(process.argv.slice(2));
