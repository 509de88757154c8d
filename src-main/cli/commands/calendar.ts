import { statSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { getActionRow } from '../../core/actions/log';
import { ICS_LIMITS, icsTooLarge } from '../../core/calendar/ics-text';
import { fileSource, type IcsSource } from '../../core/calendar/ics-lines';
import { exportIcs, inviteIcs } from '../../core/calendar/ics-export';
import { localZone } from '../../core/calendar/zones';
import { exportableEvents, listCalendars, listEvents, parseInstant } from '../../core/domain/calendar';
import { importCalendar, removeCalendar, renameCalendar } from '../../core/domain/calendars';
import { shortTime } from '../../core/domain/calendar';
import { addDays, wallAt, wallToUtc } from '../../core/calendar/zones';
import type { CalendarEvent } from '../../../src-shared/calendar';
import { change, CliFailure, must, usage, type Cli } from '../context';

/** "Mon 2026-11-30 10:00–10:30", or the date for an all-day event. */
function when(e: CalendarEvent, zone: string): string {
  const s = Date.parse(e.start);
  const end = Date.parse(e.end);
  if (e.allDay) return `${shortTime(s, zone).slice(0, 14)} all day`;
  const endText = shortTime(end, zone);
  return `${shortTime(s, zone)}–${endText.slice(4, 14) === shortTime(s, zone).slice(4, 14) ? endText.slice(-5) : endText}`;
}

/** A calendar file to import, read in pieces as the import goes; refused by its size on disk before any of it is read. */
export function icsFile(path: string): IcsSource {
  let size: number;
  try {
    size = statSync(path).size;
  } catch {
    throw new CliFailure(`cannot read ${path}`, 'check the path of the .ics file');
  }
  if (size > ICS_LIMITS.maxBytes) {
    const { error, hint } = icsTooLarge(size, path);
    throw new CliFailure(error, hint);
  }
  return fileSource(path);
}

/** The calendar by hand: `tidy events` and `tidy cal import|list|remove|rename|export`. Changes are logged and undoable. */
export function registerCalendarCommands(program: Command, cli: Cli): void {
  program
    .command('events')
    .description('the calendar, all calendars merged (default: today and the next 6 days)')
    .option('--from <date>', 'start: YYYY-MM-DD or an ISO date-time (default: today)')
    .option('--to <date>', 'end, exclusive (default: 7 days after --from)')
    .option('--json', 'print [{id, title, start, end, allDay, calendar, location, attendees}]')
    .action((o: { from?: string; to?: string; json?: boolean }) => {
      const zone = localZone();
      const today = wallAt(Date.now(), zone);
      const fromMs = o.from ? parseInstant(o.from, zone, '--from') : wallToUtc({ ...today, h: 0, mi: 0, s: 0 }, zone);
      const fromWall = wallAt(fromMs, zone);
      const toMs = o.to
        ? parseInstant(o.to, zone, '--to')
        : wallToUtc(addDays({ ...fromWall, h: 0, mi: 0, s: 0 }, 7), zone);
      if (toMs <= fromMs) throw usage('--to is not after --from', 'give an end after the start');
      const { events, truncated } = listEvents(cli.db(), { fromMs, toMs, zone });
      if (o.json) {
        cli.json(events.map((e) => ({ id: e.id, title: e.title, start: e.start, end: e.end, allDay: e.allDay, calendar: e.calendar, location: e.location, attendees: e.attendees })));
        return;
      }
      if (events.length === 0) cli.out('No events.');
      for (const e of events) {
        const extras = [e.location ?? '', e.attendees.length ? `with ${e.attendees.slice(0, 5).join(', ')}${e.attendees.length > 5 ? '…' : ''}` : '', e.taskId ? `task ${e.taskId}` : '']
          .filter(Boolean)
          .join('; ');
        cli.out(`${when(e, zone)}  ${e.title}  [${e.calendar}]${extras ? `  (${extras})` : ''}  ${e.id}`);
      }
      if (truncated) cli.out(`(only the first ${events.length} shown; ask for a shorter range)`);
    });

  const cal = program.command('cal').description('calendars: import, list, remove, rename, export');

  cal
    .command('import')
    .description('import an .ics file as a read-only calendar (the same file again updates it)')
    .argument('<file>', 'the .ics file')
    .option('--person <name>', 'whose calendar it is: "Alice", "alice@example.com" or "Alice <alice@example.com>"')
    .action((file: string, o: { person?: string }) => {
      const source = icsFile(file);
      const db = cli.db();
      const r = importCalendar(db, cli.request(), { fileName: file, text: '', source, ...(o.person ? { person: o.person } : {}) });
      const report = must(r);
      if (!r.ok) return;
      cli.out(`${getActionRow(db, r.actionId)?.summary ?? 'Imported'} (${r.actionId}; undo with: tidy undo ${r.actionId})`);
      for (const w of report.warnings) cli.out(`  note: ${w}`);
    });

  cal
    .command('list')
    .description('the calendars')
    .option('--json', 'print [{id, name, kind, personName, personEmail, colour, readOnly, source, events, updatedAt}]')
    .action((o: { json?: boolean }) => {
      const calendars = listCalendars(cli.db());
      if (o.json) return cli.json(calendars);
      for (const c of calendars) {
        const person = c.personName || c.personEmail ? `  person: ${[c.personName, c.personEmail ? `<${c.personEmail}>` : ''].filter(Boolean).join(' ')}` : '';
        cli.out(`${c.id.padEnd(9)} ${c.name}  (${c.events} event${c.events === 1 ? '' : 's'}${c.readOnly ? `, read-only, from ${c.source}` : ''})${person}`);
      }
    });

  cal
    .command('remove')
    .description('remove an imported calendar (undo brings it back)')
    .argument('<calendar>', 'calendar id or name')
    .action((ref: string) => change(cli, (db, ctx) => removeCalendar(db, ctx, { calendar: ref })));

  cal
    .command('rename')
    .description('rename a calendar (undo brings the old name back)')
    .argument('<calendar>', 'calendar id or name')
    .argument('<name...>', 'the new name')
    .action((ref: string, name: string[]) => change(cli, (db, ctx) => renameCalendar(db, ctx, { calendar: ref, name: name.join(' ') })));

  cal
    .command('export')
    .description('your own calendar as an .ics file; --invite EVENT: that booking as an invitation (METHOD:REQUEST)')
    .option('--out <file>', 'write to this file (default: standard output)')
    .option('--invite <event>', 'one event as an invitation to its attendees')
    .action((o: { out?: string; invite?: string }) => {
      const db = cli.db();
      let text: string;
      if (o.invite) {
        const [event] = exportableEvents(db, { event: o.invite, includeCancelled: true });
        if (!event!.attendees.some((a) => a.email))
          throw new CliFailure(`event ${event!.id} has no attendee with an email address`, 'an invitation goes to attendees by email; book it with attendees whose email is known');
        text = inviteIcs(event!);
      } else text = exportIcs('Personal', exportableEvents(db));
      if (!o.out) {
        process.stdout.write(text);
        return;
      }
      writeFileSync(o.out, text);
      cli.out(`Wrote ${o.out}`);
    });
}
