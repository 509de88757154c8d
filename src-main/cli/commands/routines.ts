// `tidy routines …`, `tidy approvals`, `tidy approve|decline`: routines by hand, running what is due once
// (for cron, systemd and launchd), and answering the approvals runs left waiting.
import type { Command } from 'commander';
import type { AgentEvent, ApprovalDecision } from '../../../src-shared/events';
import { tidyScript } from '../../bundle-dir';
import { createLiveRuns, createToolServices, getApproval, listApprovals, TOOLS, type StoredApproval } from '../../core/agent';
import { addRoutine, editRoutine, listRoutines, removeRoutine, resolveRoutine, runTimeWords } from '../../core/domain/routines';
import { connectionModel } from '../../core/providers/connection';
import { answerApprovalById, routineHistory, routineInfo, runDue, runRoutineNow, type RoutineHost, type RoutineRunResult } from '../../core/routines';
import { getActionRow } from '../../core/actions/log';
import type { Mutated } from '../../core/domain/mutation';
import type { Routine } from '../../core/domain/routines';
import type { Db } from '../../core/store/db';
import { CliFailure, change, usage, type Cli } from '../context';
import { asCliFailure, cliConnection } from '../keys';
import { createPrinter } from './agent';
import { shownDates, shownMoment } from '../readable';

/** The runner's view of this command: the database, the connection's model, the real clock. */
export function cliRoutineHost(cli: Cli, quiet = false): RoutineHost {
  return {
    db: cli.db(),
    deps: async () => {
      const connection = cliConnection(cli);
      await connection.resolveKey().catch((e: unknown) => {
        throw asCliFailure(e);
      });
      return {
        db: cli.db(),
        tools: TOOLS,
        live: createLiveRuns(),
        services: createToolServices(),
        createModel: (e) => connectionModel(connection, e),
        endpoint: { baseUrl: connection.baseUrl, model: connection.model },
      };
    },
    now: () => Date.now(),
    owner: `tidy (pid ${process.pid})`,
    notify: (n) => process.stderr.write(`tidy: ${n.text}\n`),
    ...(quiet ? {} : { onEvent: createPrinter((t) => process.stdout.write(t)) as (e: AgentEvent) => void }),
  };
}

const text = (words: string[]): string => words.join(' ').trim();

/**
 * An added or changed routine, printed as `change` does but with its schedule in the terminal's locale
 * ("every weekday at 8:00 AM" under en-US); the routine's name, the user's own words, stays as written.
 */
function changeRoutine(cli: Cli, run: (db: Db, ctx: ReturnType<Cli['request']>) => Mutated<Routine>): void {
  const db = cli.db();
  const r = run(db, cli.request());
  if (!r.ok) throw new CliFailure(r.error, r.hint);
  const summary = getActionRow(db, r.actionId)?.summary ?? 'Done';
  const at = r.value.schedule ? summary.lastIndexOf(r.value.schedule) : -1;
  const shown = at < 0 ? summary : `${summary.slice(0, at)}${shownDates(r.value.schedule)}${summary.slice(at + r.value.schedule.length)}`;
  cli.out(`${shown} (${r.actionId}; undo with: tidy undo ${r.actionId})`);
}


function approvalLine(a: StoredApproval): string {
  const args = JSON.stringify(a.args);
  const from = a.routineId ? `routine ${a.routineId}` : `run ${a.runId}`;
  const extra = a.card.schedule ? ` — ${shownDates(a.card.schedule)}; next: ${(a.card.nextRuns ?? []).map((n) => shownDates(n)).join(', ')}` : '';
  return `${a.id.padEnd(5)} ${shownMoment(a.createdAt)}  ${from}: ${shownDates(a.card.message)}${extra}  (${a.tool} ${args.length > 100 ? `${args.slice(0, 99)}…` : args})`;
}

