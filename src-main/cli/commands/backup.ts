import type { Command } from 'commander';
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveDbPath } from '../../core';
import { backupDatabase, exportJson, exportMarkdown, FdSink, importTidyExport, restoreDatabase, stamp, writeFileAtomically } from '../../core/data';
import { usage, type Cli } from '../context';

const mb = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MB`;

/** Backups, restore, export and import of Tidy's own export (core/data). */
export function registerBackupCommands(program: Command, cli: Cli): void {
  program
    .command('backup')
    .description('a checked copy of the database (safe while Tidy runs); prints its path')
    .option('--out <file>', 'where to write it (default: backups/tidy-backup-<time>.db beside the database)')
    .action(async (o: { out?: string }) => {
      const dbPath = resolveDbPath(cli.globals.db);
      const out = resolve(o.out ?? `${resolve(dbPath, '..', 'backups')}/tidy-backup-${stamp(new Date())}.db`);
      if (resolve(dbPath) === out) throw usage('--out is the database itself', 'pass --out with another file');
      const info = await backupDatabase(cli.db(), out);
      cli.out(`Backed up to ${info.path} (${mb(info.bytes)}, schema ${info.schemaVersion}, integrity ok)`);
    });

  program
    .command('restore')
    .description('replace the database with a backup; the current one is kept aside (its path is printed)')
    .argument('<file>', 'a backup made by tidy backup')
    .action((file: string) => {
      const dbPath = resolveDbPath(cli.globals.db);
      if (resolve(file) === resolve(dbPath)) throw usage('that file is the database itself', 'pass a backup file');
      cli.close();
      const r = restoreDatabase(resolve(file), dbPath);
      cli.out(`Restored ${dbPath} from ${file} (schema ${r.schemaVersion}).`);
      cli.out(r.keptAt ? `The database it replaced is kept at ${r.keptAt}` : 'There was no database before.');
    });

  program
    .command('export')
    .description('everything as JSON (re-importable with tidy import tidy) or as readable Markdown')
    .option('--format <format>', 'json or markdown', 'json')
    .option('--out <file>', 'write to this file instead of standard output')
    .action((o: { format: string; out?: string }) => {
      if (o.format !== 'json' && o.format !== 'markdown') throw usage(`--format ${o.format} is not known`, 'use --format json or --format markdown');
      const run = o.format === 'json' ? exportJson : exportMarkdown;
      const db = cli.db();
      if (o.out) {
        const out = resolve(o.out);
        if (existsSync(out) && statSync(out).isDirectory()) throw usage(`${o.out} is a folder`, 'pass --out with a file path');
        writeFileAtomically(out, (sink) => run(db, sink));
        process.stderr.write(`Exported to ${out}\n`);
      } else {
        const sink = new FdSink(1);
        try {
          run(db, sink);
          sink.flush();
        } catch (e) {
          // The reader went away (`tidy export | head`): that is the reader's choice, not a failure.
          if ((e as NodeJS.ErrnoException).code !== 'EPIPE') throw e;
        }
      }
    });

  const imp = program.command('import').description('bring data into Tidy');
  imp
    .command('tidy')
    .description("a JSON file made by tidy export, into an empty database (same ids; nothing imported on any error)")
    .argument('<file>', 'the export file')
    .action((file: string) => {
      const r = importTidyExport(cli.db(), resolve(file));
      const c = r.counts;
      cli.out(
        `Imported ${c['projects']} projects, ${c['tasks']} tasks, ${c['lists']} lists (${c['items']} items), ${c['conversations']} conversations, ${c['runs']} runs and ${c['actions']} logged actions.`,
      );
    });
}
