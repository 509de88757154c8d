// An .ics file read in pieces (src-main/core/calendar/ics-lines.ts): content lines come out the same whatever
// the chunk size (folds, CRLF and UTF-8 split at a chunk boundary), and the import reads a file from disk
// in pieces with the same result as from its text.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importCalendar } from '../../../src-main/core';
import { streamIcs } from '../../../src-main/core/calendar/ics';
import { bytesSource, contentLines, fileSource, textSource, type IcsSource } from '../../../src-main/core/calendar/ics-lines';
import { ICS_LIMITS } from '../../../src-main/core/calendar/ics-text';
import { snapshot, tempDb, tempDir, userCtx } from '../../support/db';

const lines = (source: IcsSource): string[] => [...contentLines(source.open())].map((l) => `${l.line}:${l.text}`);
/** The content lines of `text` read from its bytes and from its characters, `size` at a time. */
const both = (text: string, size: number): string[][] => [lines(bytesSource(Buffer.from(text, 'utf8'), size)), lines(textSource(text, size))];
const saved = ICS_LIMITS.maxBytes;
afterEach(() => {
  ICS_LIMITS.maxBytes = saved;
});

describe('content lines of a file read in chunks', () => {
  it('are the same at every chunk size: folds, CRLF and multi-byte characters split at a boundary, a BOM, no newline at the end', () => {
    const text = '\ufeffBEGIN:VCALENDAR\r\nSUMMARY:Caf\u00e9 \u20ac\r\n  \ud83d\ude00 and\r\n\tmore\r\nX-EMPTY:\r\n\r\nDESCRIPTION:a\rb\r\nEND:VCALENDAR';
    const want = ['1:BEGIN:VCALENDAR', '2:SUMMARY:Caf\u00e9 \u20ac \ud83d\ude00 andmore', '5:X-EMPTY:', '6:', '7:DESCRIPTION:a\rb', '8:END:VCALENDAR'];
    // Every size from 1 byte puts each fold, each CRLF and each byte of the 2-, 3- and 4-byte characters at a boundary.
    for (let size = 1; size <= 40; size++) expect(both(text, size), `chunks of ${size}`).toEqual([want, want]);
    expect(both(`${text}\r\n`, 3)).toEqual([want, want]);
  });

  it('end lines by LF, CRLF or (in a file whose first line ends so) a bare CR; a CR inside a line of an LF file ends nothing', () => {
    const want = ['1:A:1', '2:B:23', '4:C:4'];
    for (const eol of ['\n', '\r\n', '\r']) {
      const text = `A:1${eol}B:2${eol} 3${eol}C:4${eol}`;
      for (const size of [1, 2, 4, 1000]) expect(both(text, size), JSON.stringify(eol)).toEqual([want, want]);
    }
    // A title with a CR in it cannot start a new line (an injected BEGIN:VEVENT) in a file whose lines end with LF.
    expect(both('A:1\r\nSUMMARY:x\rBEGIN:VEVENT\r\nEND:Y\r\n', 5)[0]).toEqual(['1:A:1', '2:SUMMARY:x\rBEGIN:VEVENT', '3:END:Y']);
    // The first line's CR as the last byte of a chunk: the next chunk's LF makes it CRLF.
    expect(both('A:1\r\nB:2\rC\r\n', 4)).toEqual([
      ['1:A:1', '2:B:2\rC'],
      ['1:A:1', '2:B:2\rC'],
    ]);
    // … and anything else after it makes the file one of bare CRs (where an LF is only a character).
    expect(both('A:1\rB:2\r', 4)).toEqual([
      ['1:A:1', '2:B:2'],
      ['1:A:1', '2:B:2'],
    ]);
  });

  it('read a 10 MB line, and a file of nothing but folds, as one line each', () => {
    const long = `DESCRIPTION:${'x'.repeat(10 * 1024 * 1024)}`;
    const got = [...contentLines(bytesSource(Buffer.from(`BEGIN:A\r\n${long}\r\nEND:A\r\n`), 64 * 1024).open())];
    expect(got.map((l) => [l.line, l.text.length])).toEqual([
      [1, 7],
      [2, long.length],
      [3, 5],
    ]);
    expect(got[1]!.text === long).toBe(true);
    const folds = ' ab\r\n'.repeat(200_000);
    const only = [...contentLines(textSource(folds, 7).open())];
    expect(only.length).toBe(1);
    expect(only[0]!.text).toBe(` ab${'ab'.repeat(199_999)}`);
    expect(lines(textSource('X:1\r\n \r\n \r\n', 2))).toEqual(['1:X:1']);
  });

  it('count the bytes read against the limit, whatever size the source said', () => {
    ICS_LIMITS.maxBytes = 100;
    const lying: IcsSource = { bytes: 10, open: () => [Buffer.alloc(60, 0x41), Buffer.alloc(60, 0x41)] };
    expect(() => [...contentLines(lying.open())]).toThrow('the file is 120 bytes');
  });
});

