import { z } from 'zod';
import { defineTool } from './tool';

/** Arithmetic in the sandbox (the calculator the composition root hands in) (mathjs, locked down, time- and memory-limited), never in this thread. */
export const calculateTool = defineTool({
  name: 'calculate',
  description: 'Evaluate arithmetic exactly, e.g. "15 * 25", "sqrt(2)", "5 km to miles". Use it instead of doing sums yourself.',
  input: z.object({ expression: z.string().describe('the expression, in mathjs syntax') }),
  effect: 'read',
  async run({ expression }, ctx) {
    const outcome = await ctx.services.calculator().calculate(expression, ctx.signal);
    return 'result' in outcome ? { ok: true, value: { result: outcome.result } } : { ok: false, ...outcome };
  },
});
