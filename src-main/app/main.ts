// Electron glue only: lifecycle, windows, quick capture, tray. Everything else is the core and the host,
// which run (and are tested) in plain Node; this file wires them to Electron.
import { app, BrowserWindow, dialog, globalShortcut, ipcMain, Notification, safeStorage } from 'electron';
import { join } from 'node:path';
import { setBundleDir } from '../bundle-dir';
import { createFirstAvailableSecretStore, createKeychainStore, createSafeStorageSecretStore, openDatabase, readSettings, resolveDbPath, userDataDir } from '../core';
import { scheduleAutoBackups } from '../core/data';
import { onMainWindowClose, routineNotification } from '../core/routines/desktop';
import type { Task } from '../../src-shared/domain';
import { createHost, HOST_BUSY_TIMEOUT_MS } from '../host';
import type { Dispatch } from '../host/dispatch';
import { forwardEvents, registerIpc } from '../host/electron-ipc';
import { electronKeytar, ensureNativeBinding } from './native';
import { hardenSession, isOurRenderer, registerAppScheme } from './security';
import { captureShortcut, setCaptureShortcut } from './shortcut';
import { createTray } from './tray';
import { createCaptureWindow, createMainWindow, showCaptureWindow } from './windows';

const DEFAULT_SHORTCUT = 'CommandOrControl+Shift+Space';

// This file is the app bundle's entry, out/main/index.js: the calculator's worker is found beside it.
setBundleDir(import.meta.url);

// The same folder the CLI uses (core/store/paths.ts), so both open one database.
app.setPath('userData', userDataDir());
registerAppScheme();

let quitting = false;

// A promise nothing handled is a bug: logged in one line, never the end of the app (the host's dispatch and
// the trace writer catch their own; this is the last net).
process.on('unhandledRejection', (reason: unknown) => {
  console.error(`Tidy: a promise failed and nothing handled it: ${reason instanceof Error ? reason.message : String(reason)}`);
});

function notify(message: string): void {
  console.warn(`Tidy: ${message}`);
  if (Notification.isSupported()) new Notification({ title: 'Tidy', body: message }).show();
}

/**
 * A task's due time has come: a system notification, with Complete and Snooze 10 min where the platform
 * shows actions (macOS; Windows and Linux show the text, and a click opens Tidy). Both go through the
 * logged operations, so they appear in the action log and can be undone.
 */
function showReminder(task: Task, dispatch: Dispatch, open: () => void): void {
  if (!Notification.isSupported()) return;
  const n = new Notification({
    title: task.content.slice(0, 120),
    body: `Due ${task.due?.slice(11, 16) ?? ''} · ${task.project}`,
    actions: [
      { type: 'button', text: 'Complete' },
      { type: 'button', text: 'Snooze 10 min' },
    ],
  });
  n.on('action', (_event, index) => {
    // Through the dispatcher, like a click in a window: validated, logged, and every window told.
    void (index === 0 ? dispatch('tasks.complete', { task: task.id }) : dispatch('tasks.snooze', { task: task.id, minutes: 10 })).then((reply) => {
      if (!reply.ok) console.warn(`Tidy: the reminder's action was refused: ${reply.error}`);
    });
  });
  n.on('click', open);
  n.show();
}

