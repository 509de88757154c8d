import type { Command } from 'commander';
import type { Failure } from '../../src-shared/result';
// Direct imports, not the core barrel: every command loads this file (see program.ts).
import { getActionRow, newUserRequest, type ActionContext } from '../core/actions/log';
import type { Mutated } from '../core/domain/mutation';
import { openDatabase, type Db } from '../core/store/db';
import { resolveDbPath } from '../core/store/paths';
import { shownDates } from './readable';

/** A failure the user can act on: printed as one line on stderr, exit 1. */
export class CliFailure extends Error implements Failure {
  constructor(
    readonly error: string,
    readonly hint: string,
    readonly exitCode = 1,
  ) {
    super(error);
  }
}

/**
 * Text safe to print on a terminal: control characters (an escape sequence in a task's text could move
 * the cursor, rewrite the screen or set the window title) and bidirectional overrides (which make text
 * read other than it is) are shown as visible escapes. Line breaks and tabs stay.
 */
export function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** JSON for a terminal or a pipe: JSON.stringify already escapes C0 controls; this escapes DEL, C1 and bidi overrides too. */
export function printableJson(value: unknown, indent?: number): string {
  return printable(JSON.stringify(value, null, indent));
}

/** A command used wrongly: exit 2. */
export const usage = (error: string, hint: string): CliFailure => new CliFailure(error, hint, 2);

export interface GlobalOptions {
  db?: string;
  baseUrl?: string;
  model?: string;
}

/** What every command gets: the database (opened on first use), output helpers, global options. */
export interface Cli {
  readonly globals: GlobalOptions;
  /**
   * `verify: 'always'` checks a large file for damage too (a long-lived host opens it once);
   * `busyTimeoutMs`: a long-lived host waits for another process's lock without blocking (host/dispatch.ts).
   */
  db(options?: { verify?: 'always'; busyTimeoutMs?: number }): Db;
  /** A new request id for changes made by this command. */
  request(): ActionContext;
  out(line: string): void;
  json(value: unknown): void;
  close(): void;
}

export function createCli(program: Command): Cli {
  let db: Db | undefined;
  // Who this process is, in another process's refusal to restore: "tidy serve", "tidy add".
  let holder = 'a tidy command';
  program.hook('preAction', (_root, action) => {
    const names: string[] = [];
    for (let c: Command | null = action; c && c !== program; c = c.parent) names.unshift(c.name());
    holder = ['tidy', ...names].join(' ');
  });
  const cli: Cli = {
    get globals() {
      return program.opts<GlobalOptions>();
    },
    db(options) {
      db ??= openDatabase(resolveDbPath(cli.globals.db), {
        verify: options?.verify ?? 'small',
        holder,
        ...(options?.busyTimeoutMs !== undefined ? { busyTimeoutMs: options.busyTimeoutMs } : {}),
      });
      return db;
    },
    request() {
      return newUserRequest(cli.db());
    },
    out(line) {
      process.stdout.write(`${printable(line)}\n`);
    },
    json(value) {
      process.stdout.write(`${printableJson(value, 2)}\n`);
    },
    close() {
      db?.close();
      db = undefined;
    },
  };
  return cli;
}

/** Unwraps a domain result: the value, or a CliFailure with the domain's message and hint. */
export function must<T>(r: { ok: true; value: T } | ({ ok: false } & Failure)): T {
  if (!r.ok) throw new CliFailure(r.error, r.hint);
  return r.value;
}

/** Runs a logged change and prints what it did, with the action id to undo it by. */
export function change<T>(cli: Cli, run: (db: Db, ctx: ActionContext) => Mutated<T>, print?: (value: T) => string): void {
  const db = cli.db();
  const r = run(db, cli.request());
  if (!r.ok) throw new CliFailure(r.error, r.hint);
  const summary = getActionRow(db, r.actionId)?.summary ?? 'Done';
  cli.out(print ? print(r.value) : `${shownDates(summary)} (${r.actionId}; undo with: tidy undo ${r.actionId})`);
}
