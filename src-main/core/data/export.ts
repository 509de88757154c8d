/**
 * `tidy export`: the whole database as JSON (the format of ./schema.ts) or as readable Markdown. Rows are
 * read one at a time inside one read transaction (a consistent snapshot while others write) and written
 * through a small buffer, so a log of 100k rows never becomes one giant string.
 */
import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Db } from '../store/db';
import { schemaVersion } from '../store/db';
import { COLLECTIONS, EXPORT_FORMAT, EXPORT_VERSION } from './schema';

/** Where export text goes. */
export interface Sink {
  write(chunk: string): void;
}

const FLUSH_AT = 1 << 20;

/** A buffered writer to a file descriptor (a file, or 1 for stdout). */
export class FdSink implements Sink {
  private parts: string[] = [];
  private size = 0;
  constructor(private readonly fd: number) {}
  write(chunk: string): void {
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.size >= FLUSH_AT) this.flush();
  }
  flush(): void {
    if (this.size === 0) return;
    const buf = Buffer.from(this.parts.join(''), 'utf8');
    this.parts = [];
    this.size = 0;
    for (let off = 0; off < buf.length; ) {
      try {
        off += writeSync(this.fd, buf, off);
      } catch (e) {
        // A non-blocking pipe that is full: wait for the reader rather than lose output.
        if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
      }
    }
  }
}

/**
 * Writes to `out` through a temporary file renamed into place at the end, so a failed export never leaves
 * half a file under the name asked for.
 */
export function writeFileAtomically(out: string, fill: (sink: Sink) => void): void {
  const tmp = join(dirname(out), `.${basename(out)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w');
  try {
    const sink = new FdSink(fd);
    fill(sink);
    sink.flush();
    closeSync(fd);
    renameSync(tmp, out);
  } catch (e) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    rmSync(tmp, { force: true });
    throw e;
  }
}

type Row = Record<string, unknown>;

/**
 * JSON.stringify escapes C0 controls; this escapes DEL, C1 controls and bidirectional overrides too, so an
 * export shown on a terminal cannot move the cursor or read other than it is (see src-main/cli/context.ts).
 * The escapes are JSON's own: the file parses to the very same strings.
 */
const UNSAFE = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const escapeUnsafe = (s: string): string => s.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
const json = (v: unknown): string => escapeUnsafe(JSON.stringify(v));

/** Text for the Markdown export: control characters (but tabs and line breaks) and bidi overrides shown as escapes. */
// eslint-disable-next-line no-control-regex
const visible = (s: string): string => s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** The row as the file has it: export names, in the order of the schema, booleans for 0/1 columns. */
function rowMapper(c: (typeof COLLECTIONS)[number]): (row: Row) => Row {
  const entries = Object.entries(c.columns);
  const bools = new Set(c.bools ?? []);
  return (row) => {
    const out: Row = {};
    for (const [key, column] of entries) out[key] = bools.has(key) ? row[column] === 1 : row[column];
    return out;
  };
}

/** Counters as the file has them (see schema.ts). */
export function readCounters(db: Db): { ids: Record<string, number>; sequences: { actions: number; messages: number } } {
  const ids: Record<string, number> = {};
  for (const r of db.prepare(`SELECT kind, next FROM id_counters ORDER BY kind`).all() as { kind: string; next: number }[]) ids[r.kind] = r.next;
  const seq = (name: string): number => (db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = ?`).get(name) as { seq: number } | undefined)?.seq ?? 0;
  return { ids, sequences: { actions: seq('actions'), messages: seq('messages') } };
}

/** The JSON export (one row per line, stable order: the same database always gives the same bytes apart from exportedAt). */
export function exportJson(db: Db, sink: Sink, now: Date = new Date()): void {
  db.transaction(() => {
    sink.write(`{\n  "format": ${JSON.stringify(EXPORT_FORMAT)},\n  "version": ${EXPORT_VERSION},\n`);
    sink.write(`  "exportedAt": ${JSON.stringify(now.toISOString())},\n  "schemaVersion": ${schemaVersion(db)},\n  "data": {\n`);
    sink.write(`    "counters": ${json(readCounters(db))}`);
    for (const c of COLLECTIONS) {
      sink.write(`,\n    ${JSON.stringify(c.key)}: [`);
      const map = rowMapper(c);
      let first = true;
      for (const row of db.prepare(`SELECT ${Object.values(c.columns).join(', ')} FROM ${c.table} ORDER BY ${c.order}`).iterate() as Iterable<Row>) {
        sink.write(`${first ? '\n' : ',\n'}      ${json(map(row))}`);
        first = false;
      }
      sink.write(first ? ']' : '\n    ]');
    }
    sink.write('\n  }\n}\n');
  })();
}

