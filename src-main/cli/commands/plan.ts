// `tidy plan`: time-block tasks into free time by hand — the plan printed, asked about on a terminal,
// applied with --yes; one request in the action log (`tidy undo --run u…` takes every block back).
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { localZone } from '../../core/calendar/zones';
import { DomainError } from '../../core/fail';
import { readSettings } from '../../core/settings';
import { applyPlan, planLines, planRange, proposePlan } from '../../core/plan/plan';
import { CliFailure, printable, usage, type Cli } from '../context';
import { shownDates } from '../readable';

interface PlanOptions {
  filter?: string;
  replan?: string;
  yes?: boolean;
  json?: boolean;
}

function confirm(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      resolve(/^y(es)?$/i.test(answer.trim()));
    });
  });
}

export function registerPlanCommand(program: Command, cli: Cli): void {
  program
    .command('plan')
    .description('time-block tasks into free working time: prints the plan, asks, then adds the blocks to your calendar (one undoable request)')
    .argument('[range]', 'today (default), tomorrow, week, or FROM..TO (dates or ISO times)')
    .option('--filter <query>', 'the tasks to plan, by the filter language (default: those due or with a deadline by the end of the range)')
    .option('--replan <plan>', 'move the unpinned blocks still to come of this plan (its id, as printed when it was applied)')
    .option('--yes', 'apply without asking')
    .option('--json', 'print the plan as JSON {from, to, blocks, unplaced, summary} (and, with --yes, what was applied)')
    .action(async (range: string | undefined, o: PlanOptions) => {
      const db = cli.db();
      const zone = localZone();
      const now = Date.now();
      let fromMs: number;
      let toMs: number;
      try {
        ({ fromMs, toMs } = planRange(range, now, zone));
      } catch (e) {
        if (e instanceof DomainError) throw usage(e.error, e.hint);
        throw e;
      }
      const plan = proposePlan(db, { ...(o.filter ? { filter: o.filter } : {}), fromMs, toMs, now, zone, settings: readSettings(db), ...(o.replan ? { replan: o.replan } : {}) });
      const fresh = plan.blocks.some((b) => !b.event_id);
      if (!o.json) for (const line of planLines(plan, zone)) cli.out(printable(shownDates(line, new Date(now))));
      let apply = o.yes === true && fresh;
      if (!o.yes && !o.json && fresh) {
        if (process.stdin.isTTY !== true) {
          process.stderr.write('tidy: not applied: there is no terminal to ask (use --yes to apply)\n');
          return;
        }
        apply = await confirm('Apply this plan? [y/N] ');
        if (!apply) {
          cli.out('Not applied.');
          return;
        }
      }
      let applied: unknown = null;
      if (apply) {
        const ctx = cli.request();
        const blocks = plan.blocks.map((b) => ({ task_id: b.task_id, start: b.start, end: b.end, ...(b.pinned ? { pinned: true } : {}), ...(b.event_id ? { event_id: b.event_id } : {}) }));
        const r = applyPlan(db, ctx, { blocks, ...(o.replan ? { plan: o.replan } : {}) }, zone, now);
        if (!r.ok) throw new CliFailure(r.error, r.hint);
        applied = r.value;
        if (!o.json) cli.out(`Planned: ${r.value.created} new, ${r.value.moved} moved, ${r.value.cancelled} dropped (plan ${r.value.plan}) — undo: tidy undo --run ${ctx.requestId}`);
      }
      if (o.json) cli.json(applied ? { ...plan, applied } : plan);
    });
}
