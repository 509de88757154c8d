// `tidy ask`, `tidy runs`, `tidy trace`: the agent from the terminal. The CLI is one more host of the run
// API: it starts a run, prints its events (one subscriber), answers approvals and cancels on Ctrl-C.
import type { Command } from 'commander';
import { createInterface, type Interface } from 'node:readline';
import { Protocol } from '../../../src-shared/settings';
import type { AgentEvent, ApprovalDecision, RunInfo } from '../../../src-shared/events';
import {
  answerApproval,
  cancelRun,
  createLiveRuns,
  getConversation,
  getRun,
  latestConversation,
  listRuns,
  readTrace,
  startRunOn,
  TOOLS,
  createToolServices,
  type ConnectionAgentDeps,
} from '../../core/agent';
import { CliFailure, must, printable, printableJson, usage, type Cli } from '../context';
import { asCliFailure, cliConnection } from '../keys';
import { shownDates } from '../readable';

const oneLine = (s: string, max: number): string => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** A tool result in a few words: "9 tasks" for a list, else its JSON, cut short. */
function resultSummary(result: unknown): string {
  if (result && typeof result === 'object' && 'total' in result) {
    const list = Object.entries(result).find(([, v]) => Array.isArray(v));
    if (list) return `${String(result.total)} ${list[0]}${'truncated' in result ? ` (first ${(list[1] as unknown[]).length} shown)` : ''}`;
  }
  return oneLine(JSON.stringify(result), 100);
}

const tokens = (n: number): string => n.toLocaleString('en-US');

