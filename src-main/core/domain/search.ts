/**
 * Search as people use it (the search box, `tidy search`): every kind of thing in one query over the FTS5
 * index (store/search-index.ts), grouped by kind, with a snippet of the matching text. The agent's
 * `search` tool (tools/search.ts) reads the same index and answers in its own shape.
 */
import type { SearchHit, SearchKind, SearchResults } from '../../../src-shared/ipc';
import type { Db } from '../store/db';
import { ftsQuery } from '../store/search-index';
import { cached } from '../store/statements';

/** Longer queries are cut here: a search box needs a few words, and each word is one more FTS5 term. */
const MAX_QUERY_WORDS = 32;

// Archived things are not found; done tasks and checked items are, marked. A task is found by its text,
// its description or its comments, once. A conversation is found by its
// title or by any of its user or answer messages, once, at its best match.
const SEARCH = `
  WITH m AS (
    SELECT d.kind, d.ref, s.rank, snippet(search_text, 0, '«', '»', '…', 12) AS snippet
      FROM search_text s JOIN search_docs d ON d.docid = s.rowid WHERE search_text MATCH ?
  ),
  hits AS (
    SELECT 'task' AS kind, t.id, t.content AS title, m.snippet, p.id AS parent_id, p.name AS parent, t.status = 'done' AS done, NULL AS start_ms, m.rank
      FROM m JOIN tasks t ON m.kind IN ('tasks', 'task_descriptions') AND t.id = m.ref JOIN projects p ON p.id = t.project_id
      WHERE t.status != 'archived'
    UNION ALL
    SELECT 'task', t.id, t.content, m.snippet, p.id, p.name, t.status = 'done', NULL, m.rank
      FROM m JOIN comments n ON m.kind = 'comments' AND n.id = m.ref JOIN tasks t ON t.id = n.task_id JOIN projects p ON p.id = t.project_id
      WHERE t.status != 'archived'
    UNION ALL
    SELECT 'project', p.id, p.name, m.snippet, NULL, NULL, 0, NULL, m.rank FROM m JOIN projects p ON m.kind = 'projects' AND p.id = m.ref
      WHERE p.archived_at IS NULL
    UNION ALL
    SELECT 'list', l.id, l.name, m.snippet, NULL, NULL, 0, NULL, m.rank FROM m JOIN lists l ON m.kind = 'lists' AND l.id = m.ref
      WHERE l.archived_at IS NULL
    UNION ALL
    SELECT 'item', i.id, i.text, m.snippet, l.id, l.name, i.checked, NULL, m.rank FROM m JOIN list_items i ON m.kind = 'list_items' AND i.id = m.ref
      JOIN lists l ON l.id = i.list_id
      WHERE i.archived_at IS NULL AND l.archived_at IS NULL
    UNION ALL
    SELECT 'event', e.id, e.title, m.snippet, k.id, k.name, 0, e.start_ms, m.rank FROM m JOIN events e ON m.kind = 'events' AND e.id = m.ref
      JOIN calendars k ON k.id = e.calendar_id
      WHERE e.cancelled_at IS NULL AND k.archived_at IS NULL
    UNION ALL
    SELECT 'memory', y.id, y.text, m.snippet, y.project_id, p.name, 0, NULL, m.rank FROM m JOIN memories y ON m.kind = 'memories' AND y.id = m.ref
      LEFT JOIN projects p ON p.id = y.project_id
      WHERE y.archived_at IS NULL
    UNION ALL
    SELECT 'conversation', c.id, c.title, m.snippet, NULL, NULL, 0, NULL, m.rank FROM m JOIN conversations c ON m.kind = 'conversations' AND c.id = m.ref
    UNION ALL
    SELECT 'conversation', c.id, c.title, m.snippet, NULL, NULL, 0, NULL, m.rank FROM m JOIN messages g ON m.kind = 'messages' AND g.seq = m.ref
      JOIN conversations c ON c.id = g.conversation_id
  ),
  best AS (SELECT *, ROW_NUMBER() OVER (PARTITION BY kind, id ORDER BY rank) AS n FROM hits)
  SELECT kind, id, title, snippet, parent_id, parent, done, start_ms FROM best WHERE n = 1 ORDER BY rank`;

const ORDER: readonly SearchKind[] = ['task', 'project', 'list', 'item', 'event', 'memory', 'conversation'];

interface Row {
  kind: SearchKind;
  id: string;
  title: string;
  snippet: string;
  parent_id: string | null;
  parent: string | null;
  done: number;
  start_ms: number | null;
}

/** Matches for `text`, at most `limit` per kind; a query without words finds nothing. */
export function searchAll(db: Db, text: string, limit = 50): SearchResults {
  const words = ftsQuery(text.slice(0, 10_000))?.split(' ').slice(0, MAX_QUERY_WORDS).join(' ');
  if (!words) return { groups: [], total: 0 };
  const rows = cached(db, SEARCH).all(words) as Row[];
  const groups = new Map<SearchKind, SearchHit[]>();
  for (const r of rows) {
    const hits = groups.get(r.kind) ?? [];
    groups.set(r.kind, hits);
    if (hits.length < limit)
      hits.push({ kind: r.kind, id: r.id, title: r.title, snippet: r.snippet.replace(/\s+/g, ' ').trim(), parentId: r.parent_id, parent: r.parent, done: r.done === 1,
        ...(r.start_ms === null ? {} : { start: new Date(r.start_ms).toISOString() }) });
  }
  return { groups: ORDER.filter((k) => groups.has(k)).map((kind) => ({ kind, hits: groups.get(kind)! })), total: rows.length };
}
