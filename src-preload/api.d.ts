/**
 * The API the preload exposes as `window.tidy`: a Transport of the IPC contract. The renderer never
 * uses it directly: src-renderer/api.ts wraps it (or the WebSocket client) into the typed `api`.
 */
import type { Transport } from '../src-shared/bridge';

export type TidyApi = Transport;

declare global {
  interface Window {
    /** Present in the Electron app only; absent in a browser on `tidy serve`. */
    readonly tidy?: TidyApi;
  }
}
