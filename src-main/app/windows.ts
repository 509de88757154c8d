/** The main window and the quick-capture window. Both load the same renderer (by route) with the same hardened preferences. */
import { BrowserWindow, screen } from 'electron';
import { rendererUrl, secureWebPreferences } from './security';

export function createMainWindow(): BrowserWindow {
  const win = new BrowserWindow({
    width: 1100,
    height: 760,
    minWidth: 480,
    minHeight: 360,
    title: 'Tidy',
    show: false,
    webPreferences: secureWebPreferences(),
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(rendererUrl());
  return win;
}

/**
 * A small frameless window on top of everything, made once and shown by the global shortcut. It hides
 * when it loses focus or is closed (the renderer calls window.close() after a capture) until the app quits.
 */
export function createCaptureWindow(isQuitting: () => boolean): BrowserWindow {
  const win = new BrowserWindow({
    width: 560,
    height: 132,
    title: 'Tidy quick capture',
    frame: false,
    resizable: false,
    minimizable: false,
    maximizable: false,
    fullscreenable: false,
    skipTaskbar: true,
    alwaysOnTop: true,
    show: false,
    webPreferences: secureWebPreferences(),
  });
  win.setAlwaysOnTop(true, 'floating');
  win.on('blur', () => win.hide());
  win.on('close', (event) => {
    if (isQuitting()) return;
    event.preventDefault();
    win.hide();
  });
  void win.loadURL(rendererUrl('/capture'));
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
