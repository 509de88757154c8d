/**
 * What a test and the stand-in `electron` module (./stand-in.ts) say to each other over the child
 * process's IPC channel: commands that play the part of the OS, the user and the renderer, and the
 * recorded state they answer with. Everything here is plain JSON.
 */

/** The stand-in's settings, passed in the environment (TIDY_ELECTRON_STAND_IN) because some are read at import. */
export interface StandInConfig {
  /** process.versions.electron inside the app: names the folder of native addons built for Electron (src-main/app/native.ts). */
  electronVersion: string;
  /** What app.getAppPath() answers: the folder of package.json. */
  appPath: string;
  /** What app.requestSingleInstanceLock() answers: false plays a second instance. */
  singleInstanceLock: boolean;
  /** Accelerators globalShortcut.register refuses (another app holds them). */
  refusedShortcuts: string[];
  /** Every loadURL fails, as when the dev server is down or the app quits while a page loads. */
  failLoads: boolean;
}

export const STAND_IN_ENV = 'TIDY_ELECTRON_STAND_IN';

/** One call into the electron API, with the arguments as JSON (functions as "[function]"). */
export interface Call {
  api: string;
  args: unknown[];
  /** Whether the app was ready (the 'ready' event had been emitted) at the time. */
  ready: boolean;
}

export interface SentMessage {
  channel: string;
  args: unknown[];
}

export interface WindowState {
  id: number;
  /** The constructor options, as JSON. */
  options: Record<string, unknown> & { webPreferences?: Record<string, unknown> };
  url: string | null;
  visible: boolean;
  focused: boolean;
  minimized: boolean;
  destroyed: boolean;
  alwaysOnTop: boolean;
  position: [number, number] | null;
  webContents: {
    id: number;
    hasWindowOpenHandler: boolean;
    /** Listener counts by event name. */
    listeners: Record<string, number>;
    sent: SentMessage[];
  };
}

export interface MenuItemState {
  label: string | null;
  type: string;
}

export interface TrayState {
  image: { width: number; height: number; empty: boolean };
  tooltip: string | null;
  menu: MenuItemState[];
  destroyed: boolean;
}

export interface Snapshot {
  ready: boolean;
  calls: Call[];
  windows: WindowState[];
  /** ipcMain.handle channels. */
  handlers: string[];
  /** protocol.handle schemes. */
  protocols: string[];
  /** Accelerators registered now. */
  shortcuts: string[];
  trays: TrayState[];
  notifications: Array<{ title: string; body: string }>;
  errorBoxes: Array<{ title: string; content: string }>;
  /** Listener counts of the app object by event name. */
  appListeners: Record<string, number>;
  /** app events emitted so far, in order (quit sequence included). */
  appEvents: string[];
}

export interface ProtocolResponse {
  status: number;
  headers: Record<string, string>;
  /** The body as base64 (it may be binary). */
  body: string;
}

export type WebContentsEvent = 'will-navigate' | 'will-frame-navigate' | 'will-redirect' | 'will-attach-webview';

/** A command and the type of its answer. */
export interface Commands {
  snapshot: { command: { op: 'snapshot' }; reply: Snapshot };
  /** The app becomes ready: 'ready' is emitted and whenReady() resolves. */
  ready: { command: { op: 'ready' }; reply: null };
  /** An app event as the OS sends it. */
  'app-event': { command: { op: 'app-event'; name: 'second-instance' | 'activate' | 'window-all-closed' }; reply: null };
  /**
   * ipcRenderer.invoke from a window's frame: `frame` is the sender frame (its URL; `subframe` gives it a
   * parent), null for a frame that is gone. Answers what the ipcMain handler returned.
   */
  invoke: { command: { op: 'invoke'; window: number; channel: string; input: unknown; frame: { url: string; subframe?: boolean } | null }; reply: unknown };
  /** A request to a scheme's protocol.handle handler. */
  protocol: { command: { op: 'protocol'; url: string }; reply: ProtocolResponse };
  /** A response passing the default session's onHeadersReceived listener: the headers it goes on with. */
  headers: { command: { op: 'headers'; url: string; responseHeaders: Record<string, string[]> }; reply: Record<string, string[]> | null };
  /** The default session's permission handlers asked about one permission (request, check, device). */
  permission: { command: { op: 'permission'; window: number; permission: string }; reply: { request: boolean; check: boolean; device: boolean } };
  /** A navigation-type event on a window's web contents: whether it was prevented. */
  navigate: { command: { op: 'navigate'; window: number; event: WebContentsEvent; url: string }; reply: { prevented: boolean } };
  /** window.open in a window: what the window-open handler answered. */
  'open-window': { command: { op: 'open-window'; window: number; url: string }; reply: unknown };
  /** The user presses a registered global shortcut. */
  press: { command: { op: 'press'; accelerator: string }; reply: null };
  /** A click on the tray icon (no label) or on its menu item with this label. */
  tray: { command: { op: 'tray'; label?: string }; reply: null };
  /** The user (or the window manager) acts on a window. */
  /** `destroy`: the window goes without a 'close' event (a crash, or destroy() called), as Electron's destroy(). */
  window: { command: { op: 'window'; id: number; action: 'close' | 'minimize' | 'blur' | 'destroy' }; reply: null };
  /** From now on globalShortcut.register refuses these accelerators. */
  'refuse-shortcuts': { command: { op: 'refuse-shortcuts'; accelerators: string[] }; reply: null };
}

export type Op = keyof Commands;
export type Command = Commands[Op]['command'];

export interface Request {
  id: number;
  command: Command;
}

/** The child's messages: answers to requests, and a last word before it exits. */
export type Message =
  | { kind: 'reply'; id: number; ok: true; value: unknown }
  | { kind: 'reply'; id: number; ok: false; error: string }
  | { kind: 'exit'; code: number; snapshot: Snapshot };
