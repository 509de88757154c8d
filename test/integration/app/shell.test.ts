// The desktop shell (src-main/app) as built: out/main/index.js runs in a child Node process whose `electron`
// is a recording stand-in (test/support/electron/stand-in.ts), on a temp user-data folder and database. The
// test plays the OS, the user and the renderer, and checks what the app did with windows, IPC, the session,
// the app:// protocol, the global shortcut, the tray and its lifecycle — down to the database file.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { channels, electronEventName, electronInvokeName, type ChannelName } from '../../../src-shared/ipc';
import { contentSecurityPolicy } from '../../../src-main/host/static';
import { startFakeOpenAI, type FakeOpenAI } from '../../fakes/openai-server';
import { REPO, tidy } from '../../support/cli';
import { describeWithKeyring, NO_KEYCHAIN_ENV } from '../../support/keyring';
import { ELECTRON_VERSION, launchApp, OUR_FRAME, prepareApp, PRELOAD_BUNDLE, type AppUnderTest } from '../../support/electron-app';
import type { Snapshot, WindowState } from '../../support/electron/protocol';

beforeAll(prepareApp, 180_000);

const DEFAULT_SHORTCUT = 'CommandOrControl+Shift+Space';

const mainWindow = (s: Snapshot): WindowState => s.windows.find((w) => !w.destroyed && w.url === 'app://tidy/index.html')!;
const captureWindow = (s: Snapshot): WindowState => s.windows.find((w) => !w.destroyed && w.url === 'app://tidy/index.html#/capture')!;

/** The reply of an ipcMain handler, as the preload would get it. */
type Reply = { ok: true; value: unknown } | { ok: false; code: string; message: string; hint: string };

const invoke = (app: AppUnderTest, channel: ChannelName, input: unknown, frame: { url: string; subframe?: boolean } | null = OUR_FRAME, window = 1) =>
  app.send({ op: 'invoke', window, channel: electronInvokeName(channel), input, frame }) as Promise<Reply>;

async function value<T>(reply: Promise<Reply>): Promise<T> {
  const r = await reply;
  if (!r.ok) throw new Error(`${r.code}: ${r.message}`);
  return r.value as T;
}

const count = (s: Snapshot, api: string): number => s.calls.filter((c) => c.api === api).length;

