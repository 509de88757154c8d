/**
 * The desktop app under test: the built main bundle (out/main/index.js) in a child Node process whose
 * `electron` is the recording stand-in (test/support/electron/stand-in.ts), on a temp user-data folder and
 * database. The test drives it with commands (./electron/protocol.ts) and reads back what it did.
 *
 * ```ts
 * await prepareApp();                          // builds the bundles (once) and the stand-in
 * const app = await launchApp();               // before 'ready': only what main.ts does at import
 * await app.start();                           // 'ready', then wait until start() has finished
 * const s = await app.snapshot();              // windows, handlers, shortcuts, tray, calls…
 * await app.send({ op: 'invoke', window: 1, channel: 'tidy:tasks.list', input: {}, frame: { url: 'app://tidy/index.html' } });
 * ```
 *
 * Native addons: the app builds better-sqlite3 and keytar for Electron's ABI on first start, into
 * <userData>/native/<module>-<version>-electron-<electron>-<platform>-<arch>/ (src-main/app/native.ts).
 * Here "Electron" is this Node, so the launcher puts Node's own builds there, as a first start would have
 * left them: the app's real lookup runs, and finds them. If native.ts ever names the folder differently the
 * app would start a build (which needs the network): the launcher stops it at once and says so.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { onTestFinished } from 'vitest';
import { REPO } from './cli';
import { STAND_IN_ENV, type Command, type Commands, type Message, type Snapshot, type StandInConfig } from './electron/protocol';
import { inKeyringSession, NO_KEYCHAIN_ENV } from './keyring';
import { buildRendererOnce } from './renderer';

export const MAIN_BUNDLE = join(REPO, 'out', 'main', 'index.js');
export const PRELOAD_BUNDLE = join(REPO, 'out', 'preload', 'index.cjs');
/** The Electron version the stand-in claims: the one package.json installs. */
export const ELECTRON_VERSION = (JSON.parse(readFileSync(join(REPO, 'node_modules', 'electron', 'package.json'), 'utf8')) as { version: string }).version;

/** The title of Electron's error box for an uncaught exception in the main process. */
export const MAIN_PROCESS_ERROR = 'A JavaScript error occurred in the main process';

let standInDir: string | null = null;

