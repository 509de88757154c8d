/**
 * A stand-in for the `electron` module, so the built main bundle (out/main/index.js) runs in plain Node:
 * the Electron binary is not available to the tests. It records every call, keeps the state a test asserts
 * on (windows, handlers, shortcuts, tray, notifications), and lets the test play the OS, the user and the
 * renderer through commands over the child process's IPC channel (./protocol.ts).
 *
 * It behaves like Electron where the app depends on it (electron.d.ts and Electron's docs): windows,
 * trays, shortcuts, sessions and the screen throw before the app is ready; a destroyed window throws on
 * use; app.quit() emits before-quit, closes every window (a prevented 'close' cancels the quit), then
 * emits will-quit (a prevented one cancels it too) and quit, and the process ends; with no
 * 'window-all-closed' listener, closing the last window quits. test/support/electron-app.ts starts it.
 */
import { EventEmitter } from 'node:events';
import type { BrowserWindowConstructorOptions, MenuItemConstructorOptions, OnHeadersReceivedListenerDetails } from 'electron';
import { STAND_IN_ENV, type Call, type Command, type Commands, type Message, type ProtocolResponse, type Request, type Snapshot, type StandInConfig } from './protocol';

const config = JSON.parse(process.env[STAND_IN_ENV] ?? 'null') as StandInConfig | null;
if (!config) throw new Error(`the electron stand-in needs its settings in ${STAND_IN_ENV} (test/support/electron-app.ts sets them)`);

// Electron's main process has it; src-main/app/native.ts names the addons built for this Electron by it.
(process.versions as Record<string, string>)['electron'] = config.electronVersion;

// As Electron's own start-up does (lib/browser/init.ts): an uncaught exception in the main process, an
// unhandled rejection included, is shown in an error box and the app goes on, unless the app handles them.
process.on('uncaughtException', (error) => {
  if (process.listenerCount('uncaughtException') > 1) return;
  dialog.showErrorBox('A JavaScript error occurred in the main process', `Uncaught Exception:\n${error.stack ?? String(error)}`);
});

let ready = false;
const calls: Call[] = [];
const appEvents: string[] = [];
const refused = new Set(config.refusedShortcuts);

/** JSON for the record: functions and class instances named, cycles cut. */
function plain(value: unknown, depth = 0): unknown {
  if (typeof value === 'function') return '[function]';
  if (value === null || typeof value !== 'object') return value;
  if (depth > 6) return '[deep]';
  if (Array.isArray(value)) return value.map((v) => plain(v, depth + 1));
  if (value instanceof StandIn) return `[${value.constructor.name}]`;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v, depth + 1)]));
}

function record(api: string, ...args: unknown[]): void {
  calls.push({ api, args: args.map((a) => plain(a)), ready });
}

/** Electron refuses these before 'ready'; so does the stand-in, so the app is held to it. */
function requireReady(what: string): void {
  if (!ready) throw new Error(`${what} cannot be used before the app is ready`);
}

/** The base of the stand-in's objects: an emitter, named in records instead of expanded. */
class StandIn extends EventEmitter {}

/** Electron's Event: the listener may prevent the default. */
class StandInEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

// ---------------------------------------------------------------------------------------------------
// app

let quitting = false;
let readyResolve: () => void = () => {};
const readyPromise = new Promise<void>((resolve) => (readyResolve = resolve));

function finish(code: number): void {
  const message: Message = { kind: 'exit', code, snapshot: snapshot() };
  if (process.send) process.send(message, () => process.exit(code));
  else process.exit(code);
}

class App extends StandIn {
  readonly isPackaged = false;
  private readonly paths = new Map<string, string>();

