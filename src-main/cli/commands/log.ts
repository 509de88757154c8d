import type { Command } from 'commander';
import { listActions } from '../../core/actions/log';
import { undoAction, undoLast, undoRequest, type UndoReport } from '../../core/actions/undo';
import { reversedLine } from '../../../src-shared/actions';
import type { ActionEntry } from '../../../src-shared/domain';
import { sessionClient } from '../../core/mcp/sessions';
import { must, usage, type Cli } from '../context';
import { shownDates, shownMoment } from '../readable';

const SOURCE_WORDS: Record<ActionEntry['source'], string> = { user: 'you', agent: 'Tidy', mcp: 'another AI app', import: 'import' };

function printLog(cli: Cli, entries: ActionEntry[]): void {
  if (entries.length === 0) return cli.out('The action log is empty.');
  let run = '';
  for (const e of entries) {
    if (e.requestId !== run) {
      run = e.requestId;
      const who = e.source === 'mcp' ? `${sessionClient(cli.db(), run) ?? SOURCE_WORDS.mcp} through MCP` : SOURCE_WORDS[e.source];
      cli.out(`${run}  (${who}, ${shownMoment(e.createdAt)})`);
    }
    cli.out(`  ${e.id.padEnd(7)} ${shownDates(e.summary)}${e.undoneAt ? '  [undone]' : ''}${e.external ? '  [outside Tidy: cannot be undone]' : ''}`);
  }
}

/** The action log and undo. */
export function registerLogCommands(program: Command, cli: Cli): void {
  program
    .command('log')
    .description('the action log, newest first, grouped by request')
    .option('--run <id>', 'only the actions of this request')
    .option('--limit <n>', 'how many entries', '50')
    .option('--json', 'print [{id, runId, tool, args, summary, what, createdAt, undoneAt}] (what: {verb, kind, id, name, count, reverses})')
    .action((o: { run?: string; limit: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usage(`--limit ${o.limit} is not a positive whole number`, 'e.g. --limit 100');
      const entries = listActions(cli.db(), { requestId: o.run, limit });
      if (o.json)
        // The public shape (docs/ARCHITECTURE.md, "Public contract") names the request `runId`
        // (an agent run or a user command).
        cli.json(entries.map(({ id, requestId, tool, args, summary, what, createdAt, undoneAt }) => ({ id, runId: requestId, tool, args, summary, what, createdAt, undoneAt })));
      else printLog(cli, entries);
    });

  program
    .command('undo')
    .description('undo one action, a whole request (--run) or the last request (--last); undoing an undo redoes')
    .argument('[action]', 'action id, from tidy log')
    .option('--run <id>', 'undo every change of this request, all or nothing')
    .option('--last', 'undo the most recent request that still has changes in effect')
    .option('--cascade', 'first undo the later changes that touched the same data')
    .option('--json', 'print {reversed: [{id, summary, what, subject}], created: [ids], renamed?: [lines]}')
    .action((action: string | undefined, o: { run?: string; last?: boolean; cascade?: boolean; json?: boolean }) => {
      const chosen = [action !== undefined, o.run !== undefined, !!o.last].filter(Boolean).length;
      if (chosen !== 1) throw usage('say what to undo: an action id, --run ID or --last', 'e.g. tidy undo a12, tidy undo --run r3, tidy undo --last');
      const db = cli.db();
      const options = { ctx: cli.request(), cascade: o.cascade };
      const report: UndoReport = must(
        action !== undefined ? undoAction(db, action, options) : o.run !== undefined ? undoRequest(db, o.run, options) : undoLast(db, options),
      );
      if (o.json) return cli.json(report);
      for (const [i, r] of report.reversed.entries()) cli.out(reversedLine(r, report.created[i]));
      for (const line of report.renamed ?? []) cli.out(line);
    });
}
