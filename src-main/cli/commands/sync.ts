// `tidy sync setup | status | devices | off` and `tidy sync` (one round): sync between your devices through
// a folder or a WebDAV server you own, end-to-end encrypted (docs/ARCHITECTURE.md, "Sync"). The passphrase
// is read from a hidden prompt or stdin, never an argument; the key derived from it and a WebDAV password
// go to the OS keychain, never the database. Without a keychain nothing is saved and each round asks again.
import type { Command } from 'commander';
import { writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { KeychainUnavailableError } from '../../core/secrets/store';
import { joinTarget } from '../../core/sync/setup';
import {
  disableSync,
  forgetDevice,
  keyAccount,
  listDevices,
  openTarget,
  passwordAccount,
  runSync,
  setupSync,
  syncStatus,
  targetOf,
  type SyncSummary,
  type TargetSpec,
  waitingText,
} from '../../core/sync/service';
import type { RoundOptions } from '../../core/sync/round';
import { readSyncState } from '../../core/sync/store-device';
import { CliFailure, usage, type Cli } from '../context';
import { cliSecrets, notice } from '../keys';
import { readSecret, SecretInputError } from '../secret-input';

const LOST = 'A lost passphrase cannot be recovered: without it nothing on the target can be read.';

/**
 * For the tests that kill a real `tidy sync` mid-round (test/integration/sync): with TIDY_TEST_SYNC_STEPS
 * set, each step of the round is printed on stderr as it is done, and the process holds (up to a minute)
 * after the step it names, if any.
 */
function testSteps(): RoundOptions {
  const hold = process.env['TIDY_TEST_SYNC_STEPS'];
  if (!hold) return {};
  return {
    onStep: (step) => {
      writeSync(2, `sync step: ${step}\n`);
      if (step === hold) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
    },
  };
}

/** What was piped in or typed: on stdin, the first line is the passphrase and the second (WebDAV with --user) the password. */
let piped: string[] | null = null;
async function secret(label: string, index: number): Promise<string> {
  try {
    if (process.stdin.isTTY) return await readSecret(process.stdin, (t) => process.stderr.write(t), label);
    piped ??= (await readSecret(process.stdin, () => undefined, label)).split(/\r?\n/);
    return piped[index] ?? '';
  } catch (e) {
    if (e instanceof SecretInputError) throw usage(`nothing was changed: ${e.message}`, 'run the command again');
    throw e;
  }
}

async function keychainGet(account: string): Promise<string | undefined> {
  try {
    return await cliSecrets().get(account);
  } catch (e) {
    if (e instanceof KeychainUnavailableError) return undefined;
    throw e;
  }
}

/** Saves a secret in the keychain; false (with a notice) when there is none. */
async function keychainSet(account: string, value: string, what: string): Promise<boolean> {
  try {
    await cliSecrets().set(account, value);
    return true;
  } catch (e) {
    if (!(e instanceof KeychainUnavailableError)) throw e;
    notice(`no OS keychain available (${e.reason}): the ${what} was not saved; \`tidy sync\` will ask for it each time (or pipe it in)`);
    return false;
  }
}

function describe(s: SyncSummary): string {
  const received = Object.entries(s.rows)
    .filter(([t]) => t !== 'actions')
    .map(([t, n]) => `${n} ${t === 'list_items' ? 'item' : t.replace(/s$/, '')}${n === 1 ? '' : 's'}`);
  const log = s.rows['actions'] ? `${s.rows['actions']} logged change${s.rows['actions'] === 1 ? '' : 's'}` : '';
  const got = [...received, ...(log ? [log] : [])];
  const parts = [
    `sent ${s.sent} change${s.sent === 1 ? '' : 's'}`,
    got.length ? `received ${got.join(', ')}` : s.received ? `received ${s.received} change${s.received === 1 ? '' : 's'}, nothing new` : 'nothing new from other devices',
  ];
  const waiting = waitingText(s.waiting);
  if (waiting) parts.push(waiting);
  return parts.join('; ');
}

export function registerSyncCommands(program: Command, cli: Cli): void {
  const sync = program
    .command('sync')
    .description('sync with your other devices through a folder or WebDAV server you own, end-to-end encrypted; alone: one round')
    .option('--json', 'print JSON')
    .option('--snapshot', 'also write a snapshot of this device (new devices start from the newest one)')
    .action(async (o: { json?: boolean; snapshot?: boolean }) => {
      const db = cli.db();
      const state = readSyncState(db);
      if (!state) throw new CliFailure('sync is not set up on this device', 'run `tidy sync setup --folder PATH` or `tidy sync setup --webdav URL [--user U]`');
      const spec: TargetSpec = targetOf(state);
      if (spec.kind === 'webdav' && spec.user) spec.password = (await keychainGet(passwordAccount(state.device))) ?? process.env['TIDY_WEBDAV_PASSWORD'] ?? (await secret(`WebDAV password for ${spec.user}`, 1));
      const target = openTarget(spec);
      const saved = await keychainGet(keyAccount(state.device));
      let key: Uint8Array;
      if (saved) key = new Uint8Array(Buffer.from(saved, 'base64'));
      else {
        const passphrase = await secret('Sync passphrase', 0);
        if (passphrase === '')
          throw new CliFailure('the sync key is not in the OS keychain, and no passphrase was given', 'type it at the prompt, or pipe it in: `printf "%s\\n" "$PASSPHRASE" | tidy sync`');
        key = await joinTarget(target, passphrase);
      }
      const summary = await runSync(db, key, target, { ...testSteps(), snapshot: o.snapshot === true });
      if (o.json) cli.json(summary);
      else {
        cli.out(`synced with ${target.label}: ${describe(summary)}`);
        for (const r of summary.renamed) cli.out(r);
        for (const p of summary.problems) cli.out(`problem: ${p}`);
      }
      if (summary.problems.length > 0) process.exitCode = 1;
    });

  sync
    .command('setup')
    .description('set up sync on this device: a new target is set up with a passphrase, one set up by another device is joined with its passphrase')
    .option('--folder <path>', 'a folder that Syncthing, Dropbox, iCloud Drive or a network share syncs')
    .option('--webdav <url>', 'a WebDAV folder (Nextcloud: https://HOST/remote.php/dav/files/USER/Tidy)')
    .option('--user <name>', 'the WebDAV user (the password is asked for, or TIDY_WEBDAV_PASSWORD)')
    .option('--name <name>', 'this device’s name as the others list it (default: the host name)')
    .allowExcessArguments(true)
    .action(async (o: { folder?: string; webdav?: string; user?: string; name?: string }, cmd: Command) => {
      if (cmd.args.length > 0) throw usage('the passphrase is read from a prompt or stdin, not from the command line', 'an argument stays in your shell history');
      if (Boolean(o.folder) === Boolean(o.webdav)) throw usage('say where to sync: --folder PATH or --webdav URL (one of them)', 'e.g. tidy sync setup --folder ~/Sync/Tidy');
      if (o.user && !o.webdav) throw usage('--user is for --webdav', 'a folder needs no login');
      if (o.webdav && !/^https?:\/\//i.test(o.webdav)) throw usage(`not an http(s) URL: ${o.webdav.slice(0, 200)}`, 'e.g. https://cloud.example.com/remote.php/dav/files/me/Tidy');
      const spec: TargetSpec = o.folder ? { kind: 'folder', url: resolve(o.folder) } : { kind: 'webdav', url: o.webdav!, user: o.user ?? null };
      const db = cli.db();
      if (readSyncState(db)) throw usage('sync is already set up on this device', 'run `tidy sync off` first to point it elsewhere');
      if (spec.kind === 'webdav' && spec.user) spec.password = process.env['TIDY_WEBDAV_PASSWORD'] ?? (await secret(`WebDAV password for ${spec.user}`, 1));
      const passphrase = await secret('Sync passphrase (the same on every device)', 0);
      const r = await setupSync(db, spec, passphrase, o.name ? { name: o.name } : {});
      const savedKey = await keychainSet(keyAccount(r.device), Buffer.from(r.key).toString('base64'), 'sync key');
      if (spec.password !== undefined) await keychainSet(passwordAccount(r.device), spec.password, 'WebDAV password');
      const where = openTarget(spec).label;
      cli.out(
        r.joined
          ? `joined ${where} as device ${r.device}${savedKey ? '; the key is in the OS keychain' : ''}${r.queued > 1 ? `; this database's own data (${r.queued.toLocaleString()} changes) goes with the first \`tidy sync\`` : ''}. Run \`tidy sync\` to receive your data.`
          : `set up ${where} for sync as device ${r.device}${savedKey ? '; the key is in the OS keychain' : ''}; ${r.queued.toLocaleString()} changes wait for the first \`tidy sync\`. Join it from your other devices with the same passphrase.`,
      );
      cli.out(LOST);
    });

  sync
    .command('status')
    .description('whether sync is on, where to, when it last synced, what waits')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) => {
      const s = syncStatus(cli.db());
      if (o.json) return cli.json(s);
      if (!s.on) return cli.out('sync is off on this device (tidy sync setup --folder PATH | --webdav URL)');
      cli.out(`sync is on: ${s.target}, as ${s.name} (${s.device})`);
      cli.out(`last synced: ${s.lastSyncedAt ?? 'never'}; ${s.outbox} local change(s) to send; ${(s.waiting && waitingText(s.waiting)) ?? 'no received change waiting'}`);
      for (const r of s.renamed ?? []) cli.out(r);
      if (s.lastError) cli.out(`last error: ${s.lastError}`);
    });

  sync
    .command('devices')
    .description('the devices that sync with this one: name, last seen')
    .option('--json', 'print JSON')
    .option('--forget <id>', 'stop listing a device (its changes stay)')
    .action((o: { json?: boolean; forget?: string }) => {
      const db = cli.db();
      if (!readSyncState(db)) throw new CliFailure('sync is not set up on this device', 'run `tidy sync setup` first');
      if (o.forget !== undefined) {
        if (!forgetDevice(db, o.forget)) throw new CliFailure(`no device ${o.forget.slice(0, 40)} is listed`, 'run `tidy sync devices` to see their ids');
        return cli.out(`forgot device ${o.forget}; if it syncs again it is listed again`);
      }
      const list = listDevices(db);
      if (o.json) return cli.json(list);
      for (const d of list) cli.out(`${d.device}  ${d.name ?? '(no name yet)'}${d.self ? ' (this device)' : ''}  last seen ${d.lastSeen ?? 'never'}`);
    });

  sync
    .command('off')
    .description('stop syncing this device (the data stays; the target and the other devices are left as they are)')
    .action(async () => {
      const state = disableSync(cli.db());
      if (!state) return cli.out('sync was already off on this device');
      for (const account of [keyAccount(state.device), passwordAccount(state.device)]) {
        try {
          await cliSecrets().clear(account);
        } catch (e) {
          if (!(e instanceof KeychainUnavailableError)) throw e;
        }
      }
      cli.out(`sync is off on this device (it synced with ${state.target_kind} ${state.target_url}); new ids are plain again`);
    });
}
