import type { Command } from 'commander';
import { listItems, listLists } from '../../core/domain/lists';
import { listProjectsWithCounts } from '../../core/domain/projects';
import { listTasks, type TaskView } from '../../core/domain/tasks';
import type { Task } from '../../../src-shared/domain';
import type { SearchKind } from '../../../src-shared/ipc';
import { recurrenceWords } from '../../../src-shared/repeat-rules';
import { addFromText, describeDue } from '../../core/domain/quickadd';
import { searchAll } from '../../core/domain/search';
import { attempt as attemptFind } from '../../core/fail';
import { compileFilter, deleteFilter, findTasks, listFilters, resolveFilter, saveFilter } from '../../core/domain/filter';
import { change, must, usage, type Cli } from '../context';
import { registerOperationCommands } from './operations';

const text = (words: string[]): string => words.join(' ');

function taskLine(t: Task): string {
  const extras = [
    t.priority < 4 ? `p${t.priority}` : '',
    t.due ? `due ${t.due}` : '',
    t.deadline ? `deadline ${t.deadline}` : '',
    t.durationMin ? `${t.durationMin} min` : '',
    t.recurrence ? `repeats ${recurrenceWords(t.recurrence)}` : '',
    ...(t.labels ?? []).map((l) => `@${l}`),
    t.section ? `/${t.section}` : '',
    t.parentId ? `under ${t.parentId}` : '',
    t.status !== 'open' ? t.status : '',
  ]
    .filter(Boolean)
    .join(', ');
  return `${t.id.padEnd(6)} ${t.content}  [${t.project}]${extras ? `  (${extras})` : ''}`;
}

/** "Added t12 "Buy milk" to Birthday, due tomorrow (2026-11-24), p1, repeats … — undo: tidy undo a34" */
function addedSentence(t: Task, actionId: string, rule: string | null): string {
  const extras = [t.due ? `due ${describeDue(t.due)}` : '', t.priority < 4 ? `p${t.priority}` : '', rule ? `repeats ${rule}` : ''].filter(Boolean);
  return `Added ${t.id} ${JSON.stringify(t.content)} to ${t.project}${extras.length ? `, ${extras.join(', ')}` : ''} — undo: tidy undo ${actionId}`;
}

const GROUP_TITLES: Record<SearchKind, string> = { task: 'Tasks', project: 'Projects', list: 'Lists', item: 'List items', event: 'Events', memory: 'Memories', conversation: 'Conversations' };

const VIEWS: readonly TaskView[] = ['today', 'upcoming', 'completed'];

