/**
 * create_routine: the agent can set up a routine ("remind me to plan every morning") only through an
 * approval the user sees, every time — the card shows the schedule in words and the next three runs.
 * Text the model read (a task, a tool result) can ask for a routine; it never gets one without the user.
 */
import { z } from 'zod';
import { addRoutine, nextRuns, parseSchedule, ROUTINE_LIMITS, runTimeWords } from '../domain/routines';
import { defineTool, mutation } from './tool';

const input = z.object({
  name: z.string().min(1).max(120).describe('a short name, e.g. "Plan my day"'),
  request: z.string().min(1).max(ROUTINE_LIMITS.requestChars).describe('what Tidy should do each time, as the user would ask it'),
  schedule: z.string().min(1).max(ROUTINE_LIMITS.scheduleChars).describe('repeat words, e.g. "every weekday at 8am" or "every friday 4pm"'),
});

const createRoutineTool = defineTool({
  name: 'create_routine',
  description: 'Create a routine: a request Tidy runs on a schedule in repeat words ("every weekday at 8am"). Always asks the user.',
  input,
  effect: 'write',
  changesExisting: () => 0,
  approval: 'ask',
  alwaysAsk: true,
  confirm: (a, ctx) => `Create the routine "${a.name}", ${parseSchedule(a.schedule, ctx.services.now()).words}: "${a.request.length > 200 ? `${a.request.slice(0, 197)}...` : a.request}"?`,
  card: (a, ctx) => {
    const s = parseSchedule(a.schedule, ctx.services.now());
    return { schedule: s.words, nextRuns: nextRuns(s, ctx.services.now().getTime(), 3).map((ms) => runTimeWords(ms, s.tz)) };
  },
  run: (a, ctx) =>
    mutation(addRoutine(ctx.db, ctx.action, a, ctx.services.now()), (r) => ({
      id: r.id,
      name: r.name,
      schedule: r.schedule,
      next_runs: nextRuns(r, ctx.services.now().getTime(), 3).map((ms) => runTimeWords(ms, r.tz)),
    })),
});

export const ROUTINE_TOOLS = [createRoutineTool];