  setPath(name: string, path: string): void {
    record('app.setPath', name, path);
    this.paths.set(name, path);
  }
  getPath(name: string): string {
    const path = this.paths.get(name);
    if (path === undefined) throw new Error(`the electron stand-in has no path "${name}": the app never set it`);
    return path;
  }
  getAppPath(): string {
    return config!.appPath;
  }
  getName(): string {
    return 'Tidy';
  }
  requestSingleInstanceLock(): boolean {
    record('app.requestSingleInstanceLock');
    return config!.singleInstanceLock;
  }
  isReady(): boolean {
    return ready;
  }
  whenReady(): Promise<void> {
    return readyPromise;
  }
  quit(): void {
    record('app.quit');
    if (quitting) return;
    const beforeQuit = new StandInEvent();
    emitApp('before-quit', beforeQuit);
    if (beforeQuit.defaultPrevented) return;
    quitting = true;
    if (BrowserWindow.getAllWindows().length === 0) willQuit();
    else for (const win of BrowserWindow.getAllWindows()) win.close();
  }
  exit(code = 0): void {
    record('app.exit', code);
    finish(code);
  }
}

function emitApp(name: string, ...args: unknown[]): boolean {
  appEvents.push(name);
  return app.emit(name, ...args);
}

/** All windows closed while quitting: will-quit, then quit (unless prevented). */
function willQuit(): void {
  const event = new StandInEvent();
  emitApp('will-quit', event);
  if (event.defaultPrevented) {
    quitting = false;
    return;
  }
  emitApp('quit', new StandInEvent(), 0);
  finish(0);
}

function windowClosed(): void {
  if (BrowserWindow.getAllWindows().length > 0) return;
  if (quitting) willQuit();
  // Electron's default without a listener: quit.
  else if (!emitApp('window-all-closed')) app.quit();
}

export const app = new App();

// ---------------------------------------------------------------------------------------------------
// windows

let nextWebContentsId = 1;
let nextWindowId = 1;

class WebContents extends StandIn {
  readonly id = nextWebContentsId++;
  url: string | null = null;
  destroyed = false;
  readonly sent: Array<{ channel: string; args: unknown[] }> = [];
  windowOpenHandler: ((details: { url: string; frameName: string; features: string; disposition: string }) => unknown) | null = null;

  private alive(): void {
    if (this.destroyed) throw new TypeError('Object has been destroyed');
  }
  send(channel: string, ...args: unknown[]): void {
    this.alive();
    // Electron serialises with the structured clone algorithm: what it cannot clone throws here too.
    this.sent.push({ channel, args: structuredClone(args) });
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setWindowOpenHandler(handler: WebContents['windowOpenHandler']): void {
    this.alive();
    this.windowOpenHandler = handler;
  }
  getURL(): string {
    return this.url ?? '';
  }
}

export class BrowserWindow extends StandIn {
  private static all: BrowserWindow[] = [];
  /** Every window ever made, for the record. */
  static made: BrowserWindow[] = [];

  static getAllWindows(): BrowserWindow[] {
    return [...BrowserWindow.all];
  }

  readonly id = nextWindowId++;
  readonly webContents = new WebContents();
  readonly options: BrowserWindowConstructorOptions;
  url: string | null = null;
  visible: boolean;
  focused = false;
  minimized = false;
  destroyed = false;
  alwaysOnTop: boolean;
  position: [number, number] | null = null;

  constructor(options: BrowserWindowConstructorOptions = {}) {
    requireReady('BrowserWindow');
    super();
    record('new BrowserWindow', options);
    this.options = options;
    this.visible = options.show !== false;
    this.alwaysOnTop = options.alwaysOnTop === true;
    BrowserWindow.all.push(this);
    BrowserWindow.made.push(this);
    emitApp('web-contents-created', new StandInEvent(), this.webContents);
    emitApp('browser-window-created', new StandInEvent(), this);
  }

