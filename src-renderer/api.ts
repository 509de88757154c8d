/**
 * The renderer's one way to the main side (docs/ARCHITECTURE.md, "The contract between the UI and the main
 * side"): components import `api` from here and never touch `window.tidy` or a WebSocket themselves. In
 * the Electron app it wraps the preload's bridge; in a browser on `tidy serve` it speaks the same contract
 * over a WebSocket. The UI cannot tell which.
 *
 *   import { api, BridgeError } from './api';
 *   const { tasks } = await api.invoke('tasks.list', { project: 'inbox' });
 *   const off = api.on('data.changed', ({ topics }) => { if (topics.includes('tasks')) void reload(); });
 *
 * A refused request rejects with a BridgeError: `message` says what went wrong, `hint` what to do.
 */
import { createBridge, type Bridge, type Transport } from '../src-shared/bridge';
import { connectWebSocket, WS_PATH } from '../src-shared/ws-client';

export { BridgeError } from '../src-shared/bridge';

const TOKEN_KEY = 'tidy.token';

/**
 * `tidy serve` prints a URL with `?token=`. The page takes the token once, keeps it for this tab in
 * sessionStorage (scoped to this origin, port included, so no other local server can read it) and
 * removes it from the address bar and history entry.
 */
function takeToken(): string {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem(TOKEN_KEY, fromUrl);
    url.searchParams.delete('token');
    history.replaceState(history.state, '', `${url.pathname}${url.search}${url.hash}`);
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? '';
}

function webTransport(): Transport {
  return connectWebSocket(`ws://${window.location.host}${WS_PATH}`, takeToken(), (url, protocols) => new WebSocket(url, protocols));
}

export const api: Bridge = createBridge(window.tidy ?? webTransport());

/** In the desktop app (the preload's bridge is there) the main process shows the system notifications itself. */
export const inDesktopApp: boolean = window.tidy !== undefined;
