// The Electron transport with a stand-in for ipcMain: it imports only types from electron, so the
// registration loop, the sender-frame check and the event forwarding run here in plain Node.
import { describe, expect, it } from 'vitest';
import type { IpcMainInvokeEvent, WebContents, WebFrameMain } from 'electron';
import { channels, electronEventName, electronInvokeName } from '../../../src-shared/ipc';
import { forwardEvents, isTrustedFrame, registerIpc } from '../../../src-main/host/electron-ipc';
import { createEventHub } from '../../../src-main/host/hub';
import { createHost } from '../../../src-main/host';
import { tempDb } from '../../support/db';
import { testDeps } from '../../support/host';

type Handler = (event: IpcMainInvokeEvent, input: unknown) => Promise<unknown>;

function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  return {
    handlers,
    handle: (channel: string, listener: Handler) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, listener);
    },
    removeHandler: (channel: string) => handlers.delete(channel),
  };
}

const frame = (url: string, parent: unknown = null) => ({ url, parent }) as unknown as WebFrameMain;
const eventFrom = (senderFrame: WebFrameMain | null) => ({ senderFrame }) as IpcMainInvokeEvent;
const ours = (u: URL) => u.protocol === 'app:' && u.host === 'tidy';

describe('the Electron transport', () => {
  it('registers one handler per contract channel and removes them again', () => {
    const ipc = fakeIpcMain();
    const stop = registerIpc(ipc as never, async () => ({ ok: true, value: null }), ours);
    expect([...ipc.handlers.keys()].sort()).toEqual(Object.keys(channels).map((c) => electronInvokeName(c as keyof typeof channels)).sort());
    stop();
    expect(ipc.handlers.size).toBe(0);
  });

  it('answers our main frame through the real dispatcher, and refuses subframes and foreign pages', async () => {
    const { db } = tempDb();
    const host = createHost(testDeps(db), { watchMs: 0 });
    const ipc = fakeIpcMain();
    registerIpc(ipc as never, host.dispatch, ours);
    const add = ipc.handlers.get(electronInvokeName('tasks.add'))!;

    expect(await add(eventFrom(frame('app://tidy/index.html#/capture')), { content: 'From the window' })).toMatchObject({ ok: true });
    for (const f of [frame('app://tidy/index.html', frame('app://tidy/index.html')), frame('https://evil.example/'), frame('app://evil/index.html'), frame('not a url'), null]) {
      expect(await add(eventFrom(f), { content: 'Sneaky' })).toMatchObject({ ok: false, code: 'forbidden' });
    }
    expect(await add(eventFrom(frame('app://tidy/index.html')), { content: 7 })).toMatchObject({ ok: false, code: 'invalid_input' });
    expect(db.prepare('SELECT content FROM tasks').all()).toEqual([{ content: 'From the window' }]);
    await host.close();
  });

  it('checks frames strictly', () => {
    expect(isTrustedFrame(undefined, ours)).toBe(false);
    expect(isTrustedFrame(frame('app://tidy/'), () => true)).toBe(true);
    expect(isTrustedFrame(frame('app://tidy/', {}), () => true)).toBe(false);
  });

  it('forwards every event to every live window', () => {
    const hub = createEventHub();
    const sent: [string, string, unknown][] = [];
    const wc = (name: string, destroyed = false) =>
      ({ isDestroyed: () => destroyed, send: (channel: string, payload: unknown) => sent.push([name, channel, payload]) }) as unknown as WebContents;
    const stop = forwardEvents(hub, () => [wc('main'), wc('closed', true), wc('capture')]);
    hub.emit('data.changed', { topics: ['tasks'] });
    stop();
    hub.emit('data.changed', { topics: ['lists'] });
    const name = electronEventName('data.changed');
    expect(sent).toEqual([
      ['main', name, { topics: ['tasks'] }],
      ['capture', name, { topics: ['tasks'] }],
    ]);
  });
});
