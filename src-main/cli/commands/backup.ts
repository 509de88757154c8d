import type { Command } from 'commander';
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { resolveDbPath } from '../../core/store/paths';
import { backupDatabase, restoreDatabase, stamp } from '../../core/data/backup';
import { exportJson, exportMarkdown, FdSink, writeFileAtomically } from '../../core/data/export';
import { exportIcal } from '../../core/data/ical';
import { importTidyExport } from '../../core/data/import';
import { describePlan, importTodoist, MAX_TODOIST_BYTES, planTodoistImport, readTodoistFiles } from '../../core/data/todoist';
import { usage, type Cli } from '../context';

/** A file's bytes, refusing a folder, a missing file or one larger than `max` before reading it. */
function readBounded(path: string, max: number): Uint8Array {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    throw usage(`cannot read ${path}`, 'pass the path of a Todoist CSV export or backup ZIP');
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw usage(`${path} is not a file`, 'pass the path of a Todoist CSV export or backup ZIP');
    if (st.size > max) throw usage(`${path} is ${mb(st.size)}, more than the ${mb(max)} Tidy imports`, 'import the projects one at a time');
    const buf = Buffer.alloc(st.size);
    for (let off = 0; off < st.size; ) {
      const n = readSync(fd, buf, off, st.size - off, off);
      if (n === 0) break;
      off += n;
    }
    return buf;
  } finally {
    closeSync(fd);
  }
}

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
    .description('everything as JSON (re-importable with tidy import tidy) or readable Markdown; --format ical: tasks with due dates as iCalendar VTODOs')
    .option('--format <format>', 'json, markdown or ical', 'json')
    .option('--out <file>', 'write to this file instead of standard output')
    .action((o: { format: string; out?: string }) => {
      const formats = { json: exportJson, markdown: exportMarkdown, ical: exportIcal } as const;
      if (!Object.hasOwn(formats, o.format)) throw usage(`--format ${o.format} is not known`, 'use --format json, markdown or ical');
      const run = formats[o.format as keyof typeof formats];
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

  imp
    .command('todoist')
    .description('a Todoist CSV export (one project, named after the file) or backup ZIP (one project per CSV); one undoable request')
    .argument('<file>', 'FILE.csv or backup.zip')
    .option('--project <name>', 'the project a single CSV goes into (default: the file name)')
    .option('--dry-run', 'say what would be created, change nothing')
    .action(async (file: string, o: { project?: string; dryRun?: boolean }) => {
      const path = resolve(file);
      const files = readTodoistFiles(file, readBounded(path, MAX_TODOIST_BYTES));
      const db = cli.db();
      if (o.dryRun) {
        const plan = planTodoistImport(db, files, { project: o.project });
        cli.out(`Would import ${plan.totals.tasks} tasks into ${plan.totals.projects} project${plan.totals.projects === 1 ? '' : 's'} (nothing changed):`);
        for (const line of describePlan(plan)) cli.out(`  ${line}`);
        return;
      }
      const r = await importTodoist(db, resolveDbPath(cli.globals.db), files, { project: o.project });
      cli.out(`Imported ${r.totals.tasks} tasks into ${r.totals.projects} project${r.totals.projects === 1 ? '' : 's'}:`);
      for (const line of describePlan(r)) cli.out(`  ${line}`);
      if (r.backup) cli.out(`A backup from just before is at ${r.backup}`);
      cli.out(`Undo the whole import with: tidy undo --run ${r.requestId}`);
    });
}
