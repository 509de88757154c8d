import { z } from 'zod';
import { fail } from '../fail';
import type { Db } from '../store/db';
import { ftsQuery } from '../store/search-index';
import { cached } from '../store/statements';
import { capped, defineTool, read } from './tool';

// The index maps (kind, id) to a document (store/search-index.ts); kinds are table names. Archived things
// are not found; done tasks are, marked as done.
const SEARCH = `
  WITH m AS (SELECT d.kind, d.ref, s.rank FROM search_text s JOIN search_docs d ON d.docid = s.rowid WHERE search_text MATCH ?)
  SELECT 'task' AS type, t.id, t.content AS text, p.name AS parent, t.status AS status, m.rank
    FROM m JOIN tasks t ON m.kind = 'tasks' AND t.id = m.ref JOIN projects p ON p.id = t.project_id
    WHERE t.status != 'archived'
  UNION ALL
  SELECT 'project', p.id, p.name, NULL, NULL, m.rank FROM m JOIN projects p ON m.kind = 'projects' AND p.id = m.ref
    WHERE p.archived_at IS NULL
  UNION ALL
  SELECT 'list', l.id, l.name, NULL, NULL, m.rank FROM m JOIN lists l ON m.kind = 'lists' AND l.id = m.ref
    WHERE l.archived_at IS NULL
  UNION ALL
  SELECT 'item', i.id, i.text, l.name, i.checked, m.rank FROM m JOIN list_items i ON m.kind = 'list_items' AND i.id = m.ref
    JOIN lists l ON l.id = i.list_id
    WHERE i.archived_at IS NULL AND l.archived_at IS NULL
  ORDER BY rank`;

interface Hit {
  type: 'task' | 'project' | 'list' | 'item';
  id: string;
  text: string;
  parent: string | null;
  status: string | number | null;
}

/** A match as the model sees it, named like the other tools' rows. */
function shape(h: Hit): Record<string, unknown> {
  switch (h.type) {
    case 'task':
      return { type: 'task', id: h.id, content: h.text, project: h.parent, ...(h.status === 'done' ? { done: true } : {}) };
    case 'item':
      return { type: 'item', id: h.id, text: h.text, list: h.parent, checked: h.status === 1 };
    default:
      return { type: h.type, id: h.id, name: h.text };
  }
}

export function search(db: Db, text: string): Record<string, unknown> {
  const query = ftsQuery(text);
  if (!query) fail('the search has no words in it', 'search for one or more words, e.g. {"query": "birthday"}');
  const hits = cached(db, SEARCH).all(query) as Hit[];
  return capped('matches', hits.slice(0, 200).map(shape), hits.length, 'add words to narrow the search');
}

export const searchTool = defineTool({
  name: 'search',
  description: 'Find tasks, projects, lists and list items by words (best matches first).',
  input: z.strictObject({ query: z.string() }),
  effect: 'read',
  run: ({ query }, { db }) => read(() => search(db, query)),
});