describe('starting', () => {
  it('before ready sets the user-data folder, makes app:// privileged and takes the single-instance lock, and nothing more', async () => {
    const app = await launchApp();
    const before = await app.snapshot();
    // In this order: the single-instance lock lives in the user-data folder, so that is set first.
    expect(before.calls.map((c) => c.api)).toEqual(['app.setPath', 'protocol.registerSchemesAsPrivileged', 'app.requestSingleInstanceLock']);
    expect(before.calls[0]!.args).toEqual(['userData', app.userData]);
    expect(before.calls[1]!.args).toEqual([[{ scheme: 'app', privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]]);
    // The database is opened only once the app is ready (a second instance must never touch it).
    expect(existsSync(app.dbPath)).toBe(false);

    const s = await app.start();
    expect(s.errorBoxes).toEqual([]);
    expect(existsSync(app.dbPath)).toBe(true);
    // The native addons came from the user-data folder, as a first start leaves them: no build was started.
    expect(app.output()).not.toMatch(/building/);
    expect(s.calls.every((c) => c.ready || before.calls.some((b) => b.api === c.api))).toBe(true);
  });

  it('a second instance quits at once, without a window and without opening the database', async () => {
    const app = await launchApp({ config: { singleInstanceLock: false } });
    const { code, snapshot } = await app.exited;
    expect(code).toBe(0);
    expect(snapshot!.appEvents).toEqual(['before-quit', 'will-quit', 'quit']);
    expect(snapshot!.windows).toEqual([]);
    expect(existsSync(app.dbPath)).toBe(false);
  });

  it('a start that fails says why in a dialog and exits 1', async () => {
    // The database path runs through a file: it cannot be created.
    const app = await launchApp({
      before: ({ dir }) => writeFileSync(join(dir, 'blocker'), 'a file, not a folder'),
      env: ({ dir }) => ({ TIDY_DB: join(dir, 'blocker', 'tidy.db') }),
    });
    await app.send({ op: 'ready' });
    const { code, snapshot } = await app.exited;
    expect(code).toBe(1);
    expect(snapshot!.errorBoxes).toHaveLength(1);
    expect(snapshot!.errorBoxes[0]!.title).toBe('Tidy could not start');
    expect(snapshot!.errorBoxes[0]!.content.length).toBeGreaterThan(10);
    expect(app.output()).toContain('Tidy could not start: ');
  });
});

/**
 * An app folder whose scripts/build-native.mjs stands in for the real one (which downloads or compiles):
 * it logs how it was called and "builds" by copying Node's addon to --out, or fails.
 */
function fakeBuilder(fail: boolean): { appPath: string; calls: () => Array<{ args: string[]; runAsNode?: string }> } {
  const appPath = mkdtempSync(join(tmpdir(), 'tidy-app-path-'));
  onTestFinished(() => rmSync(appPath, { recursive: true, force: true }));
  const log = join(appPath, 'builds.jsonl');
  const addons = {
    'better-sqlite3': join(REPO, 'node_modules/better-sqlite3/build/Release/better_sqlite3.node'),
    keytar: join(REPO, 'node_modules/keytar/build/Release/keytar.node'),
  };
  mkdirSync(join(appPath, 'scripts'));
  writeFileSync(
    join(appPath, 'scripts', 'build-native.mjs'),
    `import { appendFileSync, copyFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
const args = process.argv.slice(2);
appendFileSync(${JSON.stringify(log)}, JSON.stringify({ args, runAsNode: process.env.ELECTRON_RUN_AS_NODE }) + '\\n');
const { values } = parseArgs({ args, options: { module: { type: 'string' }, electron: { type: 'string' }, out: { type: 'string' } } });
if (${fail}) { console.error('build-native: no C++ compiler here'); process.exit(1); }
mkdirSync(dirname(values.out), { recursive: true });
copyFileSync(${JSON.stringify(addons)}[values.module], values.out);
`,
  );
  const calls = () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { args: string[]; runAsNode?: string }) : []);
  return { appPath, calls };
}

const addonFile = (userData: string, module: 'better-sqlite3' | 'keytar'): string => {
  const { version } = JSON.parse(readFileSync(join(REPO, 'node_modules', module, 'package.json'), 'utf8')) as { version: string };
  return join(userData, 'native', `${module}-${version}-electron-${ELECTRON_VERSION}-${process.platform}-${process.arch}`, `${module.replace('-', '_')}.node`);
};

describe('native addons on first start', () => {
  it('are built for this Electron into the user-data folder, with the build script run as Node, and used', async () => {
    const builder = fakeBuilder(false);
    const app = await launchApp({ addons: false, config: { appPath: builder.appPath } });
    const s = await app.start();
    expect(s.errorBoxes).toEqual([]);
    expect(app.output()).toContain(`Tidy: building better-sqlite3 for Electron ${ELECTRON_VERSION} (first start only`);
    await expect.poll(() => builder.calls().length).toBe(2);
    const file = addonFile(app.userData, 'better-sqlite3');
    expect(builder.calls()).toEqual([
      { args: ['--module', 'better-sqlite3', '--electron', ELECTRON_VERSION, '--out', file], runAsNode: '1' },
      { args: ['--module', 'keytar', '--electron', ELECTRON_VERSION, '--out', addonFile(app.userData, 'keytar')], runAsNode: '1' },
    ]);
    expect(existsSync(file)).toBe(true);
    // The database works through the addon just built.
    await value(invoke(app, 'tasks.add', { content: 'First task' }));
    expect(await value<{ total: number }>(invoke(app, 'tasks.list', {}))).toMatchObject({ total: 1 });
  });

  it('a failed build stops the start with a dialog that gives the command to run by hand', async () => {
    const builder = fakeBuilder(true);
    const app = await launchApp({ addons: false, config: { appPath: builder.appPath } });
    await app.send({ op: 'ready' });
    const { code, snapshot } = await app.exited;
    expect(code).toBe(1);
    const file = addonFile(app.userData, 'better-sqlite3');
    expect(snapshot!.errorBoxes).toEqual([
      {
        title: 'Tidy could not start',
        content: `could not build better-sqlite3 for Electron ${ELECTRON_VERSION} (exit 1); see the output above, or run: node scripts/build-native.mjs --module better-sqlite3 --electron ${ELECTRON_VERSION} --out "${file}"`,
      },
    ]);
    expect(app.output()).toContain('build-native: no C++ compiler here');
    expect(existsSync(app.dbPath)).toBe(false);
  });
});

