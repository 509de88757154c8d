import { describe, expect, it } from 'vitest';
import { addTask, createProject, getTask, listTasks, undoAction, updateTask } from '../../../src-main/core';
import { compileFilter, deleteFilter, findStatements, findTasks, ftsPrefilter, listFilters, MAX_FILTER_CHARS, resolveFilter, saveFilter } from '../../../src-main/core/domain/filter';
import { createSection } from '../../../src-main/core/domain/sections';
import { okValue, snapshot, tempDb, userCtx } from '../../support/db';
import type { Db } from '../../../src-main/core';

// A fixed day far from any real today: the date words count from it.
const TODAY = '2035-03-14';
const NOW = new Date(2035, 2, 14, 12, 0);

function seed(db: Db) {
  const work = okValue(createProject(db, userCtx(db), { name: 'Work Stuff' }));
  okValue(createSection(db, userCtx(db), { project: work.id, name: 'Next Week' }));
  const ids = {
    overdue: okValue(addTask(db, userCtx(db), { content: 'Pay rent', due: '2035-03-10', priority: 1, labels: ['money'] })).id,
    today: okValue(addTask(db, userCtx(db), { content: 'Call mum', due: '2035-03-14T18:00', labels: ['Phone', 'family'] })).id,
    later: okValue(addTask(db, userCtx(db), { content: 'Write report', project: work.id, due: '2035-04-01', deadline: '2035-04-03', section: 'next week' })).id,
    undated: okValue(addTask(db, userCtx(db), { content: 'Read a book', priority: 3, description: 'something about zebras' })).id,
  };
  return ids;
}

const ids = (db: Db, filter: string) => findTasks(db, { filter, today: TODAY, now: NOW }).tasks.map((t) => t.id);