  private alive(): void {
    if (this.destroyed) throw new TypeError('Object has been destroyed');
  }
  loadURL(url: string): Promise<void> {
    this.alive();
    record('BrowserWindow.loadURL', this.id, url);
    this.url = url;
    this.webContents.url = url;
    if (config!.failLoads) {
      const error = new Error(`ERR_CONNECTION_REFUSED (-102) loading '${url}'`);
      setImmediate(() => this.webContents.emit('did-fail-load', new StandInEvent(), -102, 'ERR_CONNECTION_REFUSED', url, true));
      return Promise.reject(error);
    }
    // The page loads and paints: Electron emits ready-to-show once.
    setImmediate(() => {
      if (!this.destroyed) this.emit('ready-to-show');
    });
    return Promise.resolve();
  }
  show(): void {
    this.alive();
    this.visible = true;
    this.minimized = false;
    this.focused = true;
  }
  hide(): void {
    this.alive();
    this.visible = false;
    this.focused = false;
  }
  focus(): void {
    this.alive();
    this.focused = true;
  }
  isVisible(): boolean {
    this.alive();
    return this.visible;
  }
  isFocused(): boolean {
    this.alive();
    return this.focused;
  }
  isMinimized(): boolean {
    this.alive();
    return this.minimized;
  }
  minimize(): void {
    this.alive();
    this.minimized = true;
    this.focused = false;
  }
  restore(): void {
    this.alive();
    this.minimized = false;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  setAlwaysOnTop(flag: boolean, level?: string): void {
    this.alive();
    record('BrowserWindow.setAlwaysOnTop', this.id, flag, level);
    this.alwaysOnTop = flag;
  }
  getSize(): number[] {
    this.alive();
    return [this.options.width ?? 800, this.options.height ?? 600];
  }
  setPosition(x: number, y: number): void {
    this.alive();
    this.position = [x, y];
  }
  /** Like the close button: 'close' may prevent it. */
  close(): void {
    if (this.destroyed) return;
    const event = new StandInEvent();
    this.emit('close', event);
    if (event.defaultPrevented) {
      // A window that refuses to close cancels a quit in progress.
      quitting = false;
      return;
    }
    this.destroy();
  }
  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.focused = false;
    this.webContents.destroyed = true;
    BrowserWindow.all = BrowserWindow.all.filter((w) => w !== this);
    this.emit('closed');
    windowClosed();
  }
}

// ---------------------------------------------------------------------------------------------------
// ipcMain, globalShortcut, protocol, session, screen, dialog, Notification, Tray, Menu, nativeImage

type InvokeHandler = (event: unknown, ...args: unknown[]) => unknown;
const handlers = new Map<string, InvokeHandler>();

export const ipcMain = {
  handle(channel: string, handler: InvokeHandler): void {
    record('ipcMain.handle', channel);
    if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    handlers.set(channel, handler);
  },
  removeHandler(channel: string): void {
    record('ipcMain.removeHandler', channel);
    handlers.delete(channel);
  },
};

const shortcuts = new Map<string, () => void>();

export const globalShortcut = {
  register(accelerator: string, callback: () => void): boolean {
    requireReady('globalShortcut');
    record('globalShortcut.register', accelerator);
    // Another app holds it, or the desktop refuses global shortcuts: Electron only says false.
    if (refused.has(accelerator) || shortcuts.has(accelerator)) return false;
    shortcuts.set(accelerator, callback);
    return true;
  },
  unregister(accelerator: string): void {
    requireReady('globalShortcut');
    record('globalShortcut.unregister', accelerator);
    shortcuts.delete(accelerator);
  },
  unregisterAll(): void {
    requireReady('globalShortcut');
    record('globalShortcut.unregisterAll');
    shortcuts.clear();
  },
  isRegistered(accelerator: string): boolean {
    requireReady('globalShortcut');
    return shortcuts.has(accelerator);
  },
};

type ProtocolHandler = (request: globalThis.Request) => Response | Promise<Response>;
const protocolHandlers = new Map<string, ProtocolHandler>();

export const protocol = {
  registerSchemesAsPrivileged(schemes: unknown[]): void {
    record('protocol.registerSchemesAsPrivileged', schemes);
    if (ready) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
  },
  handle(scheme: string, handler: ProtocolHandler): void {
    requireReady('protocol.handle');
    record('protocol.handle', scheme);
    if (protocolHandlers.has(scheme)) throw new Error(`The scheme "${scheme}" is already handled`);
    protocolHandlers.set(scheme, handler);
  },
};

type HeadersListener = (details: OnHeadersReceivedListenerDetails, callback: (response: { cancel?: boolean; responseHeaders?: Record<string, string | string[]> }) => void) => void;
type PermissionRequestHandler = (webContents: WebContents, permission: string, callback: (granted: boolean) => void, details: unknown) => void;
type PermissionCheckHandler = (webContents: WebContents | null, permission: string, origin: string, details: unknown) => boolean;
type DevicePermissionHandler = (details: unknown) => boolean;

const defaultSession = {
  headersListener: null as HeadersListener | null,
  permissionRequest: null as PermissionRequestHandler | null,
  permissionCheck: null as PermissionCheckHandler | null,
  devicePermission: null as DevicePermissionHandler | null,
  webRequest: {
    onHeadersReceived(listener: HeadersListener): void {
      record('session.webRequest.onHeadersReceived', listener);
      defaultSession.headersListener = listener;
    },
  },
  setPermissionRequestHandler(handler: PermissionRequestHandler | null): void {
    record('session.setPermissionRequestHandler', handler);
    defaultSession.permissionRequest = handler;
  },
  setPermissionCheckHandler(handler: PermissionCheckHandler | null): void {
    record('session.setPermissionCheckHandler', handler);
    defaultSession.permissionCheck = handler;
  },
  setDevicePermissionHandler(handler: DevicePermissionHandler | null): void {
    record('session.setDevicePermissionHandler', handler);
    defaultSession.devicePermission = handler;
  },
};

export const session = {
  get defaultSession(): typeof defaultSession {
    requireReady('session');
    return defaultSession;
  },
};

const DISPLAY = { id: 1, bounds: { x: 0, y: 0, width: 1920, height: 1080 }, workArea: { x: 0, y: 32, width: 1920, height: 1048 }, scaleFactor: 1 };

export const screen = {
  getCursorScreenPoint(): { x: number; y: number } {
    requireReady('screen');
    return { x: 700, y: 400 };
  },
  getDisplayNearestPoint(point: { x: number; y: number }): typeof DISPLAY {
    requireReady('screen');
    record('screen.getDisplayNearestPoint', point);
    return DISPLAY;
  },
};

const errorBoxes: Array<{ title: string; content: string }> = [];

export const dialog = {
  showErrorBox(title: string, content: string): void {
    record('dialog.showErrorBox', title, content);
    errorBoxes.push({ title, content });
  },
};

/** Links in answers open in the system browser (src-main/app/links.ts): recorded, never opened. */
export const shell = {
  openExternal(url: string): Promise<void> {
    record('shell.openExternal', url);
    return Promise.resolve();
  },
};

const notifications: Array<{ title: string; body: string }> = [];

export class Notification extends StandIn {
  static isSupported(): boolean {
    return true;
  }
  constructor(private readonly options: { title?: string; body?: string } = {}) {
    super();
    record('new Notification', options);
  }
  show(): void {
    notifications.push({ title: this.options.title ?? '', body: this.options.body ?? '' });
  }
}

/** A PNG's size from its IHDR chunk; an image that is not a PNG is empty. */
class NativeImage {
  constructor(
    readonly width: number,
    readonly height: number,
  ) {}
  static fromPng(bytes: Buffer): NativeImage {
    const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    if (bytes.length < 24 || !bytes.subarray(0, 8).equals(signature) || bytes.toString('latin1', 12, 16) !== 'IHDR') return new NativeImage(0, 0);
    return new NativeImage(bytes.readUInt32BE(16), bytes.readUInt32BE(20));
  }
  isEmpty(): boolean {
    return this.width === 0 || this.height === 0;
  }
  getSize(): { width: number; height: number } {
    return { width: this.width, height: this.height };
  }
  resize(options: { width?: number; height?: number }): NativeImage {
    if (this.isEmpty()) return this;
    return new NativeImage(options.width ?? this.width, options.height ?? this.height);
  }
}

export const nativeImage = {
  createFromDataURL(dataUrl: string): NativeImage {
    const m = /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl);
    return m ? NativeImage.fromPng(Buffer.from(m[1]!, 'base64')) : new NativeImage(0, 0);
  },
};