/** The readable trace: live during `tidy ask`, and replayed by `tidy trace`. Streamed text is printed as it comes. */
export function createPrinter(write: (text: string) => void): (event: AgentEvent) => void {
  let streaming = false;
  let changed = false;
  const endStream = (): void => {
    if (streaming) write('\n');
    streaming = false;
  };
  const line = (text: string): void => {
    endStream();
    write(`${text}\n`);
  };
  return (e) => {
    switch (e.type) {
      case 'run_started':
        return line(`run ${e.runId} (conversation ${e.conversationId}, ${e.model}, ${e.protocol})`);
      case 'text_delta':
        if (e.kind !== 'text') return;
        if (!streaming) write('Tidy: ');
        streaming = true;
        return write(e.text);
      case 'thought':
        return streaming ? endStream() : line(`  thinking: ${oneLine(e.text, 300)}`);
      case 'tool_call':
        return line(`  → ${e.tool} ${oneLine(JSON.stringify(e.args ?? {}), 120)}`);
      case 'tool_result': {
        if (e.actionId) changed = true;
        const r = e.result as { error?: unknown; hint?: unknown };
        const outside = e.external ? `  (on the MCP server ${e.external}: cannot be undone)` : '';
        return line(e.ok ? `  ← ${resultSummary(e.result)}${e.actionId ? `  (${e.actionId})` : ''}${outside}` : `  ✗ ${String(r.error)} (${String(r.hint)})`);
      }
      case 'approval_requested':
        return line(`  ? ${shownDates(e.message)}`);
      case 'approval_resolved':
        return line(`    ${e.decision === 'decline' ? 'declined' : e.decision === 'always' ? 'approved (always)' : 'approved'}${e.edits ? ` with the user's changes${e.message ? `: ${oneLine(e.message, 200)}` : ''}` : ''}`);
      case 'usage':
        return;
      case 'answer':
        return streaming ? endStream() : line(`Tidy: ${e.text}`);
      case 'error':
        return line(`  ! ${e.message}`);
      case 'run_finished': {
        const parts = [`${e.actions} action${e.actions === 1 ? '' : 's'}`, `${tokens(e.usage.totalTokens)} tokens`];
        const undo = changed ? ` — undo with: tidy undo --run ${e.runId}` : '';
        return line(`run ${e.runId}: ${e.status}${e.message && e.status !== 'done' ? ` (${e.message})` : ''}, ${parts.join(', ')}${undo}`);
      }
    }
  };
}

interface AskOptions {
  conversation?: string;
  continue?: boolean;
  new?: boolean;
  yes?: boolean;
  json?: boolean;
  protocol?: string;
  stream?: boolean;
  incognito?: boolean;
}

/**
 * Asks on the terminal (stderr, so --json output stays clean): y = approve, n = decline, a = always. The
 * question itself is on the line above (the trace prints it), except with --json.
 */
function askOnTerminal(rl: Interface, message: string | undefined): Promise<ApprovalDecision> {
  return new Promise((resolve) => {
    rl.question(`    ${message ? `${message} ` : ''}approve? [y]es / [n]o / [a]lways: `, (answer) => {
      const a = answer.trim().toLowerCase();
      resolve(a === 'y' || a === 'yes' ? 'approve' : a === 'a' || a === 'always' ? 'always' : 'decline');
    });
  });
}

async function ask(cli: Cli, words: string[], o: AskOptions): Promise<void> {
  const message = words.join(' ').trim();
  if (!message) throw usage('say what Tidy should do', 'e.g. tidy ask "clear my inbox into projects"');
  const given = [o.new && '--new', o.continue && '--continue', o.conversation !== undefined && '--conversation'].filter(Boolean);
  if (given.length > 1) throw usage(`${given.join(' and ')} cannot be used together`, 'pick one');
  const protocol = o.protocol === undefined ? undefined : Protocol.safeParse(o.protocol);
  if (protocol && !protocol.success) throw usage(`--protocol ${o.protocol} is not a protocol`, 'use native, json or auto');

  const db = cli.db();
  if (o.incognito && (o.continue || o.conversation)) throw usage('--incognito starts a new conversation', 'leave out --continue and --conversation');
  if (o.conversation && !getConversation(db, o.conversation)) throw new CliFailure(`no conversation with id ${o.conversation}`, 'see tidy runs for conversation ids, or use --new');
  const connection = cliConnection(cli);
  // A new conversation unless asked otherwise (as `claude -p` / `-c`): an unrelated earlier one never shapes the answer by surprise.
  const continued = o.continue ? latestConversation(db) : null;
  if (o.continue && !continued) throw new CliFailure('there is no conversation to continue yet', 'ask without --continue to start one');

  // The connection reads the key (keychain, else OPENAI_API_KEY) right before each request; it is never stored.
  const deps: ConnectionAgentDeps = { db, tools: TOOLS, live: createLiveRuns(), services: createToolServices() };

  const interactive = process.stdin.isTTY === true;
  let rl: Interface | undefined;
  let runId = '';
  let cancelling = false;
  const onInterrupt = (): void => {
    // First Ctrl-C cancels the run cleanly (status cancelled); a second one leaves at once.
    if (cancelling) process.exit(130);
    cancelling = true;
    process.stderr.write('tidy: cancelling… (Ctrl-C again to quit at once)\n');
    cancelRun(deps, runId);
  };

  const print = o.json ? (e: AgentEvent) => process.stdout.write(`${printableJson(e)}\n`) : createPrinter((t) => process.stdout.write(printable(t)));
  const onEvent = (e: AgentEvent): void => {
    print(e);
    if (e.type !== 'approval_requested') return;
    if (!interactive) {
      process.stderr.write(`tidy: declined "${printable(shownDates(e.message))}": there is no terminal to ask (use --yes to allow it)\n`);
      answerApproval(deps, e.runId, e.approvalId, 'decline');
      return;
    }
    rl ??= createInterface({ input: process.stdin, output: process.stderr }).on('SIGINT', onInterrupt);
    void askOnTerminal(rl, o.json ? e.message : undefined).then((d) => answerApproval(deps, e.runId, e.approvalId, d));
  };

  const started = must(
    await startRunOn(
      connection,
      deps,
      {
        message,
        conversationId: o.conversation ?? continued ?? undefined,
        ...(protocol?.success ? { protocol: protocol.data } : {}),
        ...(o.stream !== undefined ? { stream: o.stream } : {}),
        approveAll: o.yes === true,
        ...(o.incognito ? { incognito: true } : {}),
      },
      onEvent,
    ).catch((e: unknown) => {
      throw asCliFailure(e);
    }),
  );
  runId = started.runId;
  if (continued) {
    // Say which conversation --continue picked (once the run is under way, so a refusal stays one line).
    const c = getConversation(db, continued);
    process.stderr.write(`tidy: continuing conversation ${continued}${c ? ` ("${printable(oneLine(c.title, 60))}")` : ''}\n`);
  }
  process.on('SIGINT', onInterrupt);
  const result = await started.finished.finally(() => {
    process.off('SIGINT', onInterrupt);
    rl?.close();
  });
  if (result.status === 'done') return;
  const changed = result.actions > 0;
  throw new CliFailure(
    result.message ?? result.status,
    changed ? `run ${result.runId}; undo its changes with: tidy undo --run ${result.runId}` : `run ${result.runId}; details: tidy trace ${result.runId}`,
  );
}

function runLine(r: RunInfo): string {
  const when = r.startedAt.replace('T', ' ').slice(0, 16);
  return `${r.id.padEnd(6)} ${r.status.padEnd(9)} ${when}  ${String(r.actions).padStart(3)} actions  ${tokens(r.usage.totalTokens).padStart(7)} tokens  ${oneLine(r.request, 60)}`;
}

export function registerAgentCommands(program: Command, cli: Cli): void {
  program
    .command('ask')
    .description('ask the agent to do something; prints what it does as it works, then the run id (undo it with tidy undo --run)')
    .argument('<message...>', 'what Tidy should do')
    .option('-c, --continue', 'continue the most recent conversation (default: a new one)')
    .option('--conversation <id>', 'continue this conversation')
    .option('--new', 'start a new conversation (the default)')
    .option('--incognito', 'a new conversation that neither reads nor writes memory')
    .option('--yes', 'run tools that need approval without asking')
    .option('--json', 'print the events as JSON lines; the last is run_finished with the run id and status')
    .option('--protocol <protocol>', 'native tool calls or the json ReAct format (default: the protocol setting)')
    .option('--stream', 'stream the answer as it is written')
    .option('--no-stream', 'wait for whole answers')
    .action((words: string[], o: AskOptions) => ask(cli, words, o));

  program
    .command('runs')
    .description('agent runs, newest first')
    .option('--limit <n>', 'how many', '50')
    .option('--json', 'print [{id, conversationId, status, request, answer, message, model, protocol, actions, usage, startedAt, finishedAt}]')
    .action((o: { limit: string; json?: boolean }) => {
      const limit = Number(o.limit);
      if (!Number.isInteger(limit) || limit < 1) throw usage(`--limit ${o.limit} is not a positive whole number`, 'e.g. --limit 100');
      const runs = listRuns(cli.db(), { limit });
      if (o.json) return cli.json(runs);
      if (runs.length === 0) return cli.out('No runs yet. Ask Tidy something: tidy ask "…"');
      for (const r of runs) cli.out(runLine(r));
    });

  program
    .command('trace')
    .description('what a run did, step by step')
    .argument('<run>', 'run id, from tidy runs')
    .option('--json', 'print the run’s events as a JSON array')
    .action((id: string, o: { json?: boolean }) => {
      const db = cli.db();
      const run = getRun(db, id);
      if (!run) throw new CliFailure(`no run with id ${id}`, 'tidy runs lists the runs');
      const events = readTrace(db, id);
      if (o.json) return cli.json(events);
      cli.out(`You: ${run.request}`);
      const print = createPrinter((t) => process.stdout.write(printable(t)));
      for (const e of events) print(e);
      if (run.status === 'running') cli.out(`run ${run.id} has not finished (still going, or its process ended early)`);
    });
}
