// Export and import benchmark: a JSON export of a 100k-row action log (time and peak memory, streamed to a
// file), and importing a 10,000-task export into an empty database.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addTask, newUserRequest, openDatabase } from '../src-main/core';
import { backupDatabase, exportJson, exportMarkdown, importTidyExport, importTodoist, readTodoistFiles, writeFileAtomically } from '../src-main/core/data';
import { report, time } from './util';

export async function benchData(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'tidy-bench-data-'));
  try {
    console.log('Export, import and backup');
    const db = openDatabase(join(dir, 'log.db'));
    db.exec(`
      WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 100000)
      INSERT INTO actions (id, request_id, source, tool, args, changes, summary, created_at)
      SELECT 'a' || x, 'u' || (x / 10), 'agent', 'update_task', '{"task":"t' || x || '","content":"a task with a few words in it"}',
             '[{"table":"tasks","id":"t' || x || '","before":null,"after":{"id":"t' || x || '","content":"a task with a few words in it"}}]',
             'Updated a task', '2026-01-01T00:00:00.000Z' FROM c;
    `);
    const out = join(dir, 'log.json');
    let maxRss = 0;
    const sample = () => (maxRss = Math.max(maxRss, process.memoryUsage().rss));
    global.gc?.();
    const base = process.memoryUsage().rss;
    const exp = await time(() =>
      writeFileAtomically(out, (sink) => {
        let n = 0;
        exportJson(db, { write: (c) => (++n % 1000 === 0 && sample(), sink.write(c)) });
      }),
    );
    sample();
    const fileMb = statSync(out).size / 1048576;
    const grewMb = (maxRss - base) / 1048576;
    report(`export JSON, 100k log rows (${fileMb.toFixed(0)} MB file)`, exp, 'ms');
    report(`  peak memory growth during it (${(grewMb / fileMb).toFixed(2)}× the file size)`, grewMb, ' MB', { max: 64, label: '64 MB' });
    const md = await time(() => writeFileAtomically(join(dir, 'log.md'), (sink) => exportMarkdown(db, sink)));
    report('export Markdown of the same database (the log is not in it)', md, 'ms');
    const backup = await time(() => backupDatabase(db, join(dir, 'copy.db')));
    report(`backup (online API + integrity check), ${(statSync(join(dir, 'copy.db')).size / 1048576).toFixed(0)} MB`, backup, 'ms');
    db.close();

    const src = openDatabase(join(dir, 'tasks.db'));
    src.transaction(() => {
      for (let i = 0; i < 10_000; i++) addTask(src, newUserRequest(src), { content: `task number ${i}`, priority: (i % 4) + 1 });
    })();
    const file = join(dir, 'tasks.json');
    writeFileAtomically(file, (sink) => exportJson(src, sink));
    src.close();
    const target = openDatabase(join(dir, 'empty.db'));
    const imp = await time(() => importTidyExport(target, file));
    const n = (target.prepare(`SELECT count(*) AS n FROM tasks`).get() as { n: number }).n;
    if (n !== 10_000) throw new Error(`import gave ${n} tasks`);
    report(`import a 10,000-task export (${(statSync(file).size / 1048576).toFixed(1)} MB, with its 10k log rows)`, imp, 'ms', { max: 2000, label: '2 s' });
    target.close();

    // A Todoist CSV of 10,000 tasks in 50 sections, with priorities, dates (ISO, phrases, recurring), notes and subtasks.
    const lines = ['TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG', 'meta,view_style=list,,,,,,,,,,,,'];
    const dates = ['', '2026-12-05', 'tomorrow at 5pm', 'every monday', '', 'Dec 12'];
    for (let i = 0; i < 10_000; i++) {
      if (i % 200 === 0) lines.push(`section,Section ${i / 200},,,,,,,,,,,,`);
      lines.push(`task,"Task ${i}, with a comma @label",${i % 7 === 0 ? '"a description"' : ''},${(i % 4) + 1},${i % 5 === 4 ? 2 : 1},Ana (1),,${dates[i % dates.length]},en,Europe/Madrid,,,,`);
      if (i % 10 === 0) lines.push('note,"a comment, quoted",,,,,,,,,,,,');
    }
    const csvText = lines.join('\r\n');
    const todo = openDatabase(join(dir, 'todoist.db'));
    const td = await time(() => importTodoist(todo, join(dir, 'todoist.db'), readTodoistFiles('Big.csv', Buffer.from(csvText))));
    const m = (todo.prepare(`SELECT count(*) AS n FROM tasks`).get() as { n: number }).n;
    if (m !== 10_000) throw new Error(`Todoist import gave ${m} tasks`);
    report(`import a 10,000-task Todoist CSV (${(csvText.length / 1048576).toFixed(1)} MB; backup first, one transaction)`, td, 'ms', { max: 5000, label: '5 s' });
    todo.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
