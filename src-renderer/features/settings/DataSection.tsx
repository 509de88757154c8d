/**
 * Settings → Your data: export, backups, restore (a backup or JSON export replaces the database), import from Todoist (pick a CSV export or backup ZIP, see what it would create,
 * then import: one undoable entry in Actions), and backups (when the last one was made, "Back up now").
 */
import { useEffect, useId, useRef, useState, type RefObject } from 'react';
import type { Problem } from '../../lib/problem';
import { downloadText } from '../../lib/download';
import { dateTimeText } from '../../lib/when';
import { useApp } from '../../store/react';
import { ProblemAlert } from '../../ui/common';
import { type Outcome, type Restored, type TodoistImported, type TodoistPreview, type TodoistUpload } from './transfer-slice';
import '../../styles/data-md.css';

const when = dateTimeText;
const size = (bytes: number): string => (bytes < 1048576 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1048576).toFixed(1)} MB`);

export function DataSection() {
  return (
    <section aria-labelledby="set-data" className="data-md">
      <h2 id="set-data">Your data</h2>
      <ExportPart />
      <BackupPart />
      <RestorePart />
      <ImportPart />
    </section>
  );
}

function ExportPart() {
  const exportData = useApp((s) => s.exportData);
  const [busy, setBusy] = useState(false);
  const run = (format: 'json' | 'markdown') => {
    setBusy(true);
    void exportData(format).then((file) => {
      setBusy(false);
      if (file) downloadText(file.filename, file.mimeType, file.content);
    });
  };
  return (
    <div className="data-md-part" role="group" aria-labelledby="set-export">
      <h3 id="set-export">Export</h3>
      <p className="muted">
        Everything — projects, tasks, lists, calendars, conversations — as one file: JSON, which <code>tidy import tidy</code> reads back, or
        Markdown to read. Restore (below) reads either back.
      </p>
      <div className="data-md-row">
        <button type="button" className="btn small" disabled={busy} onClick={() => run('json')}>
          Export as JSON
        </button>
        <button type="button" className="btn small" disabled={busy} onClick={() => run('markdown')}>
          Export as Markdown
        </button>
      </div>
    </div>
  );
}

function BackupPart() {
  const last = useApp((s) => s.lastBackup);
  const backingUp = useApp((s) => s.backingUp);
  const load = useApp((s) => s.loadLastBackup);
  const backUpNow = useApp((s) => s.backUpNow);
  useEffect(() => void load(), [load]);
  return (
    <div className="data-md-part" role="group" aria-labelledby="set-backups">
      <h3 id="set-backups">Backups</h3>
      <p className="muted">Tidy makes a checked copy of its database every day (7 daily and 4 weekly are kept), and before every import.</p>
      <div className="data-md-row">
        <p aria-live="polite">
          {last.problem ? (
            <span className="data-md-error">Could not read the backups folder: {last.problem.message}</span>
          ) : last.value ? (
            <>
              Last backup: <time dateTime={last.value.at}>{when(last.value.at)}</time> <span className="muted">({size(last.value.bytes)})</span>
            </>
          ) : last.loading ? (
            'Looking for backups…'
          ) : (
            'No backup yet.'
          )}
        </p>
        <button type="button" className="btn" disabled={backingUp} onClick={() => void backUpNow()}>
          {backingUp ? 'Backing up…' : 'Back up now'}
        </button>
      </div>
      {last.value && (
        <p className="muted data-md-path" title={last.value.path}>
          {last.value.path}
        </p>
      )}
    </div>
  );
}

type RestoreStep =
  | { kind: 'none' }
  | { kind: 'busy'; what: string }
  | { kind: 'confirm'; upload: string; name: string }
  | { kind: 'done'; name: string; result: Restored }
  | { kind: 'problem'; problem: Problem };

/** The steps every file picker has: the file on its way (or the part's next request), and a refusal. */
type PickStep = { kind: 'busy'; what: string } | { kind: 'problem'; problem: Problem };

/** Sends a picked file to the host, saying so meanwhile; its upload id, or null (the step then holds the refusal). */
async function sendPicked(file: File, uploadFile: (file: File) => Promise<Outcome<string>>, setStep: (step: PickStep) => void): Promise<string | null> {
  setStep({ kind: 'busy', what: `Reading ${file.name}…` });
  const sent = await uploadFile(file);
  if (!sent.ok) setStep({ kind: 'problem', problem: sent.problem });
  return sent.ok ? sent.value : null;
}

/** A file field of a part: its label, what is under way (a status) and the refusal, under it. `input` lets the part empty it. */
function FilePicker({ label, accept, step, onFile, input }: { label: string; accept: string; step: RestoreStep | ImportStep; onFile(file: File): void; input: RefObject<HTMLInputElement | null> }) {
  const id = useId();
  return (
    <>
      <div className="data-md-row">
        <label htmlFor={id}>{label}</label>
        <input
          id={id}
          ref={input}
          type="file"
          accept={accept}
          onChange={(e) => {
            const file = e.currentTarget.files?.[0];
            if (file) onFile(file);
          }}
          disabled={step.kind === 'busy'}
        />
      </div>
      {step.kind === 'busy' && (
        <p role="status" className="muted">
          {step.what}
        </p>
      )}
      {step.kind === 'problem' && <ProblemAlert problem={step.problem} />}
    </>
  );
}

/**
 * Restore: a backup (.db) or a JSON export replaces the database, after a confirmation. The host checks the
 * file first (a bad one changes nothing) and keeps the current database aside; every view then reloads.
 */
function RestorePart() {
  const uploadFile = useApp((s) => s.uploadFile);
  const restoreData = useApp((s) => s.restoreData);
  const [step, setStep] = useState<RestoreStep>({ kind: 'none' });
  const input = useRef<HTMLInputElement>(null);
  const reset = () => {
    if (input.current) input.current.value = '';
  };

  const pick = async (file: File) => {
    const upload = await sendPicked(file, uploadFile, setStep);
    if (upload === null) return reset();
    setStep({ kind: 'confirm', upload, name: file.name });
  };

  const run = async (upload: string, name: string) => {
    setStep({ kind: 'busy', what: `Restoring from ${name}…` });
    const r = await restoreData(upload);
    setStep(r.ok ? { kind: 'done', name, result: r.value } : { kind: 'problem', problem: r.problem });
    reset();
  };

  return (
    <div className="data-md-part" role="group" aria-labelledby="set-restore">
      <h3 id="set-restore">Restore</h3>
      <p className="muted">
        Replace everything with a backup (a <code>.db</code> file from the backups folder) or a JSON export. The database it replaces is kept in the backups
        folder. MCP servers in the restored file stay off until you switch them on. Other Tidy programs using this database (<code>tidy serve</code>,{' '}
        <code>tidy mcp</code>) must be closed first.
      </p>
      <FilePicker label="Backup or JSON export to restore" accept=".db,.json,application/json,application/vnd.sqlite3" step={step} onFile={(f) => void pick(f)} input={input} />
      {step.kind === 'confirm' && (
        <div className="data-md-preview" role="region" aria-label="Restore">
          <p>
            <strong>Replace everything with {step.name}?</strong> Changes made since it was saved are replaced; the current database is kept aside.
          </p>
          <div className="actions row">
            <button type="button" className="btn danger" onClick={() => void run(step.upload, step.name)}>
              Restore from {step.name}
            </button>
            <button type="button" className="btn" onClick={() => (setStep({ kind: 'none' }), reset())}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {step.kind === 'done' && (
        <div className="status" role="status">
          <strong>Restored from {step.name}.</strong>
          <p className="muted data-md-path" title={step.result.keptAt ?? undefined}>
            {step.result.keptAt ? `The database it replaced is kept at ${step.result.keptAt}` : 'There was no database before.'}
          </p>
        </div>
      )}
    </div>
  );
}

type ImportStep = { kind: 'none' } | { kind: 'busy'; what: string } | { kind: 'preview'; upload: TodoistUpload; preview: TodoistPreview } | { kind: 'done'; result: TodoistImported } | { kind: 'problem'; problem: Problem };

function ImportPart() {
  const uploadFile = useApp((s) => s.uploadFile);
  const previewTodoist = useApp((s) => s.previewTodoist);
  const importTodoist = useApp((s) => s.importTodoist);
  const undoRequest = useApp((s) => s.undoRequest);
  const [step, setStep] = useState<ImportStep>({ kind: 'none' });
  const input = useRef<HTMLInputElement>(null);

  const pick = async (file: File) => {
    const sent = await sendPicked(file, uploadFile, setStep);
    if (sent === null) return;
    const upload = { upload: sent };
    const r = await previewTodoist(upload);
    setStep(r.ok ? { kind: 'preview', upload, preview: r.value } : { kind: 'problem', problem: r.problem });
  };

  const run = async (upload: TodoistUpload) => {
    setStep({ kind: 'busy', what: 'Importing…' });
    const r = await importTodoist(upload);
    setStep(r.ok ? { kind: 'done', result: r.value } : { kind: 'problem', problem: r.problem });
    if (input.current) input.current.value = '';
  };

  return (
    <div className="data-md-part" role="group" aria-labelledby="set-import">
      <h3 id="set-import">Import from Todoist</h3>
      <p className="muted">
        A project exported as CSV (Todoist: project menu → Export as a template) becomes a project of that name; a backup ZIP (Todoist: Settings → Backups) becomes one project per file. You see what would be created before anything is.
      </p>
      <FilePicker label="Todoist CSV or backup ZIP" accept=".csv,.zip,text/csv,application/zip" step={step} onFile={(f) => void pick(f)} input={input} />
      {step.kind === 'preview' && (
        <div className="data-md-preview" role="region" aria-label="Import preview">
          <p>
            <strong>
              {step.preview.totals.tasks} task{step.preview.totals.tasks === 1 ? '' : 's'} into {step.preview.totals.projects} project{step.preview.totals.projects === 1 ? '' : 's'}
            </strong>
            {step.preview.totals.newProjects > 0 && ` (${step.preview.totals.newProjects} new)`}
          </p>
          <ul className="data-md-projects">
            {step.preview.projects.map((p) => (
              <li key={p.name}>
                <span className="data-md-name">{p.name}</span> <span className="muted">{p.isNew ? 'new project' : 'existing project'}</span> — {p.tasks} task{p.tasks === 1 ? '' : 's'}
                {p.sample.length > 0 && (
                  <ul className="data-md-sample">
                    {p.sample.map((t, i) => (
                      <li key={i}>{t}</li>
                    ))}
                    {p.tasks > p.sample.length && <li className="muted">and {p.tasks - p.sample.length} more</li>}
                  </ul>
                )}
              </li>
            ))}
          </ul>
          {step.preview.lines.slice(step.preview.projects.length).map((line) => (
            <p key={line} className="muted">
              {line}
            </p>
          ))}
          <div className="actions row">
            <button type="button" className="btn primary" onClick={() => void run(step.upload)} disabled={step.preview.totals.tasks === 0}>
              Import {step.preview.totals.tasks} task{step.preview.totals.tasks === 1 ? '' : 's'}
            </button>
            <button type="button" className="btn" onClick={() => (setStep({ kind: 'none' }), input.current && (input.current.value = ''))}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {step.kind === 'done' && (
        <div className="status" role="status">
          <strong>
            Imported {step.result.totals.tasks} task{step.result.totals.tasks === 1 ? '' : 's'} into {step.result.totals.projects} project{step.result.totals.projects === 1 ? '' : 's'}.
          </strong>
          <p className="muted">It is one entry in Actions. A backup from just before was made.</p>
          <div className="actions row">
            <button type="button" className="btn small" onClick={() => void undoRequest(step.result.requestId).then(() => setStep({ kind: 'none' }))}>
              Undo the import
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