/** Commands that read and change tasks, projects and lists by hand. Every change is logged and undoable. */
export function registerDataCommands(program: Command, cli: Cli): void {
  program
    .command('add')
    .description('quick capture: "Buy milk tomorrow 9am #Project p1 every week @errands {friday} for 45m" — a date, #project, p1 (most urgent) to p4, every …, @labels, {deadline}, for DURATION')
    .argument('<text...>', 'what the task says, with the quick-add grammar')
    .option('--project <name>', 'a project id or name instead of the inbox (a #Project in the text wins)')
    .option('--priority <n>', '1 (p1, most urgent) to 4 (p4, normal, the default)')
    .option('--due <date>', 'a due date as in the text: "next friday 3pm", "dec 24", 2026-12-24')
    .option('--description <text>', 'notes (Markdown)')
    .option('--deadline <date>', 'the date it must be done by (as in the text: {friday})')
    .option('--duration <time>', 'how long it takes: 45m, 2h, 1h30m (as in the text: for 45m)')
    .option('--label <names...>', 'labels, besides the @labels of the text (created on first use)')
    .option('--parent <task>', 'the task it is a subtask of')
    .option('--section <name>', 'a section of its project (id or name)')
    .option('--create-project', 'a #Project that does not exist yet is created (undone with the task)')
    .option('--json', 'print the new task as JSON')
    .action((words: string[], o: AddFlags) => {
      const request = cli.request();
      const r = addFromText(cli.db(), request, text(words), {
        project: o.project,
        priority: o.priority,
        due: o.due,
        description: o.description,
        deadline: o.deadline,
        durationMin: o.duration,
        labels: o.label,
        parent: o.parent,
        section: o.section,
        createProject: o.createProject === true,
      });
      const task = must(r);
      if (r.note) process.stderr.write(`note: ${r.note}\n`);
      if (o.json) cli.json(task);
      else if (r.ok) {
        const rule = r.parsed.parts.filter((p) => p.kind === 'recurrence').map((p) => p.text).join(' ') || null;
        // A project made for it is undone with it: the whole request.
        if (r.createdProject) cli.out(`Created project ${JSON.stringify(r.createdProject)}`);
        cli.out(addedSentence(task, r.createdProject ? `--run ${request.requestId}` : r.actionId, rule));
      }
    });

  program
    .command('tasks')
    .description('open tasks in their order (capture order unless reordered)')
    .option('--inbox', 'only the inbox')
    .option('--project <name>', 'only this project (id or name)')
    .option('--done', 'completed tasks instead of open ones')
    .option('--all', 'open, completed and archived tasks')
    .option('--view <view>', 'today (due today or overdue), upcoming (the next 7 days) or completed (newest first)')
    .option('--filter <query>', 'a filter: today, overdue, no date, p1…p4, #Project, @label, /Section, due before: DATE, search: TEXT, with & | ! ( )')
    .option('--saved <name>', 'a saved filter (tidy filter list)')
    .option('--label <name>', 'only tasks with this label')
    .option('--json', 'print [{id, content, projectId, project, status, priority, due, description, parentId, section, labels, deadline, durationMin}]')
    .action((o: TasksFlags) => {
      if (o.inbox && o.project) throw usage('--inbox and --project cannot be used together', 'pick one');
      if (o.view !== undefined && !VIEWS.includes(o.view as TaskView)) throw usage(`unknown view ${JSON.stringify(o.view)}`, `use ${VIEWS.join(', ')}`);
      if (o.view && (o.done || o.all)) throw usage('--view cannot be used with --done or --all', 'pick one');
      const filtered = o.filter !== undefined || o.saved !== undefined || o.label !== undefined;
      if (filtered && o.view) throw usage('--view cannot be used with --filter, --saved or --label', 'write the view as a filter: today | overdue');
      if (o.filter !== undefined && o.saved !== undefined) throw usage('--filter and --saved cannot be used together', 'pick one');
      const db = cli.db();
      const status = o.all ? 'all' : o.done ? 'done' : 'open';
      let tasks: Task[];
      if (filtered) {
        // The user's filter alone first, so a bad one is refused with positions in the text as typed.
        if (o.filter !== undefined) must(attemptFind(() => compileFilter(o.filter!)));
        // Every narrowing is one more term of one query: (filter) & @label & #project.
        const escape = (s: string) => s.replace(/[\\&|()!]/g, (c) => `\\${c}`);
        const terms = [
          o.filter !== undefined ? `(${o.filter})` : o.saved !== undefined ? `(${resolveSaved(o.saved)})` : '',
          o.label !== undefined ? `@${escape(o.label.trim().replace(/^@/, ''))}` : '',
          o.inbox ? '#Inbox' : o.project ? `#${escape(o.project)}` : '',
        ].filter(Boolean);
        tasks = must(attemptFind(() => findTasks(db, { filter: terms.join(' & '), status, limit: 10_000 }).tasks));
      } else {
        tasks = listTasks(db, { project: o.inbox ? 'inbox' : o.project, status, view: o.view as TaskView | undefined }).tasks;
      }
      if (o.json)
        cli.json(
          tasks.map(({ id, content, projectId, project, status, priority, due, description, parentId, section, labels, deadline, durationMin }) => ({
            id, content, projectId, project, status, priority, due, description, parentId, section, labels, deadline, durationMin,
          })),
        );
      else if (tasks.length === 0) cli.out('No tasks.');
      else for (const t of tasks) cli.out(taskLine(t));
    });

  program
    .command('search')
    .description('tasks, projects, lists, items and conversations that have these words')
    .argument('<query...>', 'words to look for')
    .option('--json', 'print {groups: [{kind, hits: [{kind, id, title, snippet, parentId, parent, done}]}], total}')
    .action((words: string[], o: { json?: boolean }) => {
      const results = searchAll(cli.db(), text(words));
      if (o.json) return cli.json(results);
      if (results.total === 0) return cli.out('Nothing found.');
      for (const g of results.groups) {
        cli.out(`${GROUP_TITLES[g.kind]}:`);
        for (const h of g.hits) cli.out(`  ${h.id.padEnd(6)} ${h.title}${h.parent ? `  [${h.parent}]` : ''}${h.done ? '  (done)' : ''}`);
      }
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

  const filter = program.command('filter').description('saved filters: save, list, delete');
  filter
    .command('save')
    .description('save a filter under a name (or change the query of a saved one)')
    .argument('<name>', 'its name')
    .argument('<query...>', 'the filter, e.g. "today | overdue & @errands"')
    .action((name: string, words: string[]) => change(cli, (db, ctx) => saveFilter(db, ctx, { name, query: text(words) })));
  filter
    .command('list')
    .description('the saved filters')
    .option('--json', 'print [{id, name, query}]')
    .action((o: { json?: boolean }) => {
      const rows = listFilters(cli.db());
      if (o.json) return cli.json(rows);
      if (rows.length === 0) return cli.out('No saved filters.');
      for (const f of rows) cli.out(`${f.id.padEnd(6)} ${f.name}: ${f.query}`);
    });
  filter
    .command('delete')
    .description('delete a saved filter')
    .argument('<filter>', 'its id or name')
    .action((ref: string) => change(cli, (db, ctx) => deleteFilter(db, ctx, { filter: ref })));

  /** The query of a saved filter, or a usage error in one line. */
  function resolveSaved(name: string): string {
    return must(attemptFind(() => resolveFilter(cli.db(), name).query));
  }

  registerOperationCommands(program, cli);
}

interface AddFlags {
  project?: string;
  createProject?: boolean;
  priority?: string;
  due?: string;
  description?: string;
  deadline?: string;
  duration?: string;
  label?: string[];
  parent?: string;
  section?: string;
  json?: boolean;
}

interface TasksFlags {
  inbox?: boolean;
  project?: string;
  done?: boolean;
  all?: boolean;
  view?: string;
  filter?: string;
  saved?: string;
  label?: string;
  json?: boolean;
}
