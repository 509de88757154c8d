/** The main window and the quick-capture window. Both load the same renderer (by route) with the same hardened preferences. */
import { BrowserWindow, screen, type BrowserWindowConstructorOptions } from 'electron';
import { captureWindowSize, CAPTURE_BASE } from './capture-size';
import { routeLinksOutside } from './links';
import { PRELOAD, rendererUrl } from './security';

/**
 * The one place Tidy makes a window: the security settings are spelled out here, where a reviewer (and
 * Electronegativity's static checks) can see them, for every window alike.
 */
function secureWindow(options: BrowserWindowConstructorOptions, extra: { preferredSize?: boolean } = {}): BrowserWindow {
  const win = new BrowserWindow({
    ...options,
    webPreferences: {
      enablePreferredSizeMode: extra.preferredSize === true,
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      safeDialogs: true,
      // Middle-click must not open links in new windows (the window-open handler denies them anyway).
      disableBlinkFeatures: 'Auxclick',
    },
  });
  // Links in answers open in the system browser after the scheme check; the window itself never navigates.
  routeLinksOutside(win.webContents);
  return win;
}

/**
 * loadURL rejects when the page does not load (the dev server is down, the app quits while it loads): one
 * line says so, instead of an unhandled rejection, which Electron shows as an error in the main process.
 */
function load(win: BrowserWindow, url: string): void {
  win.loadURL(url).catch((e: unknown) => {
    console.warn(`Tidy: the window could not load ${url}: ${e instanceof Error ? e.message : String(e)}`);
  });
}

export function createMainWindow(): BrowserWindow {
  const win = secureWindow({
    width: 1100,
    height: 760,
    minWidth: 480,
    minHeight: 360,
    title: 'Tidy',
    show: false,
  });
  win.once('ready-to-show', () => win.show());
  load(win, rendererUrl());
  return win;
}

/**
 * A small frameless window on top of everything, made once and shown by the global shortcut. It hides
 * when it loses focus or is closed (the renderer calls window.close() after a capture) until the app quits.
 * Its height follows the page (the answer shown under the box after Ctrl+Enter) and the zoom, through
 * Chromium's preferred size (capture-size.ts does the arithmetic).
 */
export function createCaptureWindow(isQuitting: () => boolean): BrowserWindow {
  const win = secureWindow(
    {
      width: CAPTURE_BASE.width,
      height: CAPTURE_BASE.height,
      useContentSize: true,
      title: 'Tidy quick capture',
      frame: false,
      resizable: false,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      skipTaskbar: true,
      alwaysOnTop: true,
      show: false,
    },
    { preferredSize: true },
  );
  win.setAlwaysOnTop(true, 'floating');
  const fit = (contentHeight: number): void => {
    if (win.isDestroyed()) return;
    const { workArea } = screen.getDisplayMatching(win.getBounds());
    const size = captureWindowSize({ contentHeight, zoom: win.webContents.getZoomFactor(), workArea });
    const [w, h] = win.getContentSize() as [number, number];
    if (w !== size.width || h !== size.height) win.setContentSize(size.width, size.height);
  };
  win.webContents.on('preferred-size-changed', (_event, preferred) => fit(preferred.height));
  win.webContents.on('zoom-changed', () => fit(0));
  win.on('blur', () => win.hide());
  win.on('close', (event) => {
    if (isQuitting()) return;
    event.preventDefault();
    win.hide();
  });
  load(win, rendererUrl('/capture'));
  return win;
}

/** Shows the capture window centred near the top of the display the pointer is on. */
export function showCaptureWindow(win: BrowserWindow): void {
  const { workArea } = screen.getDisplayNearestPoint(screen.getCursorScreenPoint());
  const [width, height] = win.getSize() as [number, number];
  win.setPosition(Math.round(workArea.x + (workArea.width - width) / 2), Math.round(workArea.y + workArea.height / 4 - height / 2));
  win.show();
  win.focus();
}
