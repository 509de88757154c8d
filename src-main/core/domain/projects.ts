import { INBOX_ID, type Project } from '../../../src-shared/domain';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { implement } from './operation';
import { assertLive, assertNameFree as assertNamed, named, resolveNamed, type NamedGuards } from './named';
import { cleanName, nameKey, now, quote } from './text';

interface ProjectRow {
  id: string;
  name: string;
  name_key: string;
  builtin: number;
  archived_at: string | null;
  created_at: string;
  updated_at: string;
}

const toProject = (r: ProjectRow): Project => ({
  id: r.id,
  name: r.name,
  builtin: r.builtin === 1,
  archivedAt: r.archived_at,
  createdAt: r.created_at,
});

/** Live projects (Inbox first, then by name); archived ones too when asked. */
export function listProjects(db: Db, opts: { includeArchived?: boolean } = {}): Project[] {
  const rows = cached(
    db,
    `SELECT * FROM projects WHERE ? OR archived_at IS NULL ORDER BY builtin DESC, archived_at IS NOT NULL, name_key`,
  ).all(opts.includeArchived ? 1 : 0) as ProjectRow[];
  return rows.map(toProject);
}

/** Projects as listProjects gives them, each with its number of open tasks (one query for all). */
export function listProjectsWithCounts(db: Db, opts: { includeArchived?: boolean } = {}): (Project & { openTasks: number })[] {
  const counts = new Map(
    (cached(db, `SELECT project_id AS id, count(*) AS n FROM tasks WHERE status = 'open' GROUP BY project_id`).all() as { id: string; n: number }[]).map(
      (r) => [r.id, r.n],
    ),
  );
  return listProjects(db, opts).map((p) => ({ ...p, openTasks: counts.get(p.id) ?? 0 }));
}

/** Finds a project by id, else by name (case-insensitive; a live one before an archived one). Fails with a hint. */
export function resolveProject(db: Db, ref: string): Project {
  return toProject(resolveNamed<ProjectRow>(db, 'projects', ref));
}

/** A project that can receive tasks. */
export function resolveLiveProject(db: Db, ref: string): Project {
  const row = resolveNamed<ProjectRow>(db, 'projects', ref);
  assertLive('projects', row);
  return toProject(row);
}

const assertNameFree = (db: Db, name: string, exceptId?: string): void => assertNamed(db, 'projects', name, exceptId);

const guards = (db: Db): NamedGuards => ({
  rename: (p) => {
    if (p.id === INBOX_ID) fail('the Inbox cannot be renamed', 'create a project with the name you want instead');
  },
  archive: (p) => {
    if (p.id === INBOX_ID) fail('the Inbox cannot be archived', 'move or complete its tasks instead');
    if (p.archived_at) return;
    const open = cached(db, `SELECT count(*) AS n FROM tasks WHERE project_id = ? AND status = 'open'`).get(p.id) as { n: number };
    if (open.n > 0) fail(`project ${quote(p.name)} still has ${open.n} open task(s)`, 'complete them or move them to another project first');
  },
});

export const createProject = implement('projects.create', (cs, input, db) => {
  const name = cleanName(input.name, 'project');
  assertNameFree(db, name);
  const t = now();
  const row = cs.insert('projects', { id: nextId(db, 'p'), name, name_key: nameKey(name), builtin: 0, archived_at: null, created_at: t, updated_at: t });
  return { value: { id: String(row['id']), name }, summary: `Created project ${quote(name)}` };
});

export const renameProject = implement('projects.rename', (cs, input, db) =>
  named.rename(cs, db, 'projects', input.project, input.name, guards(db)),
);
export const archiveProject = implement('projects.archive', (cs, input, db) => named.archive(cs, db, 'projects', input.project, guards(db)));
export const unarchiveProject = implement('projects.unarchive', (cs, input, db) => named.unarchive(cs, db, 'projects', input.project));

/** The project operations, in the order the CLI's help lists them. */
export const PROJECT_OPERATIONS = [createProject, renameProject, archiveProject, unarchiveProject];