interface BuiltMenu {
  items: MenuItemConstructorOptions[];
}

export const Menu = {
  buildFromTemplate(template: MenuItemConstructorOptions[]): BuiltMenu {
    return { items: template };
  },
};

const trays: Tray[] = [];

export class Tray extends StandIn {
  tooltip: string | null = null;
  menu: BuiltMenu | null = null;
  destroyed = false;

  constructor(readonly image: NativeImage) {
    requireReady('Tray');
    super();
    record('new Tray', image.getSize());
    trays.push(this);
  }
  setToolTip(tooltip: string): void {
    this.tooltip = tooltip;
  }
  setContextMenu(menu: BuiltMenu | null): void {
    this.menu = menu;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

// ---------------------------------------------------------------------------------------------------
// The test's side: state and commands

function listenerCounts(emitter: EventEmitter): Record<string, number> {
  return Object.fromEntries(emitter.eventNames().map((name) => [String(name), emitter.listenerCount(name)]));
}

function snapshot(): Snapshot {
  return {
    ready,
    calls,
    windows: BrowserWindow.made.map((w) => ({
      id: w.id,
      options: plain(w.options) as Snapshot['windows'][number]['options'],
      url: w.url,
      visible: w.visible,
      focused: w.focused,
      minimized: w.minimized,
      destroyed: w.destroyed,
      alwaysOnTop: w.alwaysOnTop,
      position: w.position,
      webContents: {
        id: w.webContents.id,
        hasWindowOpenHandler: w.webContents.windowOpenHandler !== null,
        listeners: listenerCounts(w.webContents),
        sent: w.webContents.sent,
      },
    })),
    handlers: [...handlers.keys()],
    protocols: [...protocolHandlers.keys()],
    shortcuts: [...shortcuts.keys()],
    trays: trays.map((t) => ({
      image: { ...t.image.getSize(), empty: t.image.isEmpty() },
      tooltip: t.tooltip,
      menu: (t.menu?.items ?? []).map((item) => ({ label: item.label ?? null, type: item.type ?? 'normal' })),
      destroyed: t.destroyed,
    })),
    notifications,
    errorBoxes,
    appListeners: listenerCounts(app),
    appEvents,
  };
}

function windowById(id: number): BrowserWindow {
  const win = BrowserWindow.made.find((w) => w.id === id);
  if (!win) throw new Error(`there is no window ${id}`);
  return win;
}

function only<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`the app never set ${what}`);
  return value;
}