function resultLine(r: RoutineRunResult): string {
  const what = r.status === 'waiting' ? `waiting for approval ${r.waitingFor} (tidy approve ${r.waitingFor} | tidy decline ${r.waitingFor})` : r.status;
  return `${r.routine.name}: ${r.kind} ${r.occurrence.startsWith('manual:') ? 'now' : r.occurrence} → ${what}${r.runId ? ` (run ${r.runId})` : ''}${r.message && r.status !== 'waiting' && r.status !== 'done' ? `: ${r.message}` : ''}`;
}

/** The command a timer runs: this very `tidy` (its script in this package), with the same database. */
function tidyCommand(cli: Cli): string {
  const db = cli.globals.db ?? process.env['TIDY_DB'];
  const quote = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  return [quote(process.execPath), quote(tidyScript()), ...(db ? ['--db', quote(db)] : []), 'routines', 'run-due'].join(' ');
}

export function printTimer(kind: string, command: string): string {
  switch (kind) {
    case 'cron':
      return `# crontab -e, then add this line: every minute, run what is due\n* * * * * ${command} >/dev/null 2>&1\n`;
    case 'systemd':
      return [
        '# ~/.config/systemd/user/tidy-routines.service',
        '[Unit]',
        'Description=Tidy: run the routines that are due',
        '',
        '[Service]',
        'Type=oneshot',
        `ExecStart=${command}`,
        '',
        '# ~/.config/systemd/user/tidy-routines.timer',
        '[Unit]',
        'Description=Tidy: look for due routines every minute',
        '',
        '[Timer]',
        'OnCalendar=*-*-* *:*:00',
        'Persistent=true',
        '',
        '[Install]',
        'WantedBy=timers.target',
        '',
        '# then: systemctl --user daemon-reload && systemctl --user enable --now tidy-routines.timer',
        '',
      ].join('\n');
    case 'launchd': {
      const args = command.split(' ').map((a) => `    <string>${a.replace(/^'|'$/g, '').replace(/&/g, '&amp;').replace(/</g, '&lt;')}</string>`);
      return [
        '<!-- ~/Library/LaunchAgents/app.tidy.routines.plist, then: launchctl load ~/Library/LaunchAgents/app.tidy.routines.plist -->',
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
        '<plist version="1.0">',
        '<dict>',
        '  <key>Label</key><string>app.tidy.routines</string>',
        '  <key>ProgramArguments</key>',
        '  <array>',
        ...args,
        '  </array>',
        '  <key>StartInterval</key><integer>60</integer>',
        '</dict>',
        '</plist>',
        '',
      ].join('\n');
    }
    default:
      throw usage(`${kind.slice(0, 40)} is not a kind of timer`, 'use systemd, cron or launchd');
  }
}

interface EditOptions {
  name?: string;
  every?: string;
  request?: string;
  pause?: boolean;
  resume?: boolean;
  skipMissed?: boolean;
  catchUp?: boolean;
  newConversation?: boolean;
  oneConversation?: boolean;
  tools?: string;
}

const toolsOption = (v: string | undefined): string[] | null | undefined => (v === undefined ? undefined : v.trim() === 'default' ? null : v.split(',').map((t) => t.trim()).filter(Boolean));

async function answer(cli: Cli, id: string, decision: ApprovalDecision): Promise<void> {
  const db = cli.db();
  const a = getApproval(db, id);
  if (!a) throw new CliFailure(`no approval with id ${id.slice(0, 40)}`, 'tidy approvals lists the approvals waiting');
  if (a.decidedAt) throw new CliFailure(`approval ${a.id} was already answered (${a.decision})`, 'tidy approvals lists the approvals waiting');
  const { answered, result: pending } = await answerApprovalById(cliRoutineHost(cli), a.id, decision);
  const result = await pending;
  if (!answered.continued) return cli.out(`${decision === 'decline' ? 'Declined' : 'Approved'} ${a.id}`);
  if (result && 'routine' in result) {
    cli.out(resultLine(result));
    if (result.status !== 'done' && result.status !== 'waiting') throw new CliFailure(result.message ?? result.status, `details: tidy trace ${result.runId ?? ''}`);
  } else if (result && result.status !== 'done') {
    throw new CliFailure(result.message ?? result.status, `details: tidy trace ${result.runId}`);
  }
}

