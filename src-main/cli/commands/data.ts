import type { Command } from 'commander';
import { addTask, listItems, listLists, listProjectsWithCounts, listTasks } from '../../core';
import type { Task } from '../../../src-shared/domain';
import { must, usage, type Cli } from '../context';
import { registerOperationCommands } from './operations';

const text = (words: string[]): string => words.join(' ');

function taskLine(t: Task): string {
  const extras = [t.priority > 1 ? `p${t.priority}` : '', t.due ? `due ${t.due}` : '', t.status !== 'open' ? t.status : '']
    .filter(Boolean)
    .join(', ');
  return `${t.id.padEnd(6)} ${t.content}  [${t.project}]${extras ? `  (${extras})` : ''}`;
}

/** Commands that read and change tasks, projects and lists by hand. Every change is logged and undoable. */
export function registerDataCommands(program: Command, cli: Cli): void {
  program
    .command('add')
    .description('quick capture to the inbox (or a project); prints the new task id')
    .argument('<text...>', 'what the task says')
    .option('--project <name>', 'a project id or name instead of the inbox')
    .option('--priority <n>', '1 (normal) to 4 (urgent)')
    .option('--due <date>', 'due date, YYYY-MM-DD')
    .option('--json', 'print the new task as JSON')
    .action((words: string[], o: { project?: string; priority?: string; due?: string; json?: boolean }) => {
      const r = addTask(cli.db(), cli.request(), { content: text(words), project: o.project, priority: o.priority, due: o.due });
      const task = must(r);
      if (o.json) cli.json(task);
      else cli.out(task.id);
    });

  program
    .command('tasks')
    .description('open tasks, oldest first')
    .option('--inbox', 'only the inbox')
    .option('--project <name>', 'only this project (id or name)')
    .option('--done', 'completed tasks instead of open ones')
    .option('--all', 'open, completed and archived tasks')
    .option('--json', 'print [{id, content, projectId, project, status}]')
    .action((o: { inbox?: boolean; project?: string; done?: boolean; all?: boolean; json?: boolean }) => {
      if (o.inbox && o.project) throw usage('--inbox and --project cannot be used together', 'pick one');
      const { tasks } = listTasks(cli.db(), {
        project: o.inbox ? 'inbox' : o.project,
        status: o.all ? 'all' : o.done ? 'done' : 'open',
      });
      if (o.json) cli.json(tasks.map(({ id, content, projectId, project, status }) => ({ id, content, projectId, project, status })));
      else if (tasks.length === 0) cli.out('No tasks.');
      else for (const t of tasks) cli.out(taskLine(t));
    });

  program
    .command('projects')
    .description('projects with their number of open tasks')
    .option('--all', 'include archived projects')
    .option('--json', 'print [{id, name, openTasks, archived}]')
    .action((o: { all?: boolean; json?: boolean }) => {
      const rows = listProjectsWithCounts(cli.db(), { includeArchived: o.all }).map((p) => ({
        id: p.id,
        name: p.name,
        openTasks: p.openTasks,
        archived: p.archivedAt !== null,
      }));
      if (o.json) cli.json(rows);
      else for (const p of rows) cli.out(`${p.id.padEnd(6)} ${p.name}  (${p.openTasks} open)${p.archived ? '  [archived]' : ''}`);
    });

  program
    .command('lists')
    .description('lists with their items')
    .option('--all', 'include archived lists and items')
    .option('--json', 'print [{id, name, items: [{id, text, checked}]}]')
    .action((o: { all?: boolean; json?: boolean }) => {
      const db = cli.db();
      const lists = listLists(db, { includeArchived: o.all }).map((l) => ({
        id: l.id,
        name: l.name,
        archived: l.archivedAt !== null,
        items: listItems(db, l.id, { includeArchived: o.all }).items.map((i) => ({ id: i.id, text: i.text, checked: i.checked })),
      }));
      if (o.json) return cli.json(lists);
      if (lists.length === 0) return cli.out('No lists.');
      for (const l of lists) {
        cli.out(`${l.id.padEnd(6)} ${l.name}${l.archived ? '  [archived]' : ''}`);
        for (const i of l.items) cli.out(`  ${i.id.padEnd(6)} [${i.checked ? 'x' : ' '}] ${i.text}`);
      }
    });

  registerOperationCommands(program, cli);
}