type KeyStatus = { stored: boolean; source: string | null; keychain: { available: boolean; problem?: string } };

describe('the keychain', () => {
  it('loads keytar through the addon for Electron; without a Secret Service it says so and the app goes on', async () => {
    const app = await launchApp({ env: NO_KEYCHAIN_ENV });
    await app.start();
    const status = await value<KeyStatus>(invoke(app, 'keys.status', { profile: 'openai' }));
    expect(status).toMatchObject({ stored: false, source: null, keychain: { available: false } });
    // The addon loaded (core/secrets/keychain.ts has other words for one that did not): D-Bus is what is missing.
    expect(status.keychain.problem).toMatch(/no keyring service is running/);
    expect(await invoke(app, 'keys.set', { profile: 'openai', key: 'sk-test-0123456789abcdef' })).toMatchObject({ ok: false });
    await value(invoke(app, 'tasks.add', { content: 'Still works' }));
  });
});

describeWithKeyring('the keychain in a Secret Service session', () => {
  it('stores, reports and clears a key through the addon built for Electron', async () => {
    const app = await launchApp();
    await app.start();
    expect(await value<KeyStatus>(invoke(app, 'keys.set', { profile: 'openai', key: 'sk-test-0123456789abcdef' }))).toMatchObject({
      stored: true,
      source: 'keychain',
      keychain: { available: true },
    });
    expect(await value<KeyStatus>(invoke(app, 'keys.status', { profile: 'openai' }))).toMatchObject({ stored: true, source: 'keychain' });
    expect(await value<KeyStatus>(invoke(app, 'keys.clear', { profile: 'openai' }))).toMatchObject({ stored: false });
  });
});

describe('windows', () => {
  it('makes the main and the capture window with the hardened web preferences and the built preload', async () => {
    const app = await launchApp();
    await app.start();
    const s = await app.waitFor('the main window to show', (x) => mainWindow(x)?.visible === true);
    expect(s.windows).toHaveLength(2);
    for (const w of s.windows) {
      const prefs = w.options.webPreferences!;
      expect(prefs).toMatchObject({
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        webviewTag: false,
      });
      // Nothing that would open the renderer up again.
      for (const key of ['enableBlinkFeatures', 'additionalArguments', 'partition', 'session', 'webgl', 'plugins', 'devTools']) expect(prefs).not.toHaveProperty(key);
      expect(prefs['preload']).toBe(PRELOAD_BUNDLE);
      expect(existsSync(PRELOAD_BUNDLE)).toBe(true);
    }
    const main = mainWindow(s);
    expect(main).toMatchObject({ visible: true, destroyed: false });
    expect(main.options).toMatchObject({ show: false, title: 'Tidy' });
    const capture = captureWindow(s);
    expect(capture).toMatchObject({ visible: false, alwaysOnTop: true });
    expect(capture.options).toMatchObject({ frame: false, skipTaskbar: true, show: false, resizable: false });
  });

  it('a window that fails to load is reported in a line, not as an uncaught error of the main process', async () => {
    const app = await launchApp({ config: { failLoads: true } });
    await app.start();
    const s = await app.waitFor('both load failures reported', () => (app.output().match(/could not load/g) ?? []).length === 2);
    expect(s.errorBoxes).toEqual([]);
    expect(app.output()).toContain("Tidy: the window could not load app://tidy/index.html: ERR_CONNECTION_REFUSED (-102) loading 'app://tidy/index.html'");
    expect(app.output()).toContain('Tidy: the window could not load app://tidy/index.html#/capture: ');
  });
});

