// `tidy memory list | add <TEXT> [--project NAME] | edit <ID> <TEXT> | forget <ID> [--json]`: memories by hand.
// Every change is logged (the user's own request) and undoable with `tidy undo`.
import type { Command } from 'commander';
import type { Memory } from '../../../src-shared/memory';
import { addMemory, forgetMemory, listMemories, updateMemory } from '../../core/domain/memory';
import type { Mutated } from '../../core/domain/mutation';
import { readSettings } from '../../core/settings';
import { memoryBudgetNow } from '../../core/agent/memory';
import { getActionRow } from '../../core/actions/log';
import { CliFailure, type Cli } from '../context';

const scopeWords = (m: Memory): string => (m.project ? `for ${m.project}` : 'everywhere');
const origin = (m: Memory): string => (m.conversationId ? `from conversation ${m.conversationId}${m.runId ? ` (run ${m.runId})` : ''}` : 'by you');

function changed(cli: Cli, json: boolean | undefined, run: (ctx: ReturnType<Cli['request']>) => Mutated<Memory>): void {
  const db = cli.db();
  const r = run(cli.request());
  if (!r.ok) throw new CliFailure(r.error, r.hint);
  if (json) return cli.json({ ...r.value, actionId: r.actionId });
  cli.out(`${getActionRow(db, r.actionId)?.summary ?? 'Done'} (${r.value.id}; undo with: tidy undo ${r.actionId})`);
}

export function registerMemoryCommands(program: Command, cli: Cli): void {
  const memory = program.command('memory').description('memories the agent keeps for you: list, add, edit, forget (each change undoable)');

  memory
    .command('list')
    .description('the memories, oldest first: id, where each applies, where it came from')
    .option('--all', 'forgotten ones too')
    .option('--search <words>', 'only those with these words')
    .option('--json', 'print [{id, text, projectId, project, conversationId, runId, createdAt, updatedAt, lastUsedAt, archivedAt}]')
    .action((o: { all?: boolean; search?: string; json?: boolean }) => {
      const db = cli.db();
      const memories = listMemories(db, { includeArchived: o.all === true, ...(o.search !== undefined ? { query: o.search } : {}) });
      if (o.json) return cli.json(memories);
      const settings = readSettings(db);
      if (!settings.memory) cli.out('Memory is off: the agent neither reads nor writes memories (tidy config set memory on).');
      if (memories.length === 0) return cli.out('No memories yet. Add one with: tidy memory add "groceries go to Errands"');
      for (const m of memories) cli.out(`${m.id.padEnd(6)} ${m.text}  [${scopeWords(m)}, ${origin(m)}]${m.archivedAt ? '  [forgotten]' : ''}`);
      const budget = memoryBudgetNow(db, settings);
      if (budget.left > 0)
        cli.out(`${budget.left} of ${budget.applied} memories that apply everywhere are left out of the prompt by the budget (memoryTokens ${settings.memoryTokens}).`);
    });

  memory
    .command('add')
    .description('remember a fact (at most 500 characters), everywhere or for one project')
    .argument('<text...>', 'the fact, e.g. groceries go to Errands')
    .option('--project <name>', 'it applies only to this project (id or name)')
    .option('--json', 'print the memory with the actionId')
    .action((words: string[], o: { project?: string; json?: boolean }) =>
      changed(cli, o.json, (ctx) => addMemory(cli.db(), ctx, { text: words.join(' '), project: o.project ?? null })),
    );

  memory
    .command('edit')
    .description("change a memory's text, or where it applies")
    .argument('<id>', 'the memory id, from tidy memory list')
    .argument('[text...]', 'the new text')
    .option('--project <name>', 'it applies only to this project; "everywhere" for every request')
    .option('--json', 'print the memory with the actionId')
    .action((id: string, words: string[], o: { project?: string; json?: boolean }) => {
      if (words.length === 0 && o.project === undefined) throw new CliFailure('nothing to change', 'give the new text, or --project', 2);
      changed(cli, o.json, (ctx) =>
        updateMemory(cli.db(), ctx, { memory: id, ...(words.length ? { text: words.join(' ') } : {}), ...(o.project !== undefined ? { project: o.project } : {}) }),
      );
    });

  memory
    .command('forget')
    .description('forget a memory (it is archived: tidy undo brings it back)')
    .argument('<id>', 'the memory id, from tidy memory list')
    .option('--json', 'print the memory with the actionId')
    .action((id: string, o: { json?: boolean }) => changed(cli, o.json, (ctx) => forgetMemory(cli.db(), ctx, { memory: id })));
}
