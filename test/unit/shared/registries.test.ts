// Lists derived from the registries, not kept beside them.
import { describe, expect, it } from 'vitest';
import { KINDS, SEARCH_KINDS, SearchKind, countOf, kindOfTable, kindOfWord } from '../../../src-shared/entities';
import { Topic } from '../../../src-shared/operations';
import { DATABASE_TOPICS, DATA_TOPICS, TOPICS } from '../../../src-shared/topics';

describe('topics (src-shared/topics.ts)', () => {
  it('are one list: the contract enum, the data topics and what the external-change watch announces', () => {
    expect(Topic.options).toEqual([...TOPICS]);
    for (const t of DATA_TOPICS) expect(TOPICS).toContain(t);
    expect([...DATABASE_TOPICS].sort()).toEqual(TOPICS.filter((t) => t !== 'secrets').sort());
  });
});

describe('kinds (src-shared/entities.ts)', () => {
  it('give search kinds, nouns and plurals', () => {
    expect(SEARCH_KINDS).toEqual(['task', 'project', 'list', 'item', 'event', 'conversation', 'memory']);
    expect(SearchKind.safeParse('calendar').success).toBe(false);
    expect(kindOfTable('list_items')).toBe('item');
    expect(kindOfTable('settings')).toBeNull();
    expect(kindOfWord('tasks')).toBe('task');
    expect(kindOfWord('constructor')).toBeNull();
    expect(countOf(1, 'item')).toBe('1 item');
    expect(countOf(3, 'calendar')).toBe('3 calendars');
    expect(countOf(2, null)).toBe('2 changes');
    expect(new Set(Object.values(KINDS).map((k) => k.letter)).size).toBe(Object.keys(KINDS).length);
  });
});
