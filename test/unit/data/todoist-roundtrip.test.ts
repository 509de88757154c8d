// A Todoist export with sections, subtasks four levels deep, labels, descriptions, comments (dated and not),
// deadlines and durations imports with nothing lost, and goes back out with the same structure: through
// Tidy's own export (v2 JSON, read back into a new database) and as a Todoist CSV read back by the importer.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../../src-main/core';
import { describePlan, exportJson, exportTodoistCsv, importTidyExport, importTodoist, planTodoistImport, readTodoistFiles, type Sink } from '../../../src-main/core/data';
import { tempDb, tempDir } from '../../support/db';

const FIXTURES = join(__dirname, '../../fixtures/todoist');
const FILE = 'Move Abroad [2203306199].csv';
/** A fixed now far from any real today ("every monday" is due from it). */
const NOW = new Date(2035, 2, 12, 10, 0);

interface Node {
  content: string;
  priority: number;
  due: string | null;
  recurrence: string | null;
  description: string | null;
  deadline: string | null;
  durationMin: number | null;
  labels: string[];
  comments: { text: string; at: string }[];
  children: Node[];
}

/** A project as a tree: sections in order (null: outside any), each with its task tree; every field Todoist has. */
function structure(db: Db, project: string): { section: string | null; tasks: Node[] }[] {
  const projectId = db.prepare(`SELECT id FROM projects WHERE name = ?`).pluck().get(project) as string;
  const rows = db
    .prepare(
      `SELECT t.id, t.content, t.priority, t.due, t.recurrence, t.description, t.deadline, t.duration_min, t.parent_id, s.name AS section
       FROM tasks t LEFT JOIN sections s ON s.id = t.section_id WHERE t.project_id = ? ORDER BY t.position, t.id`,
    )
    .all(projectId) as { id: string; content: string; priority: number; due: string | null; recurrence: string | null; description: string | null; deadline: string | null; duration_min: number | null; parent_id: string | null; section: string | null }[];
  const node = (r: (typeof rows)[number]): Node => ({
    content: r.content,
    priority: r.priority,
    due: r.due,
    recurrence: r.recurrence,
    description: r.description,
    deadline: r.deadline,
    durationMin: r.duration_min,
    labels: (db.prepare(`SELECT l.name FROM task_labels tl JOIN labels l ON l.id = tl.label_id WHERE tl.task_id = ?`).pluck().all(r.id) as string[]).sort(),
    comments: db.prepare(`SELECT text, created_at AS at FROM comments WHERE task_id = ? ORDER BY created_at, rowid`).all(r.id) as { text: string; at: string }[],
    children: rows.filter((c) => c.parent_id === r.id).map(node),
  });
  const sections = [null, ...(db.prepare(`SELECT name FROM sections WHERE project_id = ? ORDER BY position`).pluck().all(projectId) as string[])];
  return sections.map((section) => ({ section, tasks: rows.filter((r) => r.parent_id === null && r.section === section).map(node) }));
}

const depth = (nodes: Node[]): number => (nodes.length ? 1 + Math.max(...nodes.map((n) => depth(n.children))) : 0);
const count = (nodes: Node[]): number => nodes.reduce((n, t) => n + 1 + count(t.children), 0);

