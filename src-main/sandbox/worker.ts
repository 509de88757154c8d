// The calculator worker: evaluates one expression at a time with a locked-down mathjs instance and
// posts back a result text or an error. Bundled to out/cli/calc-worker.mjs; started only by calculator.ts,
// which enforces the timeout and the memory limits from outside (a runaway expression is terminated).
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import type { CalcRequest, WorkerMessage } from './protocol';
import { describeError, describeValue, hasDivisionByZero, refuseMethodCalls, type Answer } from './describe';
import { createLockedMath } from './lockdown';

const port = parentPort;
if (!port) throw new Error('calc-worker must run in a worker thread');

const { math, parse } = createLockedMath();

// On Linux nice values are per thread: a long calculation then yields the CPU to the app's main thread
// instead of competing with it on a busy machine. Elsewhere there is no thread id to lower; skip.
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (threadId > 0) setPriority(threadId, 10);
} catch {
  // not Linux
}

function calculate(expression: string, maxResultChars: number): Answer {
  // A fresh scope per call: nothing one expression assigns is seen by the next.
  const scope = new Map<string, unknown>();
  try {
    const tree = parse(expression);
    const refused = refuseMethodCalls(math, tree);
    if (refused) return refused;
    const value: unknown = tree.compile().evaluate(scope);
    return describeValue(math, value, maxResultChars, () => {
      try {
        return hasDivisionByZero(math, tree, scope);
      } catch {
        return false;
      }
    });
  } catch (err) {
    return describeError(err);
  }
}

function isRequest(msg: unknown): msg is CalcRequest {
  if (typeof msg !== 'object' || msg === null) return false;
  const m = msg as Record<string, unknown>;
  return typeof m.id === 'number' && typeof m.expression === 'string' && typeof m.maxResultChars === 'number';
}

port.on('message', (msg: unknown) => {
  if (!isRequest(msg)) return;
  const answer = calculate(msg.expression, msg.maxResultChars);
  const reply: WorkerMessage = 'result' in answer
    ? { type: 'result', id: msg.id, result: answer.result }
    : { type: 'failure', id: msg.id, error: answer.error, hint: answer.hint };
  port.postMessage(reply);
});

port.postMessage({ type: 'ready' } satisfies WorkerMessage);
