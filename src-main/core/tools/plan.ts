/**
 * Planning (issue 31): `plan_tasks` places tasks into free time and asks first. The approval card is the
 * plan (the renderer proposes it through `plans.propose` with the same arguments); the user may drop,
 * pin or move blocks, and the card sends them back as `blocks`, which the tool then applies exactly.
 * The model sees only {task_ids?, filter?, from, to}.
 */
import { z } from 'zod';
import { PlanArgs, PlanToolArgs, type ShownPlan } from '../../../src-shared/plan';
import { localZone } from '../calendar/zones';
import { applyPlan, planLines, planQuery, proposePlan } from '../plan/plan';
import { readSettings } from '../settings';
import type { Db } from '../store/db';
import { defineTool, type ToolContext } from './tool';
import { attempt } from '../fail';

const { $schema: _drop, ...PUBLIC_PARAMETERS } = z.toJSONSchema(PlanArgs) as Record<string, unknown>;

function propose(db: Db, args: PlanToolArgs, ctx: Pick<ToolContext, 'services'>): ShownPlan {
  return proposePlan(db, planQuery(args, { now: ctx.services.now().getTime(), zone: localZone(), settings: readSettings(db) }));
}

export const PLAN_TOOLS = [
  defineTool({
    name: 'plan_tasks',
    approvalForm: 'plan',
    description: 'Time-block tasks (by ids, a filter, or those due by `to`) into free working time in [from, to); the user approves the plan.',
    input: PlanToolArgs,
    parameters: PUBLIC_PARAMETERS,
    effect: 'write',
    approval: 'ask',
    changesExisting: () => 0,
    confirm: (args, ctx) => {
      if (args.blocks) return `Plan ${args.blocks.length} block${args.blocks.length === 1 ? '' : 's'} as edited on the card?`;
      const zone = localZone();
      return ['Plan these blocks?', ...planLines(propose(ctx.db, args, ctx), zone)].join('\n');
    },
    run: (args, ctx) => {
        const zone = localZone();
        const now = ctx.services.now().getTime();
        const proposed = attempt(() => (args.blocks ? null : propose(ctx.db, args, ctx)));
        if (!proposed.ok) return proposed;
        const shown = proposed.value;
        const blocks = args.blocks ?? shown!.blocks.map((b) => ({ task_id: b.task_id, start: b.start, end: b.end, ...(b.pinned ? { pinned: true } : {}), ...(b.event_id ? { event_id: b.event_id } : {}) }));
        const r = applyPlan(ctx.db, ctx.action, { blocks, ...(args.plan ? { plan: args.plan } : {}) }, zone, now);
        if (!r.ok) return r;
        return {
          ok: true as const,
          actionId: r.actionId,
          value: {
            plan: r.value.plan,
            blocks: shown ? shown.blocks.map((b) => ({ task_id: b.task_id, start: b.start, end: b.end, reason: b.reason })) : blocks.map((b) => ({ task_id: b.task_id, start: b.start, end: b.end, reason: 'as the user set it' })),
            unplaced: shown ? shown.unplaced.map((u) => ({ task_id: u.task_id, reason: u.reason })) : [],
            ...(shown ? { summary: shown.summary.text } : {}),
            created: r.value.created,
            moved: r.value.moved,
            cancelled: r.value.cancelled,
          },
        };
    },
  }),
];
