/**
 * Labels: a name (unique whatever its case), created on first use; a task has any number of them
 * (task_labels rows, each logged like any other row, so undo takes a label off or puts it back).
 */
import type { ChangeSet } from '../actions/changes';
import type { Db } from '../store/db';
import { nextId } from '../store/ids';
import { cached } from '../store/statements';
import { fail } from '../fail';
import { implement } from './operation';
import { nameKey, now, quote } from './text';

/** The most labels one task carries. */
export const MAX_LABELS = 100;
const MAX_LABEL_CHARS = 60;

/** A label name as given: "@errands" and "errands" are the same; no spaces, commas or @ inside. */
export function cleanLabel(raw: unknown): string {
  const name = String(raw ?? '')
    .normalize('NFC')
    .trim()
    .replace(/^@+/, '');
  if (!name) fail('label name is empty', 'give a label a name, e.g. errands');
  if (name.length > MAX_LABEL_CHARS) fail(`label name is ${name.length} characters long`, `use at most ${MAX_LABEL_CHARS} characters`);
  if (/[\s,@#]/u.test(name) || /\p{Cc}/u.test(name)) fail(`label ${JSON.stringify(name.slice(0, 60))} has a space, comma, @ or #`, 'use one word per label, e.g. errands or waiting_for');
  return name;
}

/** The names, cleaned and without repeats (case-insensitive; the first spelling wins). `none` alone clears. */
export function cleanLabels(raw: readonly unknown[]): string[] {
  if (raw.length === 1 && typeof raw[0] === 'string' && /^\s*none\s*$/i.test(raw[0])) return [];
  const seen = new Map<string, string>();
  for (const r of raw.flatMap((x) => String(x ?? '').split(','))) {
    if (String(r).trim() === '') continue;
    const name = cleanLabel(r);
    if (!seen.has(nameKey(name))) seen.set(nameKey(name), name);
  }
  if (seen.size > MAX_LABELS) fail(`${seen.size} labels on one task`, `use at most ${MAX_LABELS}`);
  return [...seen.values()];
}

/** The label's id, creating it (in this change) when no label has that name yet. */
export function labelId(cs: ChangeSet, db: Db, name: string, created: string[]): string {
  const found = cached(db, `SELECT id FROM labels WHERE name_key = ?`).get(nameKey(name)) as { id: string } | undefined;
  if (found) return found.id;
  const t = now();
  const row = cs.insert('labels', { id: nextId(db, 'g'), name, name_key: nameKey(name), colour: null, created_at: t, updated_at: t });
  created.push(name);
  return String(row['id']);
}

/**
 * Makes the task's labels exactly `names`: adds the missing ones (creating labels on first use), takes
 * off the others. Returns the labels created and whether anything changed.
 */
export function setTaskLabels(cs: ChangeSet, db: Db, taskId: string, names: readonly string[]): { created: string[]; changed: boolean } {
  const created: string[] = [];
  const have = cached(db, `SELECT tl.id, l.name_key FROM task_labels tl JOIN labels l ON l.id = tl.label_id WHERE tl.task_id = ?`).all(taskId) as {
    id: string;
    name_key: string;
  }[];
  const want = new Set(names.map(nameKey));
  let changed = false;
  for (const h of have) {
    if (!want.has(h.name_key)) {
      cs.remove('task_labels', h.id);
      changed = true;
    }
  }
  const present = new Set(have.map((h) => h.name_key));
  for (const name of names) {
    if (present.has(nameKey(name))) continue;
    cs.insert('task_labels', { id: nextId(db, 'j'), task_id: taskId, label_id: labelId(cs, db, name, created) });
    changed = true;
  }
  return { created, changed };
}

/** Every label with its number of open tasks, by name. */
export function listLabels(db: Db): { id: string; name: string; colour: string | null; openTasks: number }[] {
  return cached(
    db,
    `SELECT l.id, l.name, l.colour, (SELECT count(*) FROM task_labels tl JOIN tasks t ON t.id = tl.task_id WHERE tl.label_id = l.id AND t.status = 'open') AS openTasks
       FROM labels l ORDER BY l.name_key`,
  ).all() as { id: string; name: string; colour: string | null; openTasks: number }[];
}

/** The colours a label may have: #rrggbb. */
const COLOUR = /^#[0-9a-f]{6}$/;

/** Gives a label a colour (#rrggbb) or takes it off (null, '' or 'none'); one logged, undoable change. */
export const setLabelColour = implement('labels.colour', (cs, input, db) => {
  const ref = String(input.label ?? '').trim();
  const row = (cached(db, `SELECT id, name, colour FROM labels WHERE id = ? OR name_key = ? ORDER BY id = ? DESC LIMIT 1`).get(ref.toLowerCase(), nameKey(ref.replace(/^@+/, '')), ref.toLowerCase()) as
    | { id: string; name: string; colour: string | null }
    | undefined);
  if (!row) fail(`no label ${quote(ref.slice(0, 60))}`, 'see the labels with tidy tasks --json or the Labels view; a label is created by using @name on a task');
  const raw = String(input.colour ?? '').trim().toLowerCase();
  const colour = raw === '' || raw === 'none' ? null : raw;
  if (colour !== null && !COLOUR.test(colour)) fail(`${quote(String(input.colour).slice(0, 20))} is not a colour`, 'give it as #rrggbb, e.g. #2e9d5b, or none');
  if (colour === row.colour) fail(`label @${row.name} ${colour ? `is already ${colour}` : 'has no colour'}`, 'nothing to change');
  cs.update('labels', row.id, { colour, updated_at: now() });
  const value = listLabels(db).find((l) => l.id === row.id)!;
  return { value, summary: colour ? `Coloured label @${row.name} ${colour}` : `Took the colour off label @${row.name}` };
});

export const LABEL_OPERATIONS = [setLabelColour];
