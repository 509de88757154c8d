// A calendar file over the import limit is refused in the same words whether the CLI sees its size on disk
// (before reading it) or the import counts its bytes (src-main/core/calendar/ics-text.ts icsTooLarge).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { importCalendar } from '../../../src-main/core';
import { ICS_LIMITS } from '../../../src-main/core/calendar/ics-text';
import { icsFile } from '../../../src-main/cli/commands/calendar';
import { CliFailure } from '../../../src-main/cli/context';
import { tempDb, tempDir, userCtx } from '../../support/db';

const saved = ICS_LIMITS.maxBytes;
afterEach(() => {
  ICS_LIMITS.maxBytes = saved;
});

describe('a calendar file over the limit', () => {
  it('is refused by the CLI from its size on disk and by the import, in one wording', () => {
    ICS_LIMITS.maxBytes = 1_000;
    const text = `BEGIN:VCALENDAR\r\nVERSION:2.0\r\nX-PAD:${'x'.repeat(1_500)}\r\nEND:VCALENDAR\r\n`;
    const file = join(tempDir(), 'big.ics');
    writeFileSync(file, text);
    const bytes = Buffer.byteLength(text);

    let cli: unknown;
    try {
      icsFile(file);
    } catch (e) {
      cli = e;
    }
    expect(cli).toBeInstanceOf(CliFailure);
    const { db } = tempDb();
    const core = importCalendar(db, userCtx(db), { fileName: 'big.ics', text });
    expect(core.ok).toBe(false);
    if (core.ok) return;
    expect(core.error).toBe(`the file is ${bytes.toLocaleString('en')} bytes`);
    expect((cli as CliFailure).error).toBe(`${file} is ${bytes.toLocaleString('en')} bytes`);
    expect((cli as CliFailure).hint).toBe(core.hint);
    expect(core.hint).toBe('import files of at most 1,000 bytes; split the calendar');
    // Under the limit, the CLI reads the file as it is (a chunk at a time, each good until the next is read).
    ICS_LIMITS.maxBytes = saved;
    const source = icsFile(file);
    expect(source.bytes).toBe(bytes);
    let read = '';
    for (const chunk of source.open()) read += Buffer.from(chunk as Uint8Array).toString('latin1');
    expect(read).toBe(text);
  });
});