/** Text in a Markdown line: no line breaks, and characters that would start markup are escaped. */
function inline(s: string): string {
  return visible(s).replace(/\r\n?|\n/g, ' ').replace(/([\\`*_[\]<>#|])/g, '\\$1');
}

/** A transcript block: quoted, so that the message's own Markdown cannot break the document's structure. */
function quoted(s: string): string {
  return visible(s)
    .split(/\r\n?|\n/)
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

/** The readable export: projects with their open and done tasks, lists as checkboxes, conversations as transcripts. */
export function exportMarkdown(db: Db, sink: Sink, now: Date = new Date()): void {
  db.transaction(() => {
    sink.write(`# Tidy export\n\nExported ${now.toISOString()} (schema ${schemaVersion(db)}).\n\n## Projects\n`);
    const projects = db.prepare(`SELECT id, name, archived_at FROM projects ORDER BY builtin DESC, name_key, id`).all() as {
      id: string;
      name: string;
      archived_at: string | null;
    }[];
    const tasks = db.prepare(`SELECT id, content, priority, due, status FROM tasks WHERE project_id = ? AND status = ? ORDER BY rowid`);
    for (const p of projects) {
      sink.write(`\n### ${inline(p.name)}${p.archived_at ? ' (archived)' : ''}\n`);
      for (const [status, title] of [
        ['open', 'Open'],
        ['done', 'Done'],
        ['archived', 'Archived'],
      ] as const) {
        let any = false;
        for (const t of tasks.iterate(p.id, status) as Iterable<{ id: string; content: string; priority: number; due: string | null }>) {
          if (!any) sink.write(`\n${title}:\n\n`);
          any = true;
          const extras = [t.priority < 4 ? `p${t.priority}` : '', t.due ? `due ${t.due}` : ''].filter(Boolean).join(', ');
          sink.write(`- [${status === 'open' ? ' ' : 'x'}] ${inline(t.content)}${extras ? ` (${extras})` : ''}\n`);
        }
        if (status === 'open' && !any) sink.write('\nNo open tasks.\n');
      }
    }

    const lists = db.prepare(`SELECT id, name, archived_at FROM lists ORDER BY name_key, id`).all() as { id: string; name: string; archived_at: string | null }[];
    sink.write(`\n## Lists\n`);
    if (lists.length === 0) sink.write('\nNo lists.\n');
    const items = db.prepare(`SELECT text, checked, archived_at FROM list_items WHERE list_id = ? ORDER BY position, id`);
    for (const l of lists) {
      sink.write(`\n### ${inline(l.name)}${l.archived_at ? ' (archived)' : ''}\n\n`);
      let any = false;
      for (const i of items.iterate(l.id) as Iterable<{ text: string; checked: number; archived_at: string | null }>) {
        any = true;
        sink.write(`- [${i.checked ? 'x' : ' '}] ${inline(i.text)}${i.archived_at ? ' (archived)' : ''}\n`);
      }
      if (!any) sink.write('No items.\n');
    }

    const conversations = db.prepare(`SELECT id, title, created_at FROM conversations ORDER BY created_at, id`).all() as {
      id: string;
      title: string;
      created_at: string;
    }[];
    sink.write(`\n## Conversations\n`);
    if (conversations.length === 0) sink.write('\nNo conversations.\n');
    const messages = db.prepare(`SELECT role, content, created_at FROM messages WHERE conversation_id = ? AND role != 'tool' AND content IS NOT NULL AND content != '' ORDER BY seq`);
    for (const c of conversations) {
      sink.write(`\n### ${inline(c.title || 'Untitled')} (${c.created_at})\n`);
      for (const m of messages.iterate(c.id) as Iterable<{ role: string; content: string; created_at: string }>) {
        sink.write(`\n**${m.role === 'user' ? 'You' : 'Tidy'}** (${m.created_at}):\n\n${quoted(m.content)}\n`);
      }
    }
  })();
}
