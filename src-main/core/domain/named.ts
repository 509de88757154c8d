import type { ChangeSet } from '../actions/changes';
import type { Db } from '../store/db';
import { entity, type NamedTable } from '../store/entities';
import { cached } from '../store/statements';
import { fail } from '../fail';
import type { MutationBody } from './mutation';
import { cleanName, nameKey, now, quote } from './text';

export type { NamedTable };

/** Named entities (projects, lists) share one naming rule: unique among live ones, case-insensitively; found by id or name. */
const word = (table: NamedTable): string => entity(table).word;
const hint = (table: NamedTable): string => entity(table).named!.hint;

interface NamedRow {
  id: string;
  name: string;
  archived_at: string | null;
}

/** By id, else by name (case-insensitive; a live one before an archived one). Fails with a hint. */
export function resolveNamed<R extends NamedRow>(db: Db, table: NamedTable, ref: string): R {
  const key = String(ref ?? '').trim();
  if (!key) fail(`no ${word(table)} given`, `name a ${word(table)} by its id or name`);
  const byId = cached(db, `SELECT * FROM ${table} WHERE id = ?`).get(key.toLowerCase()) as R | undefined;
  if (byId) return byId;
  const byName = cached(db, `SELECT * FROM ${table} WHERE name_key = ? ORDER BY archived_at IS NOT NULL, created_at DESC LIMIT 1`).get(
    nameKey(key.replace(/\s+/g, ' ')),
  ) as R | undefined;
  if (byName) return byName;
  fail(`no ${word(table)} with id or name ${quote(key)}`, hint(table));
}

/** Fails unless the row is live (not archived). */
export function assertLive(table: NamedTable, row: NamedRow): void {
  if (row.archived_at) fail(`${word(table)} ${quote(row.name)} is archived`, `unarchive it first, or pick another ${word(table)}`);
}

/** Fails if a live row other than `exceptId` has this name. */
export function assertNameFree(db: Db, table: NamedTable, name: string, exceptId?: string): void {
  const clash = cached(db, `SELECT id, name FROM ${table} WHERE name_key = ? AND archived_at IS NULL`).get(nameKey(name)) as
    | { id: string; name: string }
    | undefined;
  if (clash && clash.id !== exceptId)
    fail(`a ${word(table)} named ${quote(clash.name)} already exists (${clash.id})`, `use ${word(table)} ${clash.id}, or pick another name`);
}

/** Rules a named entity adds to renaming or archiving (the Inbox cannot be renamed, a project with open tasks not archived). */
export interface NamedGuards {
  rename?: (row: NamedRow) => void;
  archive?: (row: NamedRow) => void;
}

type Renamed = MutationBody<{ id: string; name: string }>;

/** Rename, archive and unarchive, the same for every named entity. */
export const named = {
  rename(cs: ChangeSet, db: Db, table: NamedTable, ref: string, raw: string, guards: NamedGuards = {}): Renamed {
    const row = resolveNamed(db, table, ref);
    guards.rename?.(row);
    const name = cleanName(raw, word(table));
    if (name === row.name) fail(`${word(table)} ${row.id} is already called ${quote(name)}`, 'nothing to change');
    if (!row.archived_at) assertNameFree(db, table, name, row.id);
    cs.update(table, row.id, { name, name_key: nameKey(name), updated_at: now() });
    return { value: { id: row.id, name }, summary: `Renamed ${word(table)} ${quote(row.name)} to ${quote(name)}` };
  },
  archive(cs: ChangeSet, db: Db, table: NamedTable, ref: string, guards: NamedGuards = {}): Renamed {
    const row = resolveNamed(db, table, ref);
    guards.archive?.(row);
    if (row.archived_at) fail(`${word(table)} ${quote(row.name)} is already archived`, 'nothing to change');
    cs.update(table, row.id, { archived_at: now(), updated_at: now() });
    return { value: { id: row.id, name: row.name }, summary: `Archived ${word(table)} ${quote(row.name)}` };
  },
  unarchive(cs: ChangeSet, db: Db, table: NamedTable, ref: string): Renamed {
    const row = resolveNamed(db, table, ref);
    if (!row.archived_at) fail(`${word(table)} ${quote(row.name)} is not archived`, 'nothing to change');
    assertNameFree(db, table, row.name, row.id);
    cs.update(table, row.id, { archived_at: null, updated_at: now() });
    return { value: { id: row.id, name: row.name }, summary: `Unarchived ${word(table)} ${quote(row.name)}` };
  },
};