describe('IPC', () => {
  it('registers a handler for every channel of the contract, answers our renderer and refuses every other frame', async () => {
    const app = await launchApp();
    const s = await app.start();
    const expected = (Object.keys(channels) as ChannelName[]).map(electronInvokeName);
    expect([...s.handlers].sort()).toEqual([...expected].sort());
    expect(count(s, 'ipcMain.handle')).toBe(expected.length);

    const added = await value<{ value: { id: string; content: string } }>(invoke(app, 'tasks.add', { content: 'Water the plants' }));
    expect(added.value.content).toBe('Water the plants');
    // From the capture window too: its frame is app://tidy/index.html#/capture.
    await value(invoke(app, 'capture.add', { text: 'Call the plumber' }, { url: 'app://tidy/index.html#/capture' }, captureWindow(s).id));

    const foreign = [{ url: 'https://evil.example/' }, { url: 'app://evil/index.html' }, { url: 'file:///etc/passwd' }, { url: 'app://tidy/index.html', subframe: true }, null];
    for (const frame of foreign) {
      expect(await invoke(app, 'tasks.add', { content: 'Sneaky' }, frame)).toMatchObject({ ok: false, code: 'forbidden' });
      expect(await invoke(app, 'settings.get', {}, frame)).toMatchObject({ ok: false, code: 'forbidden' });
    }
    expect(await invoke(app, 'tasks.add', { content: 42 })).toMatchObject({ ok: false, code: 'invalid_input' });

    const { tasks } = await value<{ tasks: Array<{ content: string }> }>(invoke(app, 'tasks.list', { project: 'inbox' }));
    expect(tasks.map((t) => t.content)).toEqual(['Water the plants', 'Call the plumber']);

    // The change went out to both windows as data.changed.
    const after = await app.waitFor('data.changed in both windows', (x) =>
      x.windows.every((w) => w.webContents.sent.some((m) => m.channel === electronEventName('data.changed'))),
    );
    for (const w of after.windows) {
      const changed = w.webContents.sent.filter((m) => m.channel === electronEventName('data.changed'));
      expect(changed.some((m) => (m.args[0] as { topics: string[] }).topics.includes('tasks'))).toBe(true);
    }
  });
});

describe('the session', () => {
  it('denies navigation, new windows, webviews and every permission in every window', async () => {
    const app = await launchApp();
    const s = await app.start();
    for (const w of s.windows) {
      for (const event of ['will-navigate', 'will-frame-navigate', 'will-redirect', 'will-attach-webview'] as const) {
        expect(await app.send({ op: 'navigate', window: w.id, event, url: 'https://evil.example/' })).toEqual({ prevented: true });
      }
      expect(await app.send({ op: 'open-window', window: w.id, url: 'https://evil.example/' })).toEqual({ action: 'deny' });
      for (const permission of ['notifications', 'media', 'geolocation', 'clipboard-read', 'openExternal', 'hid']) {
        expect(await app.send({ op: 'permission', window: w.id, permission })).toEqual({ request: false, check: false, device: false });
      }
    }
    // Every response the session loads gets the CSP (the dev server's too).
    const headers = await app.send({ op: 'headers', url: 'http://localhost:5173/', responseHeaders: { 'Content-Type': ['text/html'] } });
    expect(headers).toEqual({ 'Content-Type': ['text/html'], 'Content-Security-Policy': [contentSecurityPolicy()] });
  });

  it('serves the built renderer on app://tidy with the security headers, and nothing outside it', async () => {
    const app = await launchApp();
    const s = await app.start();
    expect(s.protocols).toEqual(['app']);

    const index = await app.send({ op: 'protocol', url: 'app://tidy/index.html' });
    expect(index.status).toBe(200);
    expect(index.headers).toMatchObject({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
    });
    const html = Buffer.from(index.body, 'base64').toString('utf8');
    expect(html).toBe(readFileSync(join(import.meta.dirname, '../../../out/renderer/index.html'), 'utf8'));
    expect((await app.send({ op: 'protocol', url: 'app://tidy/' })).body).toBe(index.body);

    const script = /<script[^>]+src="([^"]+)"/.exec(html)![1]!;
    const js = await app.send({ op: 'protocol', url: new URL(script, 'app://tidy/index.html').href });
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');

    for (const url of [
      'app://evil/index.html',
      'app://tidy/../main/index.js',
      'app://tidy/%2e%2e/main/index.js',
      'app://tidy/..%2fmain%2findex.js',
      'app://tidy/%2e%2e%2f%2e%2e%2fpackage.json',
      'app://tidy/missing.js',
      'app://tidy/index.html%00.js',
      'app://tidy/%E0%A4%A',
    ]) {
      expect((await app.send({ op: 'protocol', url })).status, url).toBe(404);
    }
  });
});

