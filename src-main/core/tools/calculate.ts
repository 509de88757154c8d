import { z } from 'zod';
import { createCalculator, type Calculator } from '../../sandbox/calculator';
import { defineTool } from './tool';

// One calculator per process: its worker starts on the first call, is reused, and never keeps the
// process alive while idle.
let shared: Calculator | undefined;
const calculator = (): Calculator => (shared ??= createCalculator());

/** Arithmetic in the sandbox worker (mathjs, locked down, time- and memory-limited), never in this thread. */
export const calculateTool = defineTool({
  name: 'calculate',
  description: 'Evaluate arithmetic exactly, e.g. "15 * 25", "sqrt(2)", "5 km to miles". Use it instead of doing sums yourself.',
  input: z.object({ expression: z.string().describe('the expression, in mathjs syntax') }),
  tags: ['read', 'math'],
  async run({ expression }, ctx) {
    const outcome = await calculator().calculate(expression, ctx.signal);
    return 'result' in outcome ? { ok: true, value: { result: outcome.result } } : { ok: false, ...outcome };
  },
});