describe('the filter language', () => {
  it('reads Todoist-style terms, combined with & | ! and parentheses', () => {
    const { db } = tempDb();
    const t = seed(db);
    expect(ids(db, 'today')).toEqual([t.today]);
    expect(ids(db, 'overdue')).toEqual([t.overdue]);
    expect(ids(db, 'today | overdue')).toEqual([t.overdue, t.today]);
    expect(ids(db, 'no date')).toEqual([t.undated]);
    expect(ids(db, 'p1')).toEqual([t.overdue]);
    expect(ids(db, 'P3')).toEqual([t.undated]);
    expect(ids(db, '#work stuff')).toEqual([t.later]);
    expect(ids(db, '#Nope')).toEqual([]);
    expect(ids(db, '@phone')).toEqual([t.today]);
    expect(ids(db, '@FAMILY & @phone')).toEqual([t.today]);
    expect(ids(db, '/Next week')).toEqual([t.later]);
    expect(ids(db, 'due before: today')).toEqual([t.overdue]);
    expect(ids(db, 'due after: 2035-03-20')).toEqual([t.later]);
    expect(ids(db, 'deadline before: 2035-05-01')).toEqual([t.later]);
    expect(ids(db, 'search: ZEBRAS')).toEqual([t.undated]);
    expect(ids(db, 'search: call')).toEqual([t.today]);
    expect(ids(db, '!no date & !(today | overdue)')).toEqual([t.later]);
    expect(ids(db, '(p1 | p3) & !@money')).toEqual([t.undated]);
    // & binds tighter than |.
    expect(ids(db, 'p3 | p1 & @phone')).toEqual([t.undated]);
    expect(findTasks(db, { filter: 'no labels', today: TODAY }).total).toBe(2);
  });

  it('compiles to one parameterised query: user text never becomes SQL', () => {
    const { db } = tempDb();
    seed(db);
    const before = snapshot(db);
    for (const q of ["#x'; DROP TABLE tasks;--", "#x'\\); DROP TABLE tasks;--", 'search: \' OR 1=1 --', '@a"b', '/"; DELETE FROM tasks', 'search: %_%']) {
      const c = compileFilter(q, { today: TODAY });
      for (const p of c.params) if (typeof p === 'string') expect(c.sql).not.toContain(p);
      expect(findTasks(db, { filter: q, today: TODAY }).total).toBe(0);
    }
    expect(snapshot(db)).toEqual(before);
    expect(compileFilter('search: a\\&b', { today: TODAY }).params).toEqual(['a&b', 'a&b']);
  });

  it('labels side by side, searches through the index and pages give the same tasks as the plain reading', () => {
    const { db } = tempDb();
    const t = seed(db);
    const more = {
      exact: okValue(addTask(db, userCtx(db), { content: 'Sort THING 42 out', labels: ['phone'] })).id,
      longer: okValue(addTask(db, userCtx(db), { content: 'something 420x', labels: ['money'] })).id,
      inDescription: okValue(addTask(db, userCtx(db), { content: 'Plain', description: 'about thing 42 and more' })).id,
      near: okValue(addTask(db, userCtx(db), { content: 'thing  42 (two spaces) and thing-42' })).id,
      wild: okValue(addTask(db, userCtx(db), { content: '100% done_ok \\ back' })).id,
    };
    expect(ids(db, '@money | @phone')).toEqual([t.overdue, t.today, more.exact, more.longer]);
    expect(ids(db, '@phone | p3 | @money | @family')).toEqual([t.overdue, t.today, t.undated, more.exact, more.longer]);
    expect(ids(db, '!(@money | @phone) & !no date')).toEqual([t.later]);
    expect(ids(db, '(@money | @nope) & p1')).toEqual([t.overdue]);
    expect(ids(db, 'search: thing 42')).toEqual([more.exact, more.longer, more.inDescription]);
    expect(ids(db, 'search: hing 4')).toEqual([more.exact, more.longer, more.inDescription]);
    expect(ids(db, 'search: thing 42 and')).toEqual([more.inDescription]);
    expect(ids(db, '!search: thing 42 & !search: call')).toEqual([t.overdue, t.later, t.undated, more.near, more.wild]);
    // LIKE's wildcards and escape in the text are plain characters.
    expect(ids(db, 'search: 0% d')).toEqual([more.wild]);
    expect(ids(db, 'search: e_o')).toEqual([more.wild]);
    expect(ids(db, 'search: %_%')).toEqual([]);
    expect(ids(db, 'search: \\\\ b')).toEqual([more.wild]);
    // The index is only a prefilter: the first word may start inside a word, the last may go on.
    expect(ftsPrefilter('thing')).toBeNull();
    expect(ftsPrefilter('thing 42')).toBe('"42"*');
    expect(ftsPrefilter('a  b c')).toBe('"b" "c"*');
    expect(ftsPrefilter('thing-42 x')).toBeNull();
    expect(ftsPrefilter('crème brûlée')).toBeNull();
    // Pages of one are the whole list, in order, none twice.
    const all = ids(db, '!no date | no date');
    const paged = all.map((_, k) => findTasks(db, { filter: '!no date | no date', today: TODAY, now: NOW, limit: 1, offset: k }).tasks[0]!.id);
    expect(paged).toEqual(all);
    expect(findTasks(db, { filter: 'p4', today: TODAY, now: NOW, offset: 100 })).toEqual({ tasks: [], total: 7 });
  });

  it('a label filter starts from the label’s tasks, not from every open task', () => {
    const { db } = tempDb();
    seed(db);
    for (const filter of ['p1 & @money', '(@money | @phone) & due before: 2035-04-01']) {
      const s = findStatements(db, { filter, today: TODAY, now: NOW });
      for (const sql of [s.count, s.page]) {
        const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...s.params, ...(sql === s.page ? [s.limit, s.offset] : [])) as { detail: string }[]).map((r) => r.detail);
        expect(plan.some((d) => /SEARCH t USING INDEX sqlite_autoindex_tasks_1 \(id=\?\)/.test(d)), `${filter}: ${plan.join(' / ')}`).toBe(true);
        expect(plan.some((d) => /(SCAN|SEARCH) t USING (COVERING )?INDEX tasks_by_(completion|due) \(status=\?\)$/.test(d)), `${filter}: ${plan.join(' / ')}`).toBe(false);
      }
    }
  });

  it('a narrow filter (labels, a search through the index) counts and picks its page in one pass, with the same tasks and total', () => {
    const { db } = tempDb();
    seed(db);
    for (let k = 0; k < 5; k++) okValue(addTask(db, userCtx(db), { content: `Errand ${k} thing 42`, due: k % 2 ? '2035-03-12' : null, priority: (k % 4) + 1, labels: ['money'] }));
    const narrow = ['@money', 'p1 & @money', '(@money | @phone) & !p4', 'search: thing 42', '@money & search: thing 42'];
    for (const filter of narrow) expect(findStatements(db, { filter, today: TODAY, now: NOW }).narrow, filter).toBe(true);
    for (const filter of ['today | overdue', '!@money', '@money | p1', 'search: thing', '#work stuff']) expect(findStatements(db, { filter, today: TODAY, now: NOW }).narrow, filter).toBe(false);
    for (const filter of narrow) {
      // The two-statement reading of the same filter: its count, and its page.
      const plain = (limit: number, offset: number) => {
        const s = findStatements(db, { filter, today: TODAY, now: NOW, limit, offset });
        return { tasks: db.prepare(s.page).all(...s.params, s.limit, s.offset).map((r) => (r as { id: string }).id), total: (db.prepare(s.count).get(...s.params) as { n: number }).n };
      };
      for (const [limit, offset] of [[200, 0], [2, 1], [0, 0], [3, 100]] as const) {
        const found = findTasks(db, { filter, today: TODAY, now: NOW, limit, offset });
        expect({ tasks: found.tasks.map((t) => t.id), total: found.total }, `${filter} ${limit}/${offset}`).toEqual(plain(limit, offset));
      }
    }
  });

  it('pages by the date order read one index, and a search through every open task reads the rows in table order', () => {
    const { db } = tempDb();
    seed(db);
    const plan = (filter: string) => {
      const s = findStatements(db, { filter, today: TODAY, now: NOW });
      return [s.count, s.page].map((sql) => (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...s.params, ...(sql === s.page ? [s.limit, s.offset] : [])) as { detail: string }[]).map((r) => r.detail).join(' / '));
    };
    for (const filter of ['today | overdue', 'no date', 'p2']) for (const p of plan(filter)) expect(p, filter).toMatch(/SEARCH t USING COVERING INDEX tasks_by_due_order \(status=\?/);
    for (const p of plan('search: thing')) expect(p).toMatch(/SEARCH t USING INDEX tasks_by_completion \(status=\?\)/);
  });

  it('a bad query gets one line naming the position and what was expected', () => {
    const { db } = tempDb();
    const cases: [string, RegExp][] = [
      ['', /expected a term .* at position 1 \(at the end\)/],
      ['today &', /expected a term .* at position 8 \(at the end\)/],
      ['today & & p1', /at position 9/],
      ['(today', /expected & or \| or a closing \) at position 7/],
      ['today)', /expected no \) without its \( at position 6/],
      ['p5', /expected a term .* at position 1 \(near "p5"\)/],
      ['due before: whenever', /expected a date .* at position 12/],
      ['@two words', /expected a label name/],
      ['#', /expected a project name after # at position 2/],
      ['search:', /expected some text after search:/],
    ];
    for (const [q, re] of cases) {
      const r = (() => {
        try {
          findTasks(db, { filter: q, today: TODAY });
          return '';
        } catch (e) {
          return (e as Error).message;
        }
      })();
      expect(r, q).toMatch(re);
      expect(r).not.toContain('\n');
    }
  });

  it('hostile inputs: deep nesting, huge queries and many terms are refused in one line, quickly bounded', () => {
    const { db } = tempDb();
    seed(db);
    const fails = (q: string) => {
      try {
        findTasks(db, { filter: q, today: TODAY });
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(fails(`${'('.repeat(900)}today${')'.repeat(900)}`)).toMatch(/at most 50 deep/);
    expect(fails(`${'!'.repeat(1000)}today`)).toMatch(/at most 50 deep/);
    expect(fails('x'.repeat(MAX_FILTER_CHARS + 1))).toMatch(/characters long/);
    expect(fails(Array.from({ length: 300 }, () => 'p1').join(' | '))).toMatch(/at most 200 terms/);
    // Within the bounds, a wide query runs.
    expect(fails(Array.from({ length: 150 }, (_, i) => `@l${i}`).join(' | '))).toBe('');
    expect(fails(`${'('.repeat(40)}today${')'.repeat(40)}`)).toBe('');
    // Random junk never throws anything but the one-line refusal.
    const alphabet = ['(', ')', '&', '|', '!', ' ', 'p1', '#', '@', '/', 'today', 'due before:', 'x', '\\', '"', "'"];
    let seedN = 7;
    const rnd = () => ((seedN = (seedN * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let n = 0; n < 300; n++) {
      const q = Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => alphabet[Math.floor(rnd() * alphabet.length)]).join('');
      const m = fails(q);
      if (m) expect(m, q).toMatch(/^filter: expected .* at position \d+|characters long/);
    }
  });

  it('saved filters: save, replace, resolve by name, delete, each undoable', () => {
    const { db } = tempDb();
    const t = seed(db);
    const saved = okValue(saveFilter(db, userCtx(db), { name: 'Urgent', query: 'p1 | overdue' }));
    expect(saveFilter(db, userCtx(db), { name: 'Broken', query: 'p1 &' })).toMatchObject({ ok: false });
    expect(resolveFilter(db, 'urgent').query).toBe('p1 | overdue');
    expect(findTasks(db, { filter: resolveFilter(db, 'URGENT').query, today: TODAY }).tasks.map((x) => x.id)).toEqual([t.overdue]);
    const replaced = saveFilter(db, userCtx(db), { name: 'urgent', query: 'p1' });
    expect(replaced).toMatchObject({ ok: true, value: { id: saved.id, query: 'p1' } });
    okValue(undoAction(db, (replaced as { actionId: string }).actionId, { ctx: userCtx(db) }));
    expect(resolveFilter(db, saved.id).query).toBe('p1 | overdue');
    const del = deleteFilter(db, userCtx(db), { filter: 'Urgent' });
    expect(listFilters(db)).toEqual([]);
    okValue(undoAction(db, (del as { actionId: string }).actionId, { ctx: userCtx(db) }));
    expect(listFilters(db).map((f) => f.name)).toEqual(['Urgent']);
    expect(getTask(db, t.today).labels).toEqual(['family', 'Phone']);
    expect(listTasks(db).total).toBe(4);
    okValue(updateTask(db, userCtx(db), { task: t.today, labels: [] }));
  });
});