describe('quick capture', () => {
  it('registers the shortcut from settings, shows the capture window centred near the top, and follows a change of the setting', async () => {
    const app = await launchApp();
    let s = await app.start();
    expect(s.shortcuts).toEqual([DEFAULT_SHORTCUT]);
    expect(s.trays[0]!.menu.map((i) => i.label)).toEqual(['Open Tidy', `Quick capture (${DEFAULT_SHORTCUT})`, null, 'Quit Tidy']);
    expect(s.notifications).toEqual([]);

    await app.send({ op: 'press', accelerator: DEFAULT_SHORTCUT });
    s = await app.snapshot();
    // The stand-in's display: work area 1920×1048 at y=32; the window is 560×132.
    expect(captureWindow(s)).toMatchObject({ visible: true, focused: true, position: [(1920 - 560) / 2, Math.round(32 + 1048 / 4 - 132 / 2)] });

    await value(invoke(app, 'settings.set', { key: 'quickCaptureShortcut', value: 'Alt+Shift+K' }));
    s = await app.waitFor('the new shortcut', (x) => x.shortcuts.includes('Alt+Shift+K'));
    expect(s.shortcuts).toEqual(['Alt+Shift+K']);
    expect(s.calls.filter((c) => c.api === 'globalShortcut.unregister').map((c) => c.args)).toEqual([[DEFAULT_SHORTCUT]]);
    expect(s.trays[0]!.menu[1]!.label).toBe('Quick capture (Alt+Shift+K)');
  });

  it('reports a refused shortcut once, in a notification and a line, and keeps the tray entry', async () => {
    const app = await launchApp({ config: { refusedShortcuts: [DEFAULT_SHORTCUT] } });
    let s = await app.start();
    expect(s.shortcuts).toEqual([]);
    expect(s.notifications).toHaveLength(1);
    expect(s.notifications[0]!.title).toBe('Tidy');
    expect(s.notifications[0]!.body).toMatch(new RegExp(`refused the quick-capture shortcut ${DEFAULT_SHORTCUT.replace(/\+/g, '\\+')}.*Settings \\(quickCaptureShortcut\\).*tray`));
    expect(app.output()).toContain(`Tidy: ${s.notifications[0]!.body}`);
    expect(s.trays[0]!.menu[1]!.label).toBe('Quick capture');

    // Another process (the CLI) commits: the app notices (data.changed names every topic, settings too), and
    // must not try and report the same refused shortcut again on each such change.
    const changes = (x: Snapshot) => mainWindow(x).webContents.sent.filter((m) => m.channel === electronEventName('data.changed')).length;
    for (const text of ['From the terminal', 'And another']) {
      const seen = changes(s);
      expect(tidy(app.dbPath, ['add', text]).code).toBe(0);
      s = await app.waitFor('the change from the CLI', (x) => changes(x) > seen);
    }
    expect(s.notifications).toHaveLength(1);
    expect(count(s, 'globalShortcut.register')).toBe(1);

    // A new choice is tried (and a new refusal reported); an accepted one takes over.
    await app.send({ op: 'refuse-shortcuts', accelerators: [DEFAULT_SHORTCUT, 'Alt+Shift+K'] });
    await value(invoke(app, 'settings.set', { key: 'quickCaptureShortcut', value: 'Alt+Shift+K' }));
    s = await app.waitFor('the second refusal', (x) => x.notifications.length === 2);
    expect(s.notifications[1]!.body).toContain('Alt+Shift+K');
    await value(invoke(app, 'settings.set', { key: 'quickCaptureShortcut', value: 'Alt+Shift+J' }));
    s = await app.waitFor('the accepted shortcut', (x) => x.shortcuts.includes('Alt+Shift+J'));
    expect(s.notifications).toHaveLength(2);
    expect(s.trays[0]!.menu[1]!.label).toBe('Quick capture (Alt+Shift+J)');
  });

  it('the capture window hides when it loses focus or is closed, until the app quits', async () => {
    const app = await launchApp();
    let s = await app.start();
    const id = captureWindow(s).id;
    await app.send({ op: 'tray', label: 'Quick capture (CommandOrControl+Shift+Space)' });
    expect(captureWindow(await app.snapshot())).toMatchObject({ visible: true, focused: true });
    await app.send({ op: 'window', id, action: 'blur' });
    expect(captureWindow(await app.snapshot())).toMatchObject({ visible: false });
    await app.send({ op: 'press', accelerator: DEFAULT_SHORTCUT });
    await app.send({ op: 'window', id, action: 'close' });
    s = await app.snapshot();
    expect(s.windows.find((w) => w.id === id)).toMatchObject({ visible: false, destroyed: false });
    // And it still works afterwards.
    await app.send({ op: 'press', accelerator: DEFAULT_SHORTCUT });
    expect(captureWindow(await app.snapshot())).toMatchObject({ visible: true });
  });
});

