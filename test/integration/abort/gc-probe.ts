// Run by test/integration/abort/abort.test.ts in its own process with --expose-gc: fetches from a server that
// never answers with a time limit of 300 ms and a cancel signal, combined by `timeLimit` (or by Node's
// AbortSignal.any and AbortSignal.timeout when PROBE=node), while garbage is collected every 10 ms.
// Prints "aborted <ms>" or "hung" for each of three requests.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { timeLimit } from '../../../src-main/core/abort';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const server = createServer(() => {});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
const collecting = setInterval(gc, 10);
const limited = (cancel: AbortSignal) => (process.env['PROBE'] === 'node' ? AbortSignal.any([cancel, AbortSignal.timeout(300)]) : timeLimit(300, [cancel]).signal);
const results: string[] = [];
for (let i = 0; i < 3; i++) {
  const t0 = Date.now();
  const signal = limited(new AbortController().signal);
  results.push(
    await Promise.race([
      fetch(url, { signal }).then(
        () => 'answered',
        () => `aborted ${Date.now() - t0}`,
      ),
      new Promise<string>((resolve) => setTimeout(() => resolve('hung'), 3_000)),
    ]),
  );
}
clearInterval(collecting);
server.closeAllConnections();
server.close();
console.log(results.join('\n'));