export function registerRoutineCommands(program: Command, cli: Cli): void {
  const routines = program.command('routines').description('the agent on a schedule: list, add, edit, remove, run, history, run-due, print-timer');

  routines
    .command('list', { isDefault: true })
    .description('the routines, with their next runs and last result')
    .option('--json', 'print [{id, name, request, schedule, rrule, tz, conversation, tools, enabled, catchUp, nextRuns, lastRun, failures}]')
    .option('--all', 'removed ones too')
    .action((o: { json?: boolean; all?: boolean }) => {
      const now = Date.now();
      const rows = listRoutines(cli.db(), { all: o.all === true }).map((r) => routineInfo(cli.db(), r, now));
      if (o.json) return cli.json(rows);
      if (rows.length === 0) return cli.out('No routines yet. Add one: tidy routines add "Plan my day" --every "weekday at 8am" -- plan my day');
      for (const r of rows) {
        const next = r.nextRuns[0] ? `next ${shownDates(runTimeWords(Date.parse(r.nextRuns[0]), r.tz))}` : 'paused';
        const last = r.lastRun ? `, last: ${r.lastRun.status}` : '';
        cli.out(`${r.id.padEnd(4)} ${r.name} — ${shownDates(r.schedule)} (${next}${last}${r.failures ? `, ${r.failures} failed in a row` : ''}): ${r.request.length > 60 ? `${r.request.slice(0, 59)}…` : r.request}`);
      }
    });

  routines
    .command('add')
    .description('add a routine: tidy routines add "Plan my day" --every "weekday at 8am" -- plan my day')
    .argument('<name>', 'its name')
    .argument('<request...>', 'what Tidy should do each time')
    .requiredOption('--every <words>', 'when, in repeat words: "weekday at 8am", "friday 4pm", "day at 18:00"')
    .option('--new-conversation', 'a new conversation each run (default: one conversation for the routine)')
    .option('--skip-missed', 'skip runs missed while Tidy was not running (default: catch up once)')
    .option('--tools <names>', 'the tools it may use, comma-separated (default: every logged, undoable tool)')
    .action((name: string, words: string[], o: EditOptions) => {
      const tools = toolsOption(o.tools);
      changeRoutine(cli, (db, ctx) =>
        addRoutine(db, ctx, {
          name,
          request: text(words),
          schedule: o.every ?? '',
          conversation: o.newConversation ? 'new' : 'routine',
          catchUp: o.skipMissed ? 'skip' : 'once',
          ...(tools !== undefined ? { tools } : {}),
        }),
      );
    });

  routines
    .command('edit')
    .description('change a routine')
    .argument('<routine>', 'id or name')
    .option('--name <name>', 'a new name')
    .option('--every <words>', 'a new schedule')
    .option('--request <text>', 'a new request')
    .option('--pause', 'stop running it')
    .option('--resume', 'run it again')
    .option('--skip-missed', 'skip missed runs')
    .option('--catch-up', 'catch missed runs up once')
    .option('--new-conversation', 'a new conversation each run')
    .option('--one-conversation', 'one conversation for the routine')
    .option('--tools <names>', 'comma-separated, or "default"')
    .action((ref: string, o: EditOptions) => {
      if (o.pause && o.resume) throw usage('--pause and --resume cannot be used together', 'pick one');
      if (o.skipMissed && o.catchUp) throw usage('--skip-missed and --catch-up cannot be used together', 'pick one');
      const tools = toolsOption(o.tools);
      changeRoutine(cli, (db, ctx) =>
        editRoutine(db, ctx, {
          routine: ref,
          ...(o.name !== undefined ? { name: o.name } : {}),
          ...(o.every !== undefined ? { schedule: o.every } : {}),
          ...(o.request !== undefined ? { request: o.request } : {}),
          ...(o.pause ? { enabled: false } : o.resume ? { enabled: true } : {}),
          ...(o.skipMissed ? { catchUp: 'skip' as const } : o.catchUp ? { catchUp: 'once' as const } : {}),
          ...(o.newConversation ? { conversation: 'new' as const } : o.oneConversation ? { conversation: 'routine' as const } : {}),
          ...(tools !== undefined ? { tools } : {}),
        }),
      );
    });

  routines
    .command('remove')
    .description('remove a routine (undoable)')
    .argument('<routine>', 'id or name')
    .action((ref: string) => change(cli, (db, ctx) => removeRoutine(db, ctx, { routine: ref })));

  routines
    .command('run')
    .description('run a routine now')
    .argument('<routine>', 'id or name')
    .action(async (ref: string) => {
      resolveRoutine(cli.db(), ref);
      const r = await runRoutineNow(cliRoutineHost(cli), ref);
      cli.out(resultLine(r));
      if (r.status !== 'done' && r.status !== 'waiting') throw new CliFailure(r.message ?? r.status, r.runId ? `details: tidy trace ${r.runId}` : 'check the connection: tidy config test');
    });

  routines
    .command('history')
    .description('the runs of the routines (or of one), newest first')
    .argument('[routine]', 'id or name')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'print [{routineId, occurrence, kind, claimedAt, claimedBy, runId, status, message, finishedAt}]')
    .action((ref: string | undefined, o: { json?: boolean; limit: string }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usage(`--limit ${o.limit} is not a positive whole number`, 'e.g. --limit 100');
      const routine = ref ? resolveRoutine(cli.db(), ref) : null;
      const rows = routineHistory(cli.db(), routine?.id, limit);
      if (o.json) return cli.json(rows);
      if (rows.length === 0) return cli.out('No runs yet.');
      const names = new Map(listRoutines(cli.db(), { all: true }).map((r) => [r.id, r.name]));
      for (const h of rows)
        cli.out(
          `${shownMoment(h.claimedAt)}  ${names.get(h.routineId) ?? h.routineId}: ${h.kind} → ${h.status}${h.runId ? ` (run ${h.runId}; undo: tidy undo --run ${h.runId})` : ''}${h.message && h.status !== 'done' ? ` — ${h.message.slice(0, 120)}` : ''}`,
        );
    });

  routines
    .command('run-due')
    .description('run the routines that are due once and exit (for cron, systemd or launchd)')
    .action(async () => {
      const results = await runDue(cliRoutineHost(cli, true));
      for (const r of results) cli.out(resultLine(r));
      const failed = results.filter((r) => r.status === 'error' || r.status === 'limit' || r.status === 'cancelled');
      if (failed.length) throw new CliFailure(`${failed.length} routine run${failed.length === 1 ? '' : 's'} failed`, 'see tidy routines history');
    });

  routines
    .command('print-timer')
    .description('print the systemd units, crontab line or launchd plist that runs `tidy routines run-due` every minute')
    .argument('[kind]', 'systemd, cron or launchd', process.platform === 'darwin' ? 'launchd' : 'systemd')
    .action((kind: string) => {
      process.stdout.write(printTimer(kind, tidyCommand(cli)));
    });

  program
    .command('approvals')
    .description('approvals waiting for you (from routines and runs)')
    .option('--json', 'print [{id, runId, conversationId, tool, args, card, mode, routineId, createdAt, decidedAt, decision, continuedRunId}]')
    .action((o: { json?: boolean }) => {
      const rows = listApprovals(cli.db());
      if (o.json) return cli.json(rows.map(({ callId: _c, ownerPid: _p, decidedArgs: _d, ...a }) => a));
      if (rows.length === 0) return cli.out('No approvals waiting.');
      for (const a of rows) cli.out(approvalLine(a));
      cli.out('Answer with: tidy approve <ID> | tidy decline <ID>');
    });

  program
    .command('approve')
    .description('approve what a run waits for; its run goes on')
    .argument('<id>', 'the approval id, from tidy approvals')
    .action((id: string) => answer(cli, id, 'approve'));

  program
    .command('decline')
    .description('decline what a run waits for; its run goes on without it')
    .argument('<id>', 'the approval id, from tidy approvals')
    .action((id: string) => answer(cli, id, 'decline'));
}
