// `tidy mcp`: Tidy as an MCP server on stdio (for Claude Desktop, Cursor, VS Code…), and
// `tidy mcp add|list|remove`: MCP servers whose tools Tidy's agent may use (settings `mcpServers`).
import type { Command } from 'commander';
import { resolve } from 'node:path';
import { tidyScript } from '../../bundle-dir';
import { ENV_NAME, MAX_MCP_SERVERS, McpServerConfig, McpServerName, mcpTarget, mcpUrlProblem, normaliseServerName, type McpServers } from '../../../src-shared/mcp';
import { readSettings, writeSetting } from '../../core/settings';
import { TOOLS, createToolServices, type ToolServices } from '../../core/agent';
import { CliFailure, must, printable, usage, type Cli } from '../context';

const VERSION = '0.1.0';

/** The JSON a client's configuration needs to start this Tidy as an MCP server. */
export function printConfig(cli: Cli, client: string): unknown {
  const args = [tidyScript(), ...(cli.globals.db ? ['--db', resolve(cli.globals.db)] : []), 'mcp'];
  const server = { command: process.execPath, args };
  return client === 'vscode' ? { servers: { tidy: { type: 'stdio', ...server } } } : { mcpServers: { tidy: server } };
}

async function serve(cli: Cli): Promise<void> {
  const log = (line: string) => process.stderr.write(`tidy mcp: ${printable(line)}\n`);
  const { createTidyMcpServer, MCP_BUSY_TIMEOUT_MS } = await import('../../core/mcp/server');
  // A short busy timeout: a call waits for another process's write lock on a timer (server.ts whileBusy), not by blocking.
  const db = cli.db({ verify: 'always', busyTimeoutMs: MCP_BUSY_TIMEOUT_MS });
  const { serveStdio } = await import('@modelcontextprotocol/server/stdio');
  const { BoundedStdioTransport } = await import('../../core/mcp/stdio');
  let calculator: ReturnType<ToolServices['calculator']> | undefined;
  const base = createToolServices();
  const services: ToolServices = { ...base, calculator: () => (calculator ??= base.calculator()) };
  const { factory, session } = createTidyMcpServer({ db, tools: TOOLS, services, version: VERSION, log });
  log(`serving ${db.name} on stdio`);
  const transport = new BoundedStdioTransport({ log });
  const handle = serveStdio(factory, { transport, onerror: (e) => log(`protocol error: ${e.message.split('\n')[0]!.slice(0, 300)}`) });
  // The client ends the session by closing stdin; the database stays open until then.
  await new Promise<void>((done) => {
    process.stdin.once('end', done);
    process.stdin.once('close', done);
    process.once('SIGTERM', done);
    process.once('SIGINT', done);
  });
  // Calls the client sent but did not wait for end with it: the one running finishes, the rest never start.
  const dropped = session.end();
  await handle.close().catch(() => {});
  await calculator?.close();
  if (dropped) log(`${dropped} call${dropped === 1 ? '' : 's'} the client sent were not run: it left before they started`);
  log(`session ended${session.requestId ? ` (its changes: request ${session.requestId}; undo with tidy undo --run ${session.requestId})` : ''}`);
}

function servers(cli: Cli): McpServers {
  return readSettings(cli.db()).mcpServers;
}

function save(cli: Cli, next: McpServers): void {
  must(writeSetting(cli.db(), 'mcpServers', next));
}

interface AddOptions {
  url?: string;
  env?: string[];
  disabled?: boolean;
}

/** A server's name as typed ("My Notes") as the name it is stored under (my_notes); one line when nothing usable is left. */
function serverName(typed: string): string {
  if (McpServerName.safeParse(typed).success) return typed;
  const name = normaliseServerName(typed);
  if (name === null) throw usage(`'${typed.slice(0, 40)}' is not a server name`, 'use letters and digits, e.g. github or my_notes');
  return name;
}

function add(cli: Cli, typed: string, command: string[], o: AddOptions): void {
  const name = serverName(typed);
  if (o.url && command.length) throw usage('give either --url or a command after --, not both', 'e.g. tidy mcp add notes -- npx -y some-mcp-server');
  if (!o.url && command.length === 0) throw usage('say how to reach the server', 'tidy mcp add NAME -- command args…  or  tidy mcp add NAME --url https://…/mcp');
  if (o.url !== undefined) {
    if (/[\r\n\t]/.test(o.url)) throw usage('the URL holds a line break or a tab', 'type the URL on one line, e.g. --url https://example.com/mcp');
    const problem = mcpUrlProblem(o.url);
    if (problem) throw usage(`the URL ${o.url.slice(0, 80)} ${problem}`, 'e.g. --url https://example.com/mcp');
  }
  const env: Record<string, string> = {};
  for (const pair of o.env ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw usage(`--env ${pair.slice(0, 40)} is not NAME=VALUE`, 'e.g. --env NOTES_DIR=/home/me/notes');
    const key = pair.slice(0, eq);
    if (!ENV_NAME.test(key)) throw usage(`--env ${JSON.stringify(key.slice(0, 40))}: an environment variable name is letters, digits and _, not starting with a digit`, 'e.g. --env NOTES_DIR=/home/me/notes');
    env[key] = pair.slice(eq + 1);
  }
  const candidate = o.url ? { url: o.url, enabled: !o.disabled } : { command: command[0]!, args: command.slice(1), env, enabled: !o.disabled };
  const config = McpServerConfig.safeParse(candidate);
  if (!config.success) {
    const issue = config.error.issues[0];
    throw usage(`the server is not valid: ${issue ? `${issue.path.join('.') || 'it'} ${issue.message}` : 'invalid'}`, 'check the command or URL');
  }
  const all = servers(cli);
  const replaced = Object.hasOwn(all, name);
  if (!replaced && Object.keys(all).length >= MAX_MCP_SERVERS)
    throw new CliFailure(`there are already ${MAX_MCP_SERVERS} MCP servers, the most Tidy starts`, 'remove one first: tidy mcp remove NAME (tidy mcp list shows them)');
  save(cli, { ...all, [name]: config.data });
  if (name !== typed) cli.out(`Named it ${name} (a server's name is lower_snake_case).`);
  cli.out(`${replaced ? 'Replaced' : 'Added'} the MCP server ${name}: ${mcpTarget(config.data)}${config.data.enabled ? '' : ' (off)'}`);
  cli.out(`Its tools reach the agent as ${name}__<tool> and ask before running (allow one: tidy config set approvals.${name}__<tool> auto).`);
}