describe('an import read in pieces', () => {
  it('gives the same events, names and notes as the whole text, for every real-world file at small chunk sizes', () => {
    const dir = join(import.meta.dirname, '..', '..', 'fixtures', 'ics');
    const files = readdirSync(dir).filter((f) => /\.(ics|ifb)$/.test(f));
    expect(files.length).toBeGreaterThan(3);
    for (const f of files) {
      const text = readFileSync(join(dir, f), 'utf8');
      const whole = streamIcs(text);
      const want = { name: whole.name, prodid: whole.prodid, events: [...whole.events], warnings: whole.warnings };
      for (const size of [5, 333]) {
        const piecewise = streamIcs(bytesSource(readFileSync(join(dir, f)), size));
        expect({ name: piecewise.name, prodid: piecewise.prodid, events: [...piecewise.events], warnings: piecewise.warnings }, `${f} in chunks of ${size}`).toEqual(want);
      }
    }
  });

  it('reads a file from disk (zones after the events), and refuses one that changes between its passes, keeping nothing', () => {
    const event = (i: number) => `BEGIN:VEVENT\r\nUID:e${i}\r\nSUMMARY:Talk ${i}\r\nDTSTART;TZID=Own:20350101T1${i}0000\r\nEND:VEVENT\r\n`;
    const zone = 'BEGIN:VTIMEZONE\r\nTZID:Own\r\nBEGIN:STANDARD\r\nDTSTART:19700101T000000\r\nTZOFFSETFROM:+0300\r\nTZOFFSETTO:+0300\r\nEND:STANDARD\r\nEND:VTIMEZONE\r\n';
    const text = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\n${event(1)}${event(2)}${zone}END:VCALENDAR\r\n`;
    const file = join(tempDir(), 'cal.ics');
    writeFileSync(file, text);
    const { db } = tempDb();
    const r = importCalendar(db, userCtx(db), { fileName: 'cal.ics', text: '', source: fileSource(file, 16) });
    expect(r.ok && r.value.added).toBe(2);
    expect((db.prepare(`SELECT start_ms FROM events WHERE uid = 'e1'`).get() as { start_ms: number }).start_ms).toBe(Date.UTC(2035, 0, 1, 8));

    // The events' pass sees a different file (saved again meanwhile): refused in words, nothing kept.
    const { db: other } = tempDb();
    const before = snapshot(other);
    let opened = 0;
    const changing: IcsSource = { bytes: text.length, open: () => [opened++ === 0 ? text : `BEGIN:VCALENDAR\r\nEND:VCALENDAR\r\nBEGIN:VCALENDAR\r\n${event(3)}END:VCALENDAR\r\n`] };
    const failed = importCalendar(other, userCtx(other), { fileName: 'cal.ics', text: '', source: changing });
    expect(failed).toMatchObject({ ok: false, error: 'the file changed while it was read' });
    expect(snapshot(other)).toEqual(before);
  });
});
