/**
 * The preload: exposes the typed bridge (`window.tidy`: invoke + on) and nothing else. Channel and event
 * names are checked against the contract here; inputs are parsed in the main process, which also checks
 * that the request comes from our own main frame.
 */
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { failed, type Reply } from '../src-shared/bridge';
import { electronEventName, electronInvokeName, isChannelName, isEventName, type ChannelName, type Input, type Output } from '../src-shared/ipc';
import type { TidyApi } from './api';

const api: TidyApi = {
  invoke<C extends ChannelName>(channel: C, input: Input<C>): Promise<Reply<Output<C>>> {
    // The page may pass anything at run time, whatever the types say.
    const name: unknown = channel;
    if (!isChannelName(name)) return Promise.resolve(failed('unknown_channel', `there is no channel ${JSON.stringify(String(name))}`, 'use a channel of the IPC contract'));
    // ipcRenderer.invoke is untyped; the main process answers with the contract's Reply for this channel.
    return ipcRenderer.invoke(electronInvokeName(channel), input) as Promise<Reply<Output<C>>>;
  },
  on(event, listener) {
    const name: unknown = event;
    if (!isEventName(name)) throw new Error(`there is no event ${JSON.stringify(String(name))} in the IPC contract`);
    // The renderer gets the payload only, never Electron's event object (it would expose ipcRenderer).
    const wrapped = (_e: IpcRendererEvent, payload: unknown): void => (listener as (p: unknown) => void)(payload);
    const ipcName = electronEventName(event);
    ipcRenderer.on(ipcName, wrapped);
    return () => {
      ipcRenderer.removeListener(ipcName, wrapped);
    };
  },
};

contextBridge.exposeInMainWorld('tidy', api);
