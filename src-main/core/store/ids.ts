import type { IdKind } from '../../../src-shared/entities';
import type { Db } from './db';
import { cached } from './statements';

/**
 * Short, human-typable ids: a letter for the kind and a counter (t12 is a task, p3 a project, a41 an
 * action, e5 an event, k2 a calendar, s4 a section, g2 a label, j9 a task's label, n3 a comment, f1 a saved filter). Counters only grow, so an id freed by an undo is never handed out again.
 */
export type { IdKind } from '../../../src-shared/entities';

export function nextId(db: Db, kind: IdKind): string {
  const row = cached(
    db,
    `INSERT INTO id_counters (kind, next) VALUES (?, 2)
     ON CONFLICT(kind) DO UPDATE SET next = next + 1 RETURNING next - 1 AS n`,
  ).get(kind) as { n: number };
  return `${kind}${row.n}`;
}
