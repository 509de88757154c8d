/**
 * The built renderer in Chromium as an app window would run it, minus Electron: the pages come from the
 * app's own app:// protocol handler (through a small http server on 127.0.0.1, with the handler's status,
 * headers and CSP), and the built preload (out/preload/index.cjs) runs in the page with a stand-in for
 * `electron` whose ipcRenderer reaches the app's ipcMain handlers (test/support/electron-app.ts), while
 * what the app sends to the window is delivered to the page's listeners.
 *
 * Not Electron: the preload runs in the page's world (no context isolation, no sandbox), and the sender
 * frame the main process sees is the page's frame with its URL mapped back to app://tidy.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { PRELOAD_BUNDLE, type AppUnderTest } from './electron-app';

export interface AppProtocolServer {
  /** http://127.0.0.1:PORT: a path here is app://tidy/<path> in the app. */
  origin: string;
  close(): Promise<void>;
}

/** Serves every GET through the app's app:// handler, as the window would load it. */
export async function serveAppProtocol(app: AppUnderTest): Promise<AppProtocolServer> {
  const server: Server = createServer((req, res) => {
    // Chromium asks for it for its tab strip; an Electron window never does, and the app does not serve one.
    if (req.url === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    void app
      .send({ op: 'protocol', url: `app://tidy${req.url ?? '/'}` })
      .then((r) => {
        res.writeHead(r.status, r.headers);
        res.end(Buffer.from(r.body, 'base64'));
      })
      .catch((e: unknown) => {
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end(String(e));
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The page side: a CommonJS `require` that knows only `electron`, as in a sandboxed preload, then the preload itself. */
function preloadScript(): string {
  const preload = readFileSync(PRELOAD_BUNDLE, 'utf8');
  return `(() => {
  const listeners = new Map();
  const electron = {
    contextBridge: { exposeInMainWorld: (key, api) => Object.defineProperty(window, key, { value: Object.freeze(api), enumerable: true }) },
    ipcRenderer: {
      invoke: (channel, ...args) => window.__tidyIpcInvoke(channel, args[0]),
      on(channel, listener) {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel).add(listener);
        return this;
      },
      removeListener(channel, listener) {
        listeners.get(channel)?.delete(listener);
        return this;
      },
    },
  };
  // What the main process sends to this window (webContents.send) arrives here.
  Object.defineProperty(window, '__tidyIpcDeliver', {
    value: (channel, args) => {
      for (const listener of listeners.get(channel) ?? []) listener({ sender: null }, ...args);
    },
  });
  // An Electron window closes on window.close() (its 'close' event may prevent it); Chromium would refuse.
  window.close = () => void window.__tidyWindowClose();
  const require = (name) => {
    if (name === 'electron') return electron;
    throw new Error('a sandboxed preload can require only electron, not ' + name);
  };
  const module = { exports: {} };
  (function (require, module, exports) {
${preload}
  })(require, module, module.exports);
})();`;
}

export interface RendererWindow {
  /** Stops delivering the app's messages to the page. */
  stop(): void;
}

/**
 * Makes `page` one of the app's windows (by id): its invokes go to the app's ipcMain handlers as that
 * window's frame, what the app sends to that window is delivered to it, and window.close() closes that
 * window in the app. Call before page.goto.
 */
export async function asAppWindow(page: Page, app: AppUnderTest, windowId: number, server: AppProtocolServer): Promise<RendererWindow> {
  await page.exposeBinding('__tidyIpcInvoke', async (source, channel: string, input: unknown) => {
    const url = new URL(source.frame.url());
    const appUrl = url.origin === server.origin ? `app://tidy${url.pathname}${url.search}${url.hash}` : url.href;
    return app.send({ op: 'invoke', window: windowId, channel, input, frame: { url: appUrl, subframe: source.frame.parentFrame() !== null } });
  });
  await page.exposeBinding('__tidyWindowClose', () => app.send({ op: 'window', id: windowId, action: 'close' }));
  await page.addInitScript({ content: preloadScript() });

  let delivered = 0;
  let stopped = false;
  const pump = async (): Promise<void> => {
    while (!stopped && !page.isClosed()) {
      const s = await app.snapshot().catch(() => null);
      const sent = s?.windows.find((w) => w.id === windowId)?.webContents.sent ?? [];
      for (const message of sent.slice(delivered)) {
        await page.evaluate(([channel, args]) => (globalThis as unknown as { __tidyIpcDeliver?: (c: string, a: unknown[]) => void }).__tidyIpcDeliver?.(channel, args), [message.channel, message.args] as const).catch(() => undefined);
      }
      delivered = Math.max(delivered, sent.length);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  void pump();
  return {
    stop: () => {
      stopped = true;
    },
  };
}
