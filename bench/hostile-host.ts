// The web host of the hostile suite, in its own process so that the event-loop delay it reports is the
// host's alone, not the attacking clients'. bench/hostile.ts starts it and talks to it over stdio:
// it prints {"port": N}, then answers each "stats" line with its figures since the last "reset".
// Usage: node --import tsx bench/hostile-host.ts <database> [flow limits as JSON]
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createMemorySecretStore, openDatabase } from '../src-main/core';
import { createHost, HOST_BUSY_TIMEOUT_MS } from '../src-main/host';
import type { Dispatch } from '../src-main/host/dispatch';
import { startWebHost } from '../src-main/host/web';

export interface HostStats {
  /** Largest lateness of the host's event loop, in ms. */
  maxDelayMs: number;
  rssMb: number;
  peakRssMb: number;
  peakHeapMb: number;
  /** Requests the dispatcher was given, and the longest one (its synchronous work is most of it). */
  requests: number;
  longestMs: number;
  logs: string[];
}

const RESOLUTION_MS = 10;
const MB = 1024 * 1024;

async function main(dbPath: string, flow: string | undefined): Promise<void> {
  // Opened as `tidy serve` opens it: a short busy timeout, the waiting done on a timer by the dispatcher.
  const db = openDatabase(dbPath, { holder: 'the hostile suite host', busyTimeoutMs: HOST_BUSY_TIMEOUT_MS });
  const host = createHost(
    { db, secrets: createMemorySecretStore(), env: {}, createModel: () => ({ name: 'none', complete: () => Promise.reject(new Error('no model in the hostile suite')) }) },
    { watchMs: 0 },
  );
  let requests = 0;
  let longest = 0;
  const dispatch: Dispatch = async (channel, input) => {
    const t0 = performance.now();
    const reply = await host.dispatch(channel, input);
    requests++;
    longest = Math.max(longest, performance.now() - t0);
    return reply;
  };
  let logs: string[] = [];
  const web = await startWebHost({ dispatch, hub: host.hub, rendererDir: process.cwd(), token: 'bench-token', flow: flow ? JSON.parse(flow) : undefined, log: (l) => logs.push(l) });

  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  let peakRss = 0;
  let peakHeap = 0;
  const sample = () => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeap = Math.max(peakHeap, m.heapUsed);
  };
  const sampler = setInterval(sample, 20);
  const reset = () => {
    delay.reset();
    peakRss = peakHeap = requests = longest = 0;
    logs = [];
    sample();
  };
  reset();
  console.log(JSON.stringify({ port: web.port }));

  for await (const line of createInterface({ input: process.stdin })) {
    if (line === 'reset') reset();
    if (line === 'stats') {
      sample();
      const stats: HostStats = {
        maxDelayMs: Math.max(0, delay.max / 1e6 - RESOLUTION_MS),
        rssMb: process.memoryUsage.rss() / MB,
        peakRssMb: peakRss / MB,
        peakHeapMb: peakHeap / MB,
        requests,
        longestMs: longest,
        logs,
      };
      console.log(JSON.stringify(stats));
    }
  }
  clearInterval(sampler);
  delay.disable();
  await web.close();
  await host.close();
  db.close();
}

if (process.argv[1]?.endsWith('hostile-host.ts')) await main(process.argv[2]!, process.argv[3]);