function remove(cli: Cli, typed: string): void {
  const all = servers(cli);
  const name = Object.hasOwn(all, typed) ? typed : (normaliseServerName(typed) ?? typed);
  if (!Object.hasOwn(all, name)) throw new CliFailure(`no MCP server named ${name.slice(0, 40)}`, 'tidy mcp list shows them');
  const { [name]: _gone, ...rest } = all;
  save(cli, rest);
  // Its tools' approvals go with it, so a new server of the same name starts asking again.
  const approvals = readSettings(cli.db()).approvals;
  const kept = Object.fromEntries(Object.entries(approvals).filter(([tool]) => !tool.startsWith(`${name}__`)));
  must(writeSetting(cli.db(), 'approvals', kept));
  cli.out(`Removed the MCP server ${name}.`);
}

async function list(cli: Cli, o: { json?: boolean; tools?: boolean }): Promise<void> {
  const all = servers(cli);
  const { inspectServer } = await import('../../core/mcp/client');
  const rows = [];
  for (const [name, config] of Object.entries(all)) {
    let tools: { name: string; description: string }[] | undefined;
    let problem: string | undefined;
    const notOffered: string[] = [];
    if (o.tools && config.enabled) {
      try {
        tools = await inspectServer(name, config, { onProblem: (line) => notOffered.push(line) });
      } catch (e) {
        problem = e instanceof Error ? e.message : String(e);
      }
    }
    rows.push({ name, ...config, ...(tools ? { tools, notOffered } : {}), ...(problem ? { problem } : {}) });
  }
  if (o.json) return cli.json(rows);
  if (rows.length === 0) return cli.out('No MCP servers. Add one: tidy mcp add NAME -- command args…  or  tidy mcp add NAME --url URL');
  for (const r of rows) {
    cli.out(`${r.name.padEnd(16)} ${r.enabled ? 'on ' : 'off'}  ${mcpTarget(all[r.name]!)}${r.unconfirmed ? `  (from a ${r.unconfirmed} file: check it, then tidy mcp enable ${r.name})` : ''}`);
    if (r.problem) cli.out(`    could not list its tools: ${r.problem}`);
    for (const t of r.tools ?? []) cli.out(`    ${t.name}`);
    for (const line of r.notOffered ?? []) cli.out(`    not offered: ${line}`);
  }
}

export function registerMcpCommands(program: Command, cli: Cli): void {
  const mcp = program
    .command('mcp')
    .description('Tidy as an MCP server on stdio (tools + undo, for other AI apps); add|list|remove: servers Tidy’s agent may use')
    .option('--print-config [client]', 'print the JSON to put in a client’s configuration (claude, cursor, vscode)')
    .action(async (o: { printConfig?: string | boolean }) => {
      if (o.printConfig !== undefined) {
        const client = typeof o.printConfig === 'string' ? o.printConfig : 'claude';
        if (!['claude', 'cursor', 'vscode'].includes(client)) throw usage(`unknown client '${client.slice(0, 20)}'`, 'use claude, cursor or vscode');
        return cli.json(printConfig(cli, client));
      }
      await serve(cli);
    });
  mcp
    .command('add')
    .description('add (or replace) an MCP server: tidy mcp add NAME -- command args…, or tidy mcp add NAME --url URL')
    .argument('<name>', 'e.g. my_notes ("My Notes" becomes my_notes); its tools reach the agent as NAME__tool')
    .argument('[command...]', 'after --: the command that starts the server on stdio')
    .option('--url <url>', 'a streamable-HTTP MCP server')
    .option('--env <NAME=VALUE...>', 'environment for the server’s process (it gets nothing else of Tidy’s)')
    .option('--disabled', 'add it switched off')
    .action((name: string, command: string[], o: AddOptions) => add(cli, name, command, o));
  mcp
    .command('list')
    .description('the MCP servers Tidy’s agent may use')
    .option('--tools', 'start each enabled server and list its tools')
    .option('--json', 'print [{name, command, args, env, url, enabled, tools?, notOffered?, problem?}]')
    .action((o: { json?: boolean; tools?: boolean }) => list(cli, o));
  mcp
    .command('remove')
    .description('remove an MCP server (and its tools’ approvals)')
    .argument('<name>')
    .action((name: string) => remove(cli, name));
  for (const [verb, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    mcp
      .command(verb)
      .description(`switch an MCP server ${enabled ? 'on' : 'off'}`)
      .argument('<name>')
      .action((typed: string) => {
        const all = servers(cli);
        const name = Object.hasOwn(all, typed) ? typed : (normaliseServerName(typed) ?? typed);
        if (!Object.hasOwn(all, name)) throw new CliFailure(`no MCP server named ${name.slice(0, 40)}`, 'tidy mcp list shows them');
        const { failures: _reset, ...config } = all[name]!;
        save(cli, { ...all, [name]: { ...config, enabled } });
        cli.out(`The MCP server ${name} is ${enabled ? 'on' : 'off'}.`);
      });
  }
}
