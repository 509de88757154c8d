// The calculator's process: evaluates one expression at a time with a locked-down mathjs instance and
// sends back a result text or an error. Bundled to out/cli/calc-worker.mjs (and out/main/calc-worker.js
// for the desktop app); started only by calculator.ts with child_process.fork, an empty environment and
// a bounded heap. The parent enforces the time limit and kills this process when a call runs too long;
// an expression that exhausts the heap ends this process only.
import { setPriority } from 'node:os';
import type { CalcRequest, WorkerMessage } from './protocol';
import { describeError, describeValue, hasDivisionByZero, refuseMethodCalls, type Answer } from './describe';
import { LIMITS, type SizeLimits } from './limits';
import { createLockedMath } from './lockdown';

/** How long past its time limit a call may run before it stops itself (the parent normally kills it first). */
const DEADLINE_GRACE_MS = 1_000;

const channel = process.send?.bind(process);
if (!channel) {
  process.stderr.write('calc-worker is started by the calculator (child_process.fork), not on its own\n');
  process.exit(2);
}

/** The size limits from the first argument (JSON), each a positive number, else the defaults. */
function limitsFrom(arg: string | undefined): SizeLimits {
  const limits = { ...LIMITS };
  if (!arg) return limits;
  try {
    const given: unknown = JSON.parse(arg);
    if (typeof given !== 'object' || given === null) return limits;
    for (const key of Object.keys(LIMITS) as (keyof SizeLimits)[]) {
      const value = (given as Record<string, unknown>)[key];
      if (typeof value === 'number' && value > 0) limits[key] = value;
    }
  } catch {
    // Not JSON: the defaults.
  }
  return limits;
}

const { math, parse, guard } = createLockedMath(limitsFrom(process.argv[2]));

// A long calculation yields the CPU to the app rather than competing with it on a busy machine.
try {
  setPriority(10);
} catch {
  // Not permitted here: run at normal priority.
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
  return typeof m.id === 'number' && typeof m.expression === 'string' && typeof m.maxResultChars === 'number' && typeof m.timeoutMs === 'number';
}

function send(message: WorkerMessage): void {
  try {
    channel!(message);
  } catch {
    // The app is gone: nothing is waiting for this answer.
    process.exit(0);
  }
}

process.on('message', (msg: unknown) => {
  if (!isRequest(msg)) return;
  guard.setDeadline(performance.now() + msg.timeoutMs + DEADLINE_GRACE_MS);
  const answer = calculate(msg.expression, msg.maxResultChars);
  guard.setDeadline(undefined);
  send('result' in answer ? { type: 'result', id: msg.id, result: answer.result } : { type: 'failure', id: msg.id, error: answer.error, hint: answer.hint });
});
// The app closed the channel (it exited, or closed the calculator): nothing more will be asked.
process.on('disconnect', () => process.exit(0));

send({ type: 'ready' });
