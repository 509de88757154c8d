import type { Db } from '../store/db';
import { cached } from '../store/statements';
import { fail } from './fail';
import { nameKey, quote } from './text';

/** Projects and lists share one naming rule: unique among live ones, case-insensitively; found by id or name. */
export type NamedTable = 'projects' | 'lists';

const WORD: Record<NamedTable, string> = { projects: 'project', lists: 'list' };
const HINT: Record<NamedTable, string> = {
  projects: 'list the projects to see their ids and names, or create the project first',
  lists: 'see the list names for the lists that exist, or make the list first',
};

export interface NamedRow {
  id: string;
  name: string;
  archived_at: string | null;
}

/** By id, else by name (case-insensitive; a live one before an archived one). Fails with a hint. */
export function resolveNamed<R extends NamedRow>(db: Db, table: NamedTable, ref: string): R {
  const key = String(ref ?? '').trim();
  if (!key) fail(`no ${WORD[table]} given`, `name a ${WORD[table]} by its id or name`);
  const byId = cached(db, `SELECT * FROM ${table} WHERE id = ?`).get(key.toLowerCase()) as R | undefined;
  if (byId) return byId;
  const byName = cached(db, `SELECT * FROM ${table} WHERE name_key = ? ORDER BY archived_at IS NOT NULL, created_at DESC LIMIT 1`).get(
    nameKey(key.replace(/\s+/g, ' ')),
  ) as R | undefined;
  if (byName) return byName;
  fail(`no ${WORD[table]} with id or name ${quote(key)}`, HINT[table]);
}

/** Fails unless the row is live (not archived). */
export function assertLive(table: NamedTable, row: NamedRow): void {
  if (row.archived_at) fail(`${WORD[table]} ${quote(row.name)} is archived`, `unarchive it first, or pick another ${WORD[table]}`);
}

/** Fails if a live row other than `exceptId` has this name. */
export function assertNameFree(db: Db, table: NamedTable, name: string, exceptId?: string): void {
  const clash = cached(db, `SELECT id, name FROM ${table} WHERE name_key = ? AND archived_at IS NULL`).get(nameKey(name)) as
    | { id: string; name: string }
    | undefined;
  if (clash && clash.id !== exceptId)
    fail(`a ${WORD[table]} named ${quote(clash.name)} already exists (${clash.id})`, `use ${WORD[table]} ${clash.id}, or pick another name`);
}
