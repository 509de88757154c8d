import type { Command } from 'commander';
import {
  addListItem,
  addTask,
  archiveList,
  archiveListItem,
  archiveProject,
  archiveTask,
  checkListItem,
  completeTask,
  createProject,
  editListItem,
  listItems,
  listLists,
  listProjectsWithCounts,
  listTasks,
  makeList,
  moveTask,
  renameList,
  renameProject,
  reopenTask,
  unarchiveList,
  unarchiveProject,
  updateTask,
} from '../../core';
import type { Task } from '../../../src-shared/domain';
import { change, must, usage, type Cli } from '../context';

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

  const project = program.command('project').description('create, rename, archive projects');
  project
    .command('add')
    .argument('<name...>')
    .description('create a project')
    .action((name: string[]) => change(cli, (db, ctx) => createProject(db, ctx, { name: text(name) })));
  project
    .command('rename')
    .argument('<project>', 'id or name')
    .argument('<name...>', 'the new name')
    .description('rename a project')
    .action((ref: string, name: string[]) => change(cli, (db, ctx) => renameProject(db, ctx, { project: ref, name: text(name) })));
  project
    .command('archive')
    .argument('<project>', 'id or name')
    .description('archive a project that has no open tasks')
    .action((ref: string) => change(cli, (db, ctx) => archiveProject(db, ctx, { project: ref })));
  project
    .command('unarchive')
    .argument('<project>', 'id or name')
    .description('bring an archived project back')
    .action((ref: string) => change(cli, (db, ctx) => unarchiveProject(db, ctx, { project: ref })));

  program
    .command('move')
    .argument('<task>', 'task id')
    .argument('<project...>', 'project id or name')
    .description('move a task to a project')
    .action((task: string, ref: string[]) => change(cli, (db, ctx) => moveTask(db, ctx, { task, project: text(ref) })));
  program
    .command('done')
    .argument('<task>', 'task id')
    .description('complete a task')
    .action((task: string) => change(cli, (db, ctx) => completeTask(db, ctx, { task })));
  program
    .command('reopen')
    .argument('<task>', 'task id')
    .description('reopen a completed or archived task')
    .action((task: string) => change(cli, (db, ctx) => reopenTask(db, ctx, { task })));
  program
    .command('archive')
    .argument('<task>', 'task id')
    .description('archive a task')
    .action((task: string) => change(cli, (db, ctx) => archiveTask(db, ctx, { task })));
  program
    .command('edit')
    .argument('<task>', 'task id')
    .option('--content <text>', 'new text')
    .option('--priority <n>', '1 (normal) to 4 (urgent)')
    .option('--due <date>', 'YYYY-MM-DD, or "" to clear')
    .description('change a task')
    .action((task: string, o: { content?: string; priority?: string; due?: string }) => {
      if (o.content === undefined && o.priority === undefined && o.due === undefined)
        throw usage('nothing to change', 'give --content, --priority or --due');
      change(cli, (db, ctx) => updateTask(db, ctx, { task, content: o.content, priority: o.priority, due: o.due }));
    });

  const list = program.command('list').description('make lists and keep their items');
  list
    .command('add')
    .argument('<name...>')
    .description('make a list')
    .action((name: string[]) => change(cli, (db, ctx) => makeList(db, ctx, { name: text(name) })));
  list
    .command('rename')
    .argument('<list>', 'id or name')
    .argument('<name...>')
    .description('rename a list')
    .action((ref: string, name: string[]) => change(cli, (db, ctx) => renameList(db, ctx, { list: ref, name: text(name) })));
  list
    .command('archive')
    .argument('<list>', 'id or name')
    .description('archive a list')
    .action((ref: string) => change(cli, (db, ctx) => archiveList(db, ctx, { list: ref })));
  list
    .command('unarchive')
    .argument('<list>', 'id or name')
    .description('bring an archived list back')
    .action((ref: string) => change(cli, (db, ctx) => unarchiveList(db, ctx, { list: ref })));
  list
    .command('item')
    .argument('<list>', 'id or name')
    .argument('<text...>')
    .description('add an item to a list')
    .action((ref: string, words: string[]) => change(cli, (db, ctx) => addListItem(db, ctx, { list: ref, text: text(words) })));
  list
    .command('edit')
    .argument('<list>', 'id or name')
    .argument('<item>', 'item id')
    .argument('<text...>')
    .description("change an item's text")
    .action((ref: string, item: string, words: string[]) =>
      change(cli, (db, ctx) => editListItem(db, ctx, { list: ref, item, text: text(words) })),
    );
  list
    .command('check')
    .argument('<list>', 'id or name')
    .argument('<item>', 'item id')
    .option('--uncheck', 'uncheck instead')
    .description('check (or uncheck) an item')
    .action((ref: string, item: string, o: { uncheck?: boolean }) =>
      change(cli, (db, ctx) => checkListItem(db, ctx, { list: ref, item, checked: !o.uncheck })),
    );
  list
    .command('archive-item')
    .argument('<list>', 'id or name')
    .argument('<item>', 'item id')
    .description('archive an item (undo brings it back)')
    .action((ref: string, item: string) => change(cli, (db, ctx) => archiveListItem(db, ctx, { list: ref, item })));
}
