import { onTestFinished } from 'vitest';
import { createBridge, type Bridge } from '../../src-shared/bridge';
import { channels, type ChannelName, type Input, type Output } from '../../src-shared/ipc';
import { createHost, type Host } from '../../src-main/host';
import { createMemoryTransport, type MemoryTransport } from '../../src-main/host/memory';
import type { Db } from '../../src-main/core';
import { tempDb } from './db';

export interface TestHost {
  db: Db;
  host: Host;
  transport: MemoryTransport;
  api: Bridge;
  /** Invokes a channel and checks the value against the contract's output schema. */
  call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>>;
}

/** The real host (handlers, dispatcher, hub) on a fresh database, reached through the in-memory transport. */
export function memoryHost(): TestHost {
  const { db } = tempDb();
  const host = createHost({ db }, { watchMs: 0 });
  const transport = createMemoryTransport(host.dispatch, host.hub);
  onTestFinished(() => {
    transport.close();
    host.close();
  });
  const api = createBridge(transport);
  const call = async <C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> => {
    const value = await (api.invoke as (c: C, i: Input<C>) => Promise<Output<C>>)(channel, input);
    channels[channel].output.parse(value);
    return value;
  };
  return { db, host, transport, api, call };
}