async function start(): Promise<void> {
  hardenSession();
  const log = (line: string): void => console.log(line);
  const nativeBinding = await ensureNativeBinding('better-sqlite3', log);
  const dbPath = resolveDbPath(undefined);
  const open = () => openDatabase(dbPath, { verify: 'always', holder: 'the Tidy app', busyTimeoutMs: HOST_BUSY_TIMEOUT_MS, ...(nativeBinding ? { nativeBinding } : {}) });
  const db = open();
  // Without keytar Tidy still runs: Electron's safeStorage stands in where the OS really encrypts (never
  // basic_text); else the keychain store reports it unavailable, and a key for this session only or
  // OPENAI_API_KEY stands in.
  const secrets = createFirstAvailableSecretStore([
    createKeychainStore({ load: electronKeytar(ensureNativeBinding('keytar', log)) }),
    createSafeStorageSecretStore(safeStorage, join(app.getPath('userData'), 'keys.sealed.json')),
  ]);
  // A restore from Settings closes the database and opens the restored file the same way (host/index.ts): use host.db from here on.
  const host = createHost({ db, secrets, env: process.env, owner: 'the Tidy app' }, { reminders: true, routines: true, sync: true, reopen: open, ...(nativeBinding ? { nativeBinding } : {}) });
  scheduleAutoBackups(() => host.db, dbPath, (line) => console.warn(`Tidy: ${line}`));
  registerIpc(ipcMain, host.dispatch, isOurRenderer);
  forwardEvents(host.hub, () => BrowserWindow.getAllWindows().map((w) => w.webContents));

  // Closing the main window hides it while Tidy keeps running in the tray (routines go on), or quits, as
  // the setting keepInTray says (core/routines/desktop.ts decides).
  const keepInTray = (): boolean => {
    const settings: Record<string, unknown> = readSettings(db);
    return settings['keepInTray'] !== false;
  };
  const watchClose = (win: BrowserWindow): BrowserWindow => {
    win.on('close', (event) => {
      const what = onMainWindowClose({ keepInTray: keepInTray(), quitting });
      if (what === 'hide') {
        event.preventDefault();
        win.hide();
      } else if (what === 'quit') setImmediate(() => app.quit());
    });
    return win;
  };
  let main = watchClose(createMainWindow());
  const openMain = (): void => {
    if (main.isDestroyed()) main = watchClose(createMainWindow());
    else {
      if (main.isMinimized()) main.restore();
      main.show();
      main.focus();
    }
  };
  const capture = createCaptureWindow(() => quitting);
  // While quitting (runs ending, at most a few seconds) the capture window may be gone already.
  const openCapture = (): void => {
    if (!quitting && !capture.isDestroyed()) showCaptureWindow(capture);
  };
  const tray = createTray({ open: openMain, capture: openCapture, quit: () => app.quit(), shortcut: captureShortcut });

  let applied: string | null = null;
  const applyShortcut = (): void => {
    // Read by name: an older database or settings schema may not know the key yet.
    const settings: Record<string, unknown> = readSettings(host.db);
    const wanted = typeof settings['quickCaptureShortcut'] === 'string' ? settings['quickCaptureShortcut'] : DEFAULT_SHORTCUT;
    // A commit by another process reports every topic, settings included (host/index.ts): act only when this
    // setting has changed, or a refused shortcut would be tried and reported again on every such commit.
    if (wanted === applied) return;
    applied = wanted;
    const r = setCaptureShortcut(wanted, openCapture);
    if (!r.ok) notify(r.message);
    tray.refresh();
  };
  applyShortcut();
  host.hub.subscribe((m) => {
    if (m.event === 'data.changed' && m.payload.topics.includes('settings')) applyShortcut();
    // "Open in Tidy" in the capture window: the main window comes up (it opens the conversation itself).
    if (m.event === 'app.open' && !quitting) openMain();
    if (m.event === 'reminder.due') showReminder(m.payload.task, host.dispatch, openMain);
    // A routine's run changed something or waits for an answer: a system notification; a click opens Tidy.
    if (m.event === 'routine.notice' && Notification.isSupported()) {
      const shown = routineNotification(m.payload, { windowInFront: !main.isDestroyed() && main.isVisible() && main.isFocused() });
      if (shown) {
        const n = new Notification({ title: shown.title, body: shown.body });
        n.on('click', openMain);
        n.show();
      }
    }
  });

  app.on('second-instance', openMain);
  app.on('activate', openMain);
  let closed = false;
  app.on('will-quit', (event) => {
    if (closed) return;
    // Let cancelled runs write their end to the trace before the database closes, then quit for real.
    event.preventDefault();
    globalShortcut.unregisterAll();
    void host.close().finally(() => {
      closed = true;
      host.db.close();
      app.quit();
    });
  });
}

if (!app.requestSingleInstanceLock()) app.quit();
else {
  app.on('before-quit', () => {
    quitting = true;
  });
  // Tidy lives on in the tray (quick capture keeps working) until Quit; with keepInTray off, closing the main window quits (watchClose).
  app.on('window-all-closed', () => {});
  app.whenReady()
    .then(start)
    .catch((e: unknown) => {
      const message = e instanceof Error ? e.message : String(e);
      console.error(`Tidy could not start: ${message}`);
      dialog.showErrorBox('Tidy could not start', message);
      app.exit(1);
    });
}