type Reply<O extends keyof Commands> = Commands[O]['reply'];

async function execute(command: Command): Promise<Reply<keyof Commands>> {
  switch (command.op) {
    case 'snapshot':
      return snapshot();
    case 'ready':
      if (ready) throw new Error('the app is ready already');
      ready = true;
      emitApp('ready', new StandInEvent(), {});
      readyResolve();
      return null;
    case 'app-event':
      if (command.name === 'second-instance') emitApp('second-instance', new StandInEvent(), ['tidy'], process.cwd(), {});
      else if (command.name === 'activate') emitApp('activate', new StandInEvent(), false);
      else emitApp('window-all-closed');
      return null;
    case 'invoke': {
      const handler = handlers.get(command.channel);
      if (!handler) throw new Error(`no ipcMain handler for ${command.channel}`);
      const win = windowById(command.window);
      const top = command.frame ? { url: command.frame.url, parent: null } : null;
      const senderFrame = command.frame?.subframe ? { url: command.frame.url, parent: top } : top;
      const event = { sender: win.webContents, senderFrame, processId: 1, frameId: 1, type: 'frame' };
      // The reply crosses to the renderer by structured clone, as in Electron.
      return structuredClone(await handler(event, structuredClone(command.input)));
    }
    case 'protocol': {
      const scheme = new URL(command.url).protocol.slice(0, -1);
      const handler = only(protocolHandlers.get(scheme), `a handler for ${scheme}:`);
      const response = await handler(new Request(command.url));
      const reply: ProtocolResponse = {
        status: response.status,
        headers: Object.fromEntries(response.headers.entries()),
        body: Buffer.from(await response.arrayBuffer()).toString('base64'),
      };
      return reply;
    }
    case 'headers': {
      const listener = only(defaultSession.headersListener, 'an onHeadersReceived listener');
      const details = { url: command.url, responseHeaders: command.responseHeaders } as unknown as OnHeadersReceivedListenerDetails;
      return await new Promise((resolve) => listener(details, (response) => resolve((response.responseHeaders as Record<string, string[]> | undefined) ?? null)));
    }
    case 'permission': {
      const wc = windowById(command.window).webContents;
      const request = only(defaultSession.permissionRequest, 'a permission request handler');
      const check = only(defaultSession.permissionCheck, 'a permission check handler');
      const device = only(defaultSession.devicePermission, 'a device permission handler');
      const granted = await new Promise<boolean>((resolve) => request(wc, command.permission, resolve, { requestingUrl: wc.getURL() }));
      return {
        request: granted,
        check: check(wc, command.permission, 'app://tidy', { requestingUrl: wc.getURL() }),
        device: device({ deviceType: command.permission, origin: 'app://tidy' }),
      };
    }
    case 'navigate': {
      const event = Object.assign(new StandInEvent(), { url: command.url, isMainFrame: command.event !== 'will-frame-navigate' });
      windowById(command.window).webContents.emit(command.event, event, command.url);
      return { prevented: event.defaultPrevented };
    }
    case 'open-window': {
      const handler = windowById(command.window).webContents.windowOpenHandler;
      // Without a handler Electron opens the window.
      if (!handler) return { action: 'allow' };
      return plain(handler({ url: command.url, frameName: '', features: '', disposition: 'new-window' }));
    }
    case 'press': {
      const callback = only(shortcuts.get(command.accelerator), `the shortcut ${command.accelerator}`);
      callback();
      return null;
    }
    case 'tray': {
      const tray = only(trays.at(-1), 'a tray');
      if (command.label === undefined) {
        tray.emit('click', new StandInEvent(), { x: 0, y: 0, width: 16, height: 16 }, { x: 8, y: 8 });
        return null;
      }
      const item = only(tray.menu?.items.find((i) => i.label === command.label), `a tray menu item "${command.label}"`);
      // MenuItem click handlers get (menuItem, window, event).
      (only(item.click, `a click handler on "${command.label}"`) as (...args: unknown[]) => void)(item, undefined, {});
      return null;
    }
    case 'window': {
      const win = windowById(command.id);
      if (command.action === 'close') win.close();
      else if (command.action === 'destroy') win.destroy();
      else if (command.action === 'minimize') win.minimize();
      else {
        win.focused = false;
        win.emit('blur', new StandInEvent());
      }
      return null;
    }
    case 'refuse-shortcuts':
      refused.clear();
      for (const a of command.accelerators) refused.add(a);
      return null;
  }
}

process.on('message', (message: Request) => {
  void (async () => {
    let reply: Message;
    try {
      reply = { kind: 'reply', id: message.id, ok: true, value: await execute(message.command) };
    } catch (e) {
      reply = { kind: 'reply', id: message.id, ok: false, error: e instanceof Error ? (e.stack ?? e.message) : String(e) };
    }
    process.send?.(reply);
  })();
});

// safeStorage as on Linux without a keyring: Electron would fall back to basic_text, which Tidy never uses.
export const safeStorage = {
  isEncryptionAvailable: (): boolean => false,
  getSelectedStorageBackend: (): string => 'basic_text',
  encryptString(plain: string): Buffer {
    record('safeStorage.encryptString');
    return Buffer.from(plain);
  },
  decryptString: (encrypted: Buffer): string => encrypted.toString(),
};
