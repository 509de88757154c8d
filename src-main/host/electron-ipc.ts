/**
 * The Electron transport of the IPC contract: one ipcMain handler per channel, registered in a loop.
 * Each request is answered only for our own main frame; the dispatcher parses the input with the
 * contract's schema. Only types are imported from electron, so this runs (and is tested) in Node too.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents, WebFrameMain } from 'electron';
import { failed, type Reply } from '../../src-shared/bridge';
import { channels, electronEventName, electronInvokeName, type ChannelName } from '../../src-shared/ipc';
import type { Dispatch } from './dispatch';
import type { EventHub } from './hub';

/** Decides from a frame's URL whether it is our renderer (app://tidy, or the dev server in development). */
type TrustedUrl = (url: URL) => boolean;

/** Our own renderer's main frame, and nothing else: no subframe, no other page the window was sent to. */
export function isTrustedFrame(frame: WebFrameMain | null | undefined, trusted: TrustedUrl): boolean {
  if (!frame || frame.parent !== null) return false;
  try {
    return trusted(new URL(frame.url));
  } catch {
    return false;
  }
}

/** Registers every channel on ipcMain; returns a function that removes them again. */
export function registerIpc(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, dispatch: Dispatch, trusted: TrustedUrl): () => void {
  const names = Object.keys(channels) as ChannelName[];
  for (const name of names) {
    ipcMain.handle(electronInvokeName(name), (event: IpcMainInvokeEvent, input: unknown): Promise<Reply> => {
      if (!isTrustedFrame(event.senderFrame, trusted)) {
        return Promise.resolve(failed('forbidden', `${name} was asked by a frame that is not Tidy's window`, 'only the Tidy window may use the bridge'));
      }
      return dispatch(name, input);
    });
  }
  return () => {
    for (const name of names) ipcMain.removeHandler(electronInvokeName(name));
  };
}

/** Sends every hub event to the windows `targets` lists (each window's main frame). */
export function forwardEvents(hub: EventHub, targets: () => Iterable<WebContents>): () => void {
  return hub.subscribe(({ event, payload }) => {
    for (const wc of targets()) if (!wc.isDestroyed()) wc.send(electronEventName(event), payload);
  });
}