describe('the main window and the tray', () => {
  it('a second launch restores and focuses the main window, or makes a new one when it was closed; closing it hides it in the tray, or quits with keepInTray off', async () => {
    const app = await launchApp();
    let s = await app.start();
    const first = mainWindow(s).id;
    await app.send({ op: 'window', id: first, action: 'minimize' });
    await app.send({ op: 'app-event', name: 'second-instance' });
    expect(mainWindow(await app.snapshot())).toMatchObject({ id: first, minimized: false, visible: true, focused: true });

    // Closing the main window (keepInTray on, the default) hides it: Tidy stays in the tray, routines keep
    // running, and the next launch shows the same window again.
    await app.send({ op: 'window', id: first, action: 'close' });
    s = await app.snapshot();
    expect(s.windows.find((w) => w.id === first)).toMatchObject({ destroyed: false, visible: false });
    expect(s.appEvents).not.toContain('quit');
    await app.send({ op: 'app-event', name: 'second-instance' });
    expect(mainWindow(await app.snapshot())).toMatchObject({ id: first, visible: true, focused: true });

    // A main window that is gone (destroyed without closing) leaves Tidy in the tray; the next launch opens a new one, as hardened as the first.
    await app.send({ op: 'window', id: first, action: 'destroy' });
    await app.send({ op: 'app-event', name: 'window-all-closed' });
    s = await app.snapshot();
    expect(s.windows.find((w) => w.id === first)!.destroyed).toBe(true);
    expect(s.appEvents).not.toContain('quit');
    await app.send({ op: 'app-event', name: 'second-instance' });
    s = await app.waitFor('a new main window', (x) => mainWindow(x)?.visible === true);
    const second = mainWindow(s);
    expect(second.id).not.toBe(first);
    expect(second.options.webPreferences).toEqual(s.windows.find((w) => w.id === first)!.options.webPreferences);
    expect(second.webContents.hasWindowOpenHandler).toBe(true);

    // The tray opens it too.
    await app.send({ op: 'window', id: second.id, action: 'minimize' });
    await app.send({ op: 'tray' });
    expect(mainWindow(await app.snapshot())).toMatchObject({ minimized: false, focused: true });
    await app.send({ op: 'window', id: second.id, action: 'minimize' });
    await app.send({ op: 'tray', label: 'Open Tidy' });
    expect(mainWindow(await app.snapshot())).toMatchObject({ minimized: false, focused: true });
    expect(s.trays[0]!.image).toEqual({ width: 16, height: 16, empty: false });

    // With the window closed into the tray, routines keep running: a run that changed something is a
    // system notification in the routine's words.
    await app.send({ op: 'window', id: second.id, action: 'close' });
    expect(mainWindow(await app.snapshot())).toMatchObject({ id: second.id, visible: false });
    const fake = await startFakeOpenAI();
    onTestFinished(() => fake.close());
    await value(invoke(app, 'providers.update', { id: 'ollama', baseUrl: fake.url, model: 'fake-model' }));
    await value(invoke(app, 'providers.use', { id: 'ollama' }));
    const added = await value<{ value: { id: string } }>(invoke(app, 'routines.add', { name: 'Morning plan', request: 'plan my day', schedule: 'every weekday at 8am' }));
    fake.enqueue({ toolCalls: [{ name: 'add_task', arguments: { content: 'Block the morning for the talk' } }] }, { text: 'Planned.' });
    await value(invoke(app, 'routines.runNow', { routine: added.value.id }));
    s = await app.waitFor('the routine notification', (x) => x.notifications.some((n) => n.title === 'Morning plan changed things'));
    expect(s.notifications.find((n) => n.title === 'Morning plan changed things')!.body).toBe('Open Routines to see what it changed and undo it.');

    // With keepInTray off, closing the main window quits Tidy (the database closed, exit 0).
    await value(invoke(app, 'settings.set', { key: 'keepInTray', value: false }));
    await app.send({ op: 'window', id: second.id, action: 'close' });
    const { code } = await app.exited;
    expect(code).toBe(0);
    expect(existsSync(`${app.dbPath}-wal`)).toBe(false);
  });
});