describe('Todoist round trip', () => {
  it('imports a real-format export with nothing lost and exports it back with the same structure', async () => {
    const files = readTodoistFiles(FILE, readFileSync(join(FIXTURES, FILE)));
    const a = tempDb().db;
    const plan = planTodoistImport(a, files, { now: NOW });
    // The preview says what it will create.
    expect(describePlan(plan)).toEqual([
      "new project 'Move Abroad': 13 tasks in 2 sections (Paperwork, Moving day 🚚)",
      '8 subtasks, up to 4 levels deep',
      '6 labels: @big, @Sam, @admin, @post, @phone, @home (6 new)',
      '4 descriptions and 3 comments',
      '3 deadlines and 4 durations',
      '1 recurring task, due on the next occurrence',
      'not imported: 1 comment on a project itself (Tidy keeps comments on tasks)',
    ]);
    await importTodoist(a, ':memory:', files, { now: NOW });
    const imported = structure(a, 'Move Abroad');

    expect(imported.map((s) => [s.section, count(s.tasks)])).toEqual([[null, 1], ['Paperwork', 8], ['Moving day 🚚', 4]]);
    const [top, paperwork, moving] = imported;
    const city = top!.tasks[0]!;
    expect(city).toMatchObject({
      content: 'Decide on the city',
      labels: ['big', 'Sam'].sort(),
      priority: 1,
      due: '2026-12-01',
      description: 'Lisbon or Porto.\n\n- rent\n- schools',
      deadline: '2027-01-15',
      durationMin: 2 * 1440,
    });
    expect(city.comments.map((c) => c.text)).toEqual(['Porto is cheaper', 'Lisbon has the better airport, though']);
    expect(city.comments[0]!.at).toBe('2026-10-02T09:15:00.000Z');
    // INDENT 1 to 5: four levels of subtasks under "Residence permit".
    expect(depth(paperwork!.tasks)).toBe(5);
    const permit = paperwork!.tasks[0]!;
    expect(permit.children.map((c) => c.content)).toEqual(['Collect documents', 'Book the consulate appointment']);
    const certificate = permit.children[0]!.children[0]!;
    expect(certificate).toMatchObject({ content: 'Birth certificate', labels: ['admin', 'post'] });
    expect(certificate.children[0]).toMatchObject({ content: 'Apostille for the certificate', deadline: '2026-12-20', description: 'Ask the registry which office' });
    expect(certificate.children[0]!.comments).toEqual([{ text: 'The registry answered: the Hague office', at: expect.stringMatching(/^2026-11-0[45]T/) }]);
    expect(certificate.children[0]!.children).toMatchObject([{ content: 'Translate it', durationMin: 90, children: [] }]);
    expect(permit.children[1]).toMatchObject({ recurrence: 'FREQ=WEEKLY;BYDAY=MO', due: '2035-03-12' });
    expect(moving!.tasks.map((t) => [t.content, t.children.map((c) => c.content)])).toEqual([
      ['Get three quotes from movers', []],
      ['Pack the kitchen', ['Wrap the glasses', 'Label the boxes']],
    ]);

    // Out as Tidy's export (v2) and into a new database: the same tree, field for field.
    const dir = tempDir();
    let json = '';
    exportJson(a, { write: (chunk: string) => void (json += chunk) } satisfies Sink);
    writeFileSync(join(dir, 'export.json'), json);
    const b = tempDb().db;
    importTidyExport(b, join(dir, 'export.json'));
    expect(structure(b, 'Move Abroad')).toEqual(imported);

    // Out as a Todoist CSV and back in through the importer: the same tree again.
    const projectId = a.prepare(`SELECT id FROM projects WHERE name = 'Move Abroad'`).pluck().get() as string;
    const csv = exportTodoistCsv(a, projectId);
    expect(csv.split('\n')[0]).toBe('TYPE,CONTENT,DESCRIPTION,PRIORITY,INDENT,AUTHOR,RESPONSIBLE,DATE,DATE_LANG,TIMEZONE,DURATION,DURATION_UNIT,DEADLINE,DEADLINE_LANG');
    const c = tempDb().db;
    await importTodoist(c, ':memory:', [{ name: 'Move Abroad.csv', text: csv }], { now: NOW });
    expect(structure(c, 'Move Abroad')).toEqual(imported);
  });

  it('a second import into the same project reuses its sections and labels by name', async () => {
    const files = readTodoistFiles(FILE, readFileSync(join(FIXTURES, FILE)));
    const { db } = tempDb();
    await importTodoist(db, ':memory:', files, { now: NOW });
    const again = planTodoistImport(db, files, { now: NOW });
    expect(describePlan(again)[0]).toBe("into project 'Move Abroad': 13 tasks in 2 sections (Paperwork, Moving day 🚚)");
    expect(again.totals.newLabels).toBe(0);
    await importTodoist(db, ':memory:', files, { now: NOW });
    expect(db.prepare(`SELECT count(*) FROM sections`).pluck().get()).toBe(2);
    expect(db.prepare(`SELECT count(*) FROM labels`).pluck().get()).toBe(6);
    expect(structure(db, 'Move Abroad').map((s) => [s.section, count(s.tasks)])).toEqual([[null, 2], ['Paperwork', 16], ['Moving day 🚚', 8]]);
  });
});
