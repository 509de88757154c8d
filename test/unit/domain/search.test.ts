// Search for people (src-main/core/domain/search.ts): every kind, grouped, conversations included.
import { describe, expect, it } from 'vitest';
import { addListItem, addTask, archiveTask, createProject, makeList } from '../../../src-main/core';
import { appendMessages, createConversation } from '../../../src-main/core/agent/conversations';
import { searchAll } from '../../../src-main/core/domain/search';
import { okValue, tempDb, userCtx } from '../../support/db';

describe('search over everything', () => {
  it('finds tasks, projects, lists, items and conversations (title, request and answer, not tool results), grouped', () => {
    const { db } = tempDb();
    const task = okValue(addTask(db, userCtx(db), { content: 'Buy a garden hose' }));
    okValue(createProject(db, userCtx(db), { name: 'Garden' }));
    const list = okValue(makeList(db, userCtx(db), { name: 'Garden tools' }));
    okValue(addListItem(db, userCtx(db), { list: list.id, text: 'Rake for the garden' }));
    const c1 = createConversation(db, 'Plan the garden');
    const c2 = createConversation(db, 'Weekly review');
    appendMessages(db, c2, 'r1', [
      { role: 'user', content: 'what about the greenhouse?' },
      { role: 'assistant', content: null, toolCalls: [{ id: 'x', name: 'search', arguments: '{}' }] },
      { role: 'tool', toolCallId: 'x', content: '{"orchid": true}' },
      { role: 'assistant', content: 'The greenhouse needs a new pane.' },
    ]);
    const r = searchAll(db, 'garden');
    expect(r.groups.map((g) => [g.kind, g.hits.map((h) => h.id)])).toEqual([
      ['task', [task.id]],
      ['project', ['p1']],
      ['list', [list.id]],
      ['item', ['i1']],
      ['conversation', [c1]],
    ]);
    expect(r.groups[3]!.hits[0]).toMatchObject({ parentId: list.id, parent: 'Garden tools', snippet: 'Rake for the «garden»' });
    // Both the request and the answer match; the conversation appears once.
    expect(searchAll(db, 'greenhouse').groups).toEqual([{ kind: 'conversation', hits: [expect.objectContaining({ id: c2, title: 'Weekly review' })] }]);
    expect(searchAll(db, 'orchid').total).toBe(0);
    okValue(archiveTask(db, userCtx(db), { task: task.id }));
    expect(searchAll(db, 'hose').total).toBe(0);
  });

  it('takes any text as a query without throwing', () => {
    const { db } = tempDb();
    okValue(addTask(db, userCtx(db), { content: 'NEAR the "quoted" thing' }));
    for (const q of ['', '"', '""', 'NEAR(', 'a OR b', '*', '-x', 'col:val', '^start', 'x'.repeat(10_000), 'word '.repeat(2000), '\u0000\u202e', '(((((', 'AND AND']) {
      expect(() => searchAll(db, q)).not.toThrow();
    }
    expect(searchAll(db, 'NEAR quoted').total).toBe(1);
  });
});
