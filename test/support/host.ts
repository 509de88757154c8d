import { onTestFinished } from 'vitest';
import { createBridge, type Bridge } from '../../src-shared/bridge';
import { channels, type ChannelName, type Input, type Output } from '../../src-shared/ipc';
import { createHost, type Host, type HostOptions } from '../../src-main/host';
import type { HostDeps } from '../../src-main/host/handlers';
import { createMemoryTransport, type MemoryTransport } from '../../src-main/host/memory';
import { createMemorySecretStore, openDatabase, type Db } from '../../src-main/core';
import type { Model } from '../../src-main/core/llm/port';
import { tempDb } from './db';

/** Host dependencies for tests: keys in memory, no environment, and a model that must not be called unless given. */
export function testDeps(db: Db, model?: Model): HostDeps {
  return {
    db,
    secrets: createMemorySecretStore(),
    env: {},
    createModel: () => model ?? { name: 'unused', complete: () => Promise.reject(new Error('this test does not expect a model call')) },
  };
}

export interface TestHost {
  db: Db;
  deps: HostDeps;
  host: Host;
  transport: MemoryTransport;
  api: Bridge;
  /** Invokes a channel and checks the value against the contract's output schema. */
  call<C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>>;
}

/** The real host (handlers, dispatcher, hub) on a fresh database, reached through the in-memory transport. `db` is the host's of the moment (a restore replaces it). */
export function memoryHost(model?: Model, options: Omit<HostOptions, 'watchMs'> = {}): TestHost {
  const { db: first, path } = tempDb();
  const deps = testDeps(first, model);
  const host = createHost(deps, { watchMs: 0, reopen: () => openDatabase(path), ...options });
  const transport = createMemoryTransport(host.dispatch, host.hub);
  onTestFinished(async () => {
    transport.close();
    await host.close();
    if (host.db !== first) host.db.close();
  });
  const api = createBridge(transport);
  const call = async <C extends ChannelName>(channel: C, input: Input<C>): Promise<Output<C>> => {
    const value = await (api.invoke as (c: C, i: Input<C>) => Promise<Output<C>>)(channel, input);
    channels[channel].output.parse(value);
    return value;
  };
  return {
    get db() {
      return host.db;
    },
    deps,
    host,
    transport,
    api,
    call,
  };
}
