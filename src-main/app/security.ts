/**
 * The renderer's security settings (https://www.electronjs.org/docs/latest/tutorial/security): isolated,
 * sandboxed windows without Node, our own app:// origin with a strict CSP, and no navigation, new
 * windows, webviews or permissions, for every web contents the app ever creates.
 */
import { app, protocol, session } from 'electron';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contentSecurityPolicy, resolveStaticFile, securityHeaders } from '../host/static';

export const APP_SCHEME = 'app';
export const APP_HOST = 'tidy';
export const RENDERER_DIR = join(import.meta.dirname, '../renderer');
export const PRELOAD = join(import.meta.dirname, '../preload/index.cjs');

const CSP = contentSecurityPolicy();

/** The electron-vite dev server, in development only. */
export const devServerUrl = (): URL | null => {
  const url = process.env['ELECTRON_RENDERER_URL'];
  return !app.isPackaged && url ? new URL(url) : null;
};

/** Whether a frame URL is our renderer: app://tidy, or the dev server in development. */
export function isOurRenderer(url: URL): boolean {
  if (url.protocol === `${APP_SCHEME}:` && url.host === APP_HOST) return true;
  const dev = devServerUrl();
  return dev !== null && url.origin === dev.origin;
}

/** The renderer at a route (`#/capture`), from app:// or from the dev server. */
export function rendererUrl(route = ''): string {
  const dev = devServerUrl();
  return `${dev ? dev.href.replace(/#.*$/, '') : `${APP_SCHEME}://${APP_HOST}/index.html`}${route ? `#${route}` : ''}`;
}

/**
 * Must run before the app is ready: app:// is a standard, secure scheme (its own origin, fetch, storage).
 * `corsEnabled` lets Vite's `<script type="module" crossorigin>` load from it (as VS Code's vscode-file://
 * does); it would also let other origins read it, but the app never loads another origin.
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true, corsEnabled: true } }]);
}

/** Serves out/renderer on app://tidy with the security headers; nothing else. */
function serveRenderer(): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const url = new URL(request.url);
    const target = url.host === APP_HOST ? resolveStaticFile(RENDERER_DIR, url.pathname) : null;
    if (!target) return new Response('Not found', { status: 404 });
    try {
      return new Response(await readFile(target.file), { headers: { ...securityHeaders(CSP), 'Content-Type': target.type } });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}

/**
 * The one permission granted: the Copy buttons write text with navigator.clipboard, which Chromium asks
 * for as `clipboard-sanitized-write` (and still allows only during a click). Only our page gets it;
 * reading the clipboard and every other permission stay denied.
 */
export function mayWriteClipboard(permission: string, requestingUrl: string): boolean {
  if (permission !== 'clipboard-sanitized-write') return false;
  try {
    return isOurRenderer(new URL(requestingUrl));
  } catch {
    return false;
  }
}

/** Call once the app is ready, before the first window. */
export function hardenSession(): void {
  serveRenderer();
  const ses = session.defaultSession;
  // The CSP also as a response header on everything the session loads (the dev server included).
  ses.webRequest.onHeadersReceived((details, callback) => {
    callback({ responseHeaders: { ...details.responseHeaders, 'Content-Security-Policy': [CSP] } });
  });
  ses.setPermissionRequestHandler((_wc, permission, callback, details) => callback(mayWriteClipboard(permission, details.requestingUrl)));
  ses.setPermissionCheckHandler((_wc, permission, origin) => mayWriteClipboard(permission, origin));
  ses.setDevicePermissionHandler(() => false);

  app.on('web-contents-created', (_event, contents) => {
    contents.setWindowOpenHandler(() => ({ action: 'deny' }));
    contents.on('will-navigate', (event) => event.preventDefault());
    // Subframes too; loadURL from this process is the only way a page gets in.
    contents.on('will-frame-navigate', (event) => event.preventDefault());
    contents.on('will-redirect', (event) => event.preventDefault());
    contents.on('will-attach-webview', (event) => event.preventDefault());
  });
}