/** Builds the app's bundles (once for all test files) and the stand-in (once per test process). */
export async function prepareApp(): Promise<void> {
  await buildRendererOnce();
  if (standInDir) return;
  const dir = mkdtempSync(join(tmpdir(), 'tidy-electron-stand-in-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const here = join(REPO, 'test', 'support', 'electron');
  await build({
    entryPoints: { register: join(here, 'register.ts'), hooks: join(here, 'hooks.ts'), electron: join(here, 'stand-in.ts') },
    outdir: dir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  standInDir = dir;
}

type ReplyOf<C extends Command> = Commands[C['op']]['reply'];

export interface AppUnderTest {
  /** The temp folder: `config` (XDG_CONFIG_HOME, so userData is config/Tidy) and the database. */
  dir: string;
  userData: string;
  dbPath: string;
  child: ChildProcess;
  /** stdout and stderr so far. */
  output(): string;
  send<C extends Command>(command: C): Promise<ReplyOf<C>>;
  snapshot(): Promise<Snapshot>;
  /** Polls the snapshot until `test` holds. */
  waitFor(what: string, test: (s: Snapshot) => boolean, timeoutMs?: number): Promise<Snapshot>;
  /** Emits 'ready' and waits until start() has run to its end (the will-quit listener is its last step). */
  start(): Promise<Snapshot>;
  /** Resolves when the process has ended, with the stand-in's last snapshot when it ended through app.quit/exit. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; snapshot: Snapshot | null }>;
}

export interface LaunchOptions {
  config?: Partial<Omit<StandInConfig, 'electronVersion'>>;
  /** Put Node's addon builds where the app looks for its own (default); false leaves the folder empty, as on a first start. */
  addons?: boolean;
  /** Extra environment for the app (or made from the temp paths). */
  env?: NodeJS.ProcessEnv | ((paths: { dir: string; dbPath: string; userData: string }) => NodeJS.ProcessEnv);
  /** Runs on the temp folder before the app starts (e.g. to seed the database). */
  before?: (paths: { dir: string; dbPath: string; userData: string }) => void;
}

const NATIVE_MODULES = [
  { module: 'better-sqlite3', addon: 'build/Release/better_sqlite3.node' },
  { module: 'keytar', addon: 'build/Release/keytar.node' },
] as const;

/** Node's addon builds where the app looks for the ones built for "this Electron". */
function placeNativeAddons(userData: string): void {
  for (const { module, addon } of NATIVE_MODULES) {
    const { version } = JSON.parse(readFileSync(join(REPO, 'node_modules', module, 'package.json'), 'utf8')) as { version: string };
    const folder = join(userData, 'native', `${module}-${version}-electron-${ELECTRON_VERSION}-${process.platform}-${process.arch}`);
    mkdirSync(folder, { recursive: true });
    copyFileSync(join(REPO, 'node_modules', module, addon), join(folder, `${module.replace(/-/g, '_')}.node`));
  }
}

/** Starts the app in a child process (before 'ready'); it is killed and its folder removed when the test ends. */
export async function launchApp(options: LaunchOptions = {}): Promise<AppUnderTest> {
  if (!standInDir) throw new Error('call prepareApp() first (in beforeAll)');
  const dir = mkdtempSync(join(tmpdir(), 'tidy-app-'));
  const config = join(dir, 'config');
  const userData = join(config, 'Tidy');
  const dbPath = join(dir, 'tidy.db');
  const addons = options.addons ?? true;
  if (addons) placeNativeAddons(userData);
  options.before?.({ dir, dbPath, userData });
  const extraEnv = typeof options.env === 'function' ? options.env({ dir, dbPath, userData }) : (options.env ?? {});

  const standIn: StandInConfig = { electronVersion: ELECTRON_VERSION, appPath: REPO, singleInstanceLock: true, refusedShortcuts: [], failLoads: false, ...options.config };
  // Outside a throwaway keyring session (scripts/with-keyring.sh) the app must not reach the user's own keychain.
  const keychain = inKeyringSession ? {} : NO_KEYCHAIN_ENV;
  const env: NodeJS.ProcessEnv = { ...process.env, ...keychain, TIDY_DB: dbPath, XDG_CONFIG_HOME: config, [STAND_IN_ENV]: JSON.stringify(standIn), ...extraEnv };
  for (const name of ['ELECTRON_RENDERER_URL', 'OPENAI_API_KEY', 'TIDY_BASE_URL', 'TIDY_MODEL']) if (!extraEnv[name]) delete env[name];

  const child = fork(MAIN_BUNDLE, [], { cwd: REPO, env, execArgv: ['--import', join(standInDir, 'register.mjs')], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  let out = '';
  let fatal: Error | null = null;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let lastSnapshot: Snapshot | null = null;
  const onOutput = (chunk: Buffer): void => {
    out += chunk.toString();
    if (addons && !fatal && /building \S+ for Electron/.test(out)) {
      fatal = new Error(`the app did not find the native addons the test placed in ${join(userData, 'native')} and started building them: has src-main/app/native.ts changed how it names them?`);
      child.kill('SIGKILL');
    }
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  child.on('message', (message: Message) => {
    if (message.kind === 'exit') {
      lastSnapshot = message.snapshot;
      return;
    }
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (!waiting) return;
    if (message.ok) waiting.resolve(message.value);
    else waiting.reject(new Error(`the stand-in refused a command: ${message.error}`));
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; snapshot: Snapshot | null }>((resolve) => {
    // 'close', not 'exit': it comes after the output and the last IPC message (the final snapshot) are in.
    child.once('close', (code, signal) => {
      for (const { reject } of pending.values()) reject(fatal ?? new Error(`the app exited (${code ?? signal}) before answering; its output:\n${out}`));
      pending.clear();
      resolve({ code, signal, snapshot: lastSnapshot });
    });
  });

  // Whatever a test checks, an uncaught exception in the main process (Electron's error box) fails it.
  onTestFinished(async () => {
    let last = lastSnapshot as Snapshot | null;
    if (child.exitCode === null && child.signalCode === null) {
      last = await snapshot().catch(() => last);
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
    const crash = last?.errorBoxes.find((b) => b.title === MAIN_PROCESS_ERROR);
    if (crash) throw new Error(`the main process had an uncaught exception: ${crash.content}`);
  });

  let nextId = 1;
  const send = <C extends Command>(command: C): Promise<ReplyOf<C>> =>
    new Promise((resolve, reject) => {
      if (fatal) return reject(fatal);
      if (child.exitCode !== null || child.signalCode !== null || !child.connected) return reject(new Error(`the app has exited; its output:\n${out}`));
      const id = nextId++;
      pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, command });
    });
  const snapshot = (): Promise<Snapshot> => send({ op: 'snapshot' });
  const waitFor = async (what: string, test: (s: Snapshot) => boolean, timeoutMs = 15_000): Promise<Snapshot> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const s = await snapshot();
      if (test(s)) return s;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; the app's output:\n${out}\nerror boxes: ${JSON.stringify(s.errorBoxes)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  return {
    dir,
    userData,
    dbPath,
    child,
    output: () => out,
    send,
    snapshot,
    waitFor,
    async start() {
      await send({ op: 'ready' });
      return waitFor('start() to finish', (s) => (s.appListeners['will-quit'] ?? 0) > 0 || s.errorBoxes.length > 0);
    },
    exited,
  };
}

/** A frame of our renderer (what a window's main frame is once it has loaded app://tidy). */
export const OUR_FRAME = { url: 'app://tidy/index.html' };