describe('quitting', () => {
  let fake: FakeOpenAI | null = null;
  afterEach(async () => {
    await fake?.close();
    fake = null;
  });

  it('Quit waits for a running request to end, writes its end, closes the database and exits 0', async () => {
    fake = await startFakeOpenAI();
    const app = await launchApp();
    await app.start();
    await value(invoke(app, 'providers.update', { id: 'ollama', baseUrl: fake.url, model: 'fake-model' }));
    await value(invoke(app, 'providers.use', { id: 'ollama' }));
    // The model never answers: only a cancel ends this run.
    fake.enqueue({ fault: 'hang' });
    const { runId } = await value<{ runId: string }>(invoke(app, 'agent.send', { message: 'Sort my inbox' }));
    await expect.poll(() => fake!.chatRequests.length, { timeout: 10_000 }).toBe(1);
    expect(await value<Array<{ id: string; status: string }>>(invoke(app, 'runs.list', {}))).toMatchObject([{ id: runId, status: 'running' }]);

    await app.send({ op: 'tray', label: 'Quit Tidy' });
    const { code, snapshot } = await app.exited;
    expect(code).toBe(0);
    // The first will-quit is held until the run has ended and the database is closed; the second goes through.
    expect(snapshot!.appEvents.filter((e) => ['before-quit', 'will-quit', 'quit'].includes(e))).toEqual(['before-quit', 'will-quit', 'before-quit', 'will-quit', 'quit']);
    expect(snapshot!.windows.every((w) => w.destroyed)).toBe(true);
    expect(count(snapshot!, 'globalShortcut.unregisterAll')).toBe(1);
    // Closed: the last connection's close checkpoints the WAL and removes it.
    expect(existsSync(`${app.dbPath}-wal`)).toBe(false);
    const db = new Database(app.dbPath, { readonly: true });
    try {
      expect(db.prepare('SELECT status FROM runs WHERE id = ?').get(runId)).toEqual({ status: 'cancelled' });
      expect(db.prepare("SELECT count(*) AS n FROM runs WHERE status = 'running'").get()).toEqual({ n: 0 });
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      db.close();
    }
  });

  it('Quit with nothing running closes the database and exits 0', async () => {
    const app = await launchApp();
    await app.start();
    await value(invoke(app, 'tasks.add', { content: 'Kept' }));
    expect(existsSync(`${app.dbPath}-wal`)).toBe(true);
    await app.send({ op: 'tray', label: 'Quit Tidy' });
    const { code } = await app.exited;
    expect(code).toBe(0);
    expect(existsSync(`${app.dbPath}-wal`)).toBe(false);
    expect(tidy(app.dbPath, ['tasks', '--json']).stdout).toContain('Kept');
  });
});
