/** Sections inside a project (Todoist sections, Things headings): create, rename, reorder, archive. */
import type { Section } from '../../../src-shared/domain';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { implement } from './operation';
import { resolveLiveProject } from './projects';
import { cleanName, nameKey, now, quote } from './text';

interface SectionRow {
  id: string;
  project_id: string;
  name: string;
  name_key: string;
  position: number;
  archived_at: string | null;
}

const toSection = (r: SectionRow): Section => ({ id: r.id, projectId: r.project_id, name: r.name, position: r.position, archivedAt: r.archived_at });

/** A project's live sections in their order (archived ones too when asked). */
export function listSections(db: Db, project: string, opts: { includeArchived?: boolean } = {}): Section[] {
  const p = resolveLiveProject(db, project);
  return (cached(db, `SELECT * FROM sections WHERE project_id = ? AND (? OR archived_at IS NULL) ORDER BY position, rowid`).all(p.id, opts.includeArchived ? 1 : 0) as SectionRow[]).map(
    toSection,
  );
}

function getSection(db: Db, ref: string): Section {
  const row = cached(db, `SELECT * FROM sections WHERE id = ?`).get(String(ref ?? '').trim().toLowerCase()) as SectionRow | undefined;
  if (!row) fail(`no section with id ${quote(String(ref ?? ''))}`, 'list the project\'s sections to see their ids');
  return toSection(row);
}

/** A live section of the project, by id or by name (case-insensitive). */
export function resolveSection(db: Db, projectId: string, ref: string): Section {
  const key = String(ref ?? '').trim();
  const row = (cached(db, `SELECT * FROM sections WHERE id = ? AND project_id = ?`).get(key.toLowerCase(), projectId) ??
    cached(db, `SELECT * FROM sections WHERE name_key = ? AND project_id = ? AND archived_at IS NULL`).get(nameKey(cleanName(key, 'section')), projectId)) as
    | SectionRow
    | undefined;
  if (!row) fail(`no section ${quote(key)} in this project`, 'create it first (tidy section add PROJECT NAME), or pick one of the project\'s sections');
  if (row.archived_at) fail(`section ${quote(row.name)} is archived`, 'pick a live section');
  return toSection(row);
}

function assertFree(db: Db, projectId: string, name: string, exceptId?: string): void {
  const other = cached(db, `SELECT id FROM sections WHERE project_id = ? AND name_key = ? AND archived_at IS NULL AND id != ?`).get(projectId, nameKey(name), exceptId ?? '') as
    | { id: string }
    | undefined;
  if (other) fail(`this project already has a section ${quote(name)} (${other.id})`, 'use that section, or pick another name');
}

export const createSection = implement('sections.create', (cs, input, db) => {
  const project = resolveLiveProject(db, input.project);
  const name = cleanName(input.name, 'section');
  assertFree(db, project.id, name);
  const last = (cached(db, `SELECT max(position) AS p FROM sections WHERE project_id = ?`).get(project.id) as { p: number | null }).p ?? 0;
  const t = now();
  const row = cs.insert('sections', { id: nextId(db, 's'), project_id: project.id, name, name_key: nameKey(name), position: last + 1, archived_at: null, created_at: t, updated_at: t });
  return { value: getSection(db, String(row['id'])), summary: `Created section ${quote(name)} in ${project.name}` };
});

export const renameSection = implement('sections.rename', (cs, input, db) => {
  const section = getSection(db, input.section);
  const name = cleanName(input.name, 'section');
  if (name === section.name) fail(`section ${section.id} is already called ${quote(name)}`, 'nothing to change');
  if (!section.archivedAt) assertFree(db, section.projectId, name, section.id);
  cs.update('sections', section.id, { name, name_key: nameKey(name), updated_at: now() });
  return { value: getSection(db, section.id), summary: `Renamed section ${quote(section.name)} to ${quote(name)}` };
});

export const reorderSection = implement('sections.reorder', (cs, input, db) => {
  const section = getSection(db, input.section);
  const siblings = (cached(db, `SELECT * FROM sections WHERE project_id = ? AND archived_at IS NULL ORDER BY position, rowid`).all(section.projectId) as SectionRow[]).filter(
    (s) => s.id !== section.id,
  );
  let at: number;
  if (input.before === null) at = (siblings.at(-1)?.position ?? 0) + 1;
  else {
    const i = siblings.findIndex((s) => s.id === String(input.before).trim().toLowerCase());
    if (i < 0) fail(`no live section ${quote(String(input.before))} beside ${section.id}`, 'give a section of the same project, or null for the end');
    const next = siblings[i]!.position;
    const prev = i > 0 ? siblings[i - 1]!.position : next - 2;
    at = (prev + next) / 2;
  }
  // Renumbered when the gap is too small to halve again.
  if (siblings.some((s) => s.position === at)) {
    siblings.forEach((s, i) => cs.update('sections', s.id, { position: (i + 1) * 2 }));
    return reorderSectionBody();
  }
  cs.update('sections', section.id, { position: at, updated_at: now() });
  return { value: getSection(db, section.id), summary: `Moved section ${quote(section.name)}` };

  function reorderSectionBody(): { value: Section; summary: string } {
    const fresh = (cached(db, `SELECT * FROM sections WHERE project_id = ? AND archived_at IS NULL AND id != ? ORDER BY position, rowid`).all(section.projectId, section.id) as SectionRow[]);
    const i = input.before === null ? fresh.length : fresh.findIndex((s) => s.id === String(input.before).trim().toLowerCase());
    const pos = i >= fresh.length ? (fresh.at(-1)?.position ?? 0) + 1 : (fresh[i]!.position + (i > 0 ? fresh[i - 1]!.position : fresh[i]!.position - 2)) / 2;
    cs.update('sections', section.id, { position: pos, updated_at: now() });
    return { value: getSection(db, section.id), summary: `Moved section ${quote(section.name)}` };
  }
});

export const archiveSection = implement('sections.archive', (cs, input, db) => {
  const section = getSection(db, input.section);
  if (section.archivedAt) fail(`section ${section.id} is already archived`, 'nothing to change');
  const open = (cached(db, `SELECT count(*) AS n FROM tasks WHERE section_id = ? AND status = 'open'`).get(section.id) as { n: number }).n;
  if (open > 0) fail(`section ${quote(section.name)} still has ${open} open task(s)`, 'complete them or move them out of the section first');
  cs.update('sections', section.id, { archived_at: now(), updated_at: now() });
  return { value: getSection(db, section.id), summary: `Archived section ${quote(section.name)}` };
});

export const SECTION_OPERATIONS = [createSection, renameSection, reorderSection, archiveSection];
