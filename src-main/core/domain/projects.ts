import { INBOX_ID, type Project } from '../../../src-shared/domain';
import type { ActionContext } from '../actions/log';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from './fail';
import { mutate, type Mutated } from './mutation';
import { assertLive, assertNameFree as assertNamed, resolveNamed } from './named';
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

export function createProject(db: Db, ctx: ActionContext, input: { name: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'create_project', input, (cs) => {
    const name = cleanName(input.name, 'project');
    assertNameFree(db, name);
    const t = now();
    const row = cs.insert('projects', { id: nextId(db, 'p'), name, name_key: nameKey(name), builtin: 0, archived_at: null, created_at: t, updated_at: t });
    return { value: { id: String(row['id']), name }, summary: `Created project ${quote(name)}` };
  });
}

export function renameProject(db: Db, ctx: ActionContext, input: { project: string; name: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'rename_project', input, (cs) => {
    const p = resolveProject(db, input.project);
    if (p.id === INBOX_ID) fail('the Inbox cannot be renamed', 'create a project with the name you want instead');
    const name = cleanName(input.name, 'project');
    if (name === p.name) fail(`project ${p.id} is already called ${quote(name)}`, 'nothing to change');
    if (!p.archivedAt) assertNameFree(db, name, p.id);
    cs.update('projects', p.id, { name, name_key: nameKey(name), updated_at: now() });
    return { value: { id: p.id, name }, summary: `Renamed project ${quote(p.name)} to ${quote(name)}` };
  });
}

export function archiveProject(db: Db, ctx: ActionContext, input: { project: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'archive_project', input, (cs) => {
    const p = resolveProject(db, input.project);
    if (p.id === INBOX_ID) fail('the Inbox cannot be archived', 'move or complete its tasks instead');
    if (p.archivedAt) fail(`project ${quote(p.name)} is already archived`, 'nothing to change');
    const open = cached(db, `SELECT count(*) AS n FROM tasks WHERE project_id = ? AND status = 'open'`).get(p.id) as { n: number };
    if (open.n > 0) fail(`project ${quote(p.name)} still has ${open.n} open task(s)`, 'complete them or move them to another project first');
    cs.update('projects', p.id, { archived_at: now(), updated_at: now() });
    return { value: { id: p.id, name: p.name }, summary: `Archived project ${quote(p.name)}` };
  });
}

export function unarchiveProject(db: Db, ctx: ActionContext, input: { project: string }): Mutated<{ id: string; name: string }> {
  return mutate(db, ctx, 'unarchive_project', input, (cs) => {
    const p = resolveProject(db, input.project);
    if (!p.archivedAt) fail(`project ${quote(p.name)} is not archived`, 'nothing to change');
    assertNameFree(db, p.name, p.id);
    cs.update('projects', p.id, { archived_at: null, updated_at: now() });
    return { value: { id: p.id, name: p.name }, summary: `Unarchived project ${quote(p.name)}` };
  });
}
