/**
 * Changing an event's time by hand, from its details: Start and End as the plan card has them, saved
 * through `events.move` (one undoable request, Undo on its notice). A plan's block moved this way is
 * pinned by the core in the same action, so a re-plan keeps it where the user put it. Only events of
 * the user's own calendar that are single, timed and not cancelled can be moved here.
 */
import { useId, useState, type FormEvent } from 'react';
import { problemLine } from '../../lib/problem';
import { useApp } from '../../store/react';
import { localInputToIso, parseEventTime, toLocalInput } from './layout';
import type { CalEvent } from './model';
import { FieldError } from '../../ui/FieldError';

export function EventTime({ event: e }: { event: CalEvent }) {
  const [editing, setEditing] = useState(false);
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const moveEventTime = useApp((s) => s.moveEventTime);
  const errorId = useId();
  if (e.readOnly || e.recurring || e.cancelled || e.allDay) return null;

  const open = () => {
    setStart(toLocalInput(e.start));
    setEnd(toLocalInput(e.end));
    setProblem(null);
    setEditing(true);
  };
  const save = async (ev: FormEvent) => {
    ev.preventDefault();
    const s = localInputToIso(start);
    const en = localInputToIso(end);
    if (s === null || en === null) return setProblem(`enter the ${s === null ? 'start' : 'end'}'s date and time`);
    if (parseEventTime(en) <= parseEventTime(s)) return setProblem('the end must be after the start');
    setBusy(true);
    const p = await moveEventTime(e, s, en);
    setBusy(false);
    if (p) return setProblem(problemLine(p));
    setEditing(false);
  };

  if (!editing)
    return (
      <button type="button" className="btn small" onClick={open}>
        Change time
      </button>
    );
  return (
    <form className="event-time" aria-label={`Change the time of ${e.title}`} onSubmit={(ev) => void save(ev)}>
      <label>
        <span>Start</span>
        <input className="input" type="datetime-local" value={start} aria-describedby={problem ? errorId : undefined} onChange={(ev) => setStart(ev.target.value)} />
      </label>
      <label>
        <span>End</span>
        <input className="input" type="datetime-local" value={end} aria-describedby={problem ? errorId : undefined} onChange={(ev) => setEnd(ev.target.value)} />
      </label>
      <div className="row wrap">
        <button type="submit" className="btn primary small" disabled={busy}>
          Save time
        </button>
        <button type="button" className="btn small" disabled={busy} onClick={() => setEditing(false)}>
          Cancel
        </button>
      </div>
      <FieldError id={errorId} problem={problem} />
    </form>
  );
}
