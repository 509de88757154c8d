/**
 * Settings → Sync: where this device syncs to, as what name, when it last synced, what waits, the other
 * devices, the last error with what to do, and Sync now. Without a key (none in the OS keychain) a
 * passphrase field unlocks sync for this session (the key is held in memory by the host, never stored in
 * the database). While sync is off: how to set it up (from a terminal).
 */
import { useId, useState } from 'react';
import { toProblem, type Problem } from '../../lib/problem';
import { dateTimeText, shortTime } from '../../lib/when';
import { ProblemAlert } from '../../ui/common';
import { syncNow, unlockSync, useSync } from './use-sync';
import '../../styles/sync.css';

export function SyncSection() {
  const s = useSync();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [passphrase, setPassphrase] = useState('');
  const [password, setPassword] = useState('');
  const passId = useId();
  const pwId = useId();
  if (!s) return null;
  const run = (f: () => Promise<unknown>) => {
    setBusy(true);
    setProblem(null);
    void f()
      .then(
        () => setPassphrase(''),
        (e: unknown) => setProblem(toProblem(e)),
      )
      .finally(() => setBusy(false));
  };
  return (
    <section aria-labelledby="set-sync" className="sync-set">
      <h2 id="set-sync">Sync</h2>
      {!s.on ? (
        <>
          <p>Sync is off on this device.</p>
          <p className="muted">
            Tidy syncs your devices through a folder you already sync (Syncthing, Dropbox, iCloud Drive, a network share) or a WebDAV server such as Nextcloud,
            end-to-end encrypted with a passphrase. Set it up in a terminal:
          </p>
          <pre className="sync-cmd">
            <code>{s.setup}</code>
          </pre>
          <p className="muted">A lost passphrase cannot be recovered.</p>
        </>
      ) : (
        <>
          <dl className="sync-facts">
            <dt>Syncs with</dt>
            <dd>
              {s.kind === 'folder' ? 'Folder ' : 'WebDAV '}
              <code>{s.target}</code>
              {s.user ? ` (user ${s.user})` : ''}
            </dd>
            <dt>This device</dt>
            <dd>{s.name}</dd>
            <dt>Last synced</dt>
            <dd>{s.running ? 'Syncing…' : s.lastSyncedAt ? <time dateTime={s.lastSyncedAt}>{dateTimeText(s.lastSyncedAt)}</time> : 'Never'}</dd>
            <dt>Waiting to be sent</dt>
            <dd>
              {s.pending.toLocaleString()} change{s.pending === 1 ? '' : 's'}
              {s.waitingText ? `; ${s.waitingText}` : ''}
            </dd>
          </dl>
          {s.renamed.length > 0 && (
            <>
              <h3 id="set-sync-renamed">Settled by sync</h3>
              <ul className="sync-renamed" aria-labelledby="set-sync-renamed">
                {s.renamed.map((line, i) => (
                  <li key={i}>{line}</li>
                ))}
              </ul>
            </>
          )}
          {s.locked && (
            <form
              className="sync-unlock"
              onSubmit={(e) => {
                e.preventDefault();
                if (passphrase) run(() => unlockSync(passphrase, password || undefined));
              }}
            >
              <p role="status">The sync key is not in this computer’s keychain: enter the passphrase to sync during this session (it is not stored).</p>
              <label htmlFor={passId}>Sync passphrase</label>
              <input id={passId} type="password" autoComplete="off" value={passphrase} onChange={(e) => setPassphrase(e.target.value)} />
              {s.kind === 'webdav' && s.user && (
                <>
                  <label htmlFor={pwId}>WebDAV password</label>
                  <input id={pwId} type="password" autoComplete="off" value={password} onChange={(e) => setPassword(e.target.value)} />
                </>
              )}
              <button type="submit" className="btn small" disabled={busy || !passphrase}>
                Unlock
              </button>
            </form>
          )}
          {s.error && !problem && <ProblemAlert problem={{ message: s.error.text, hint: s.error.hint, code: 'failed' }} title="The last sync failed" />}
          {problem && <ProblemAlert problem={problem} />}
          <div className="sync-row">
            <button type="button" className="btn small" disabled={busy || s.running || s.locked} onClick={() => run(syncNow)}>
              Sync now
            </button>
          </div>
          <h3 id="set-sync-devices">Devices</h3>
          <table className="sync-devices" aria-labelledby="set-sync-devices">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Last seen</th>
              </tr>
            </thead>
            <tbody>
              {s.devices.map((d, i) => (
                <tr key={i}>
                  <td>
                    {d.name}
                    {d.self ? ' (this device)' : ''}
                  </td>
                  <td>{d.self ? 'now' : d.lastSeen ? <time dateTime={d.lastSeen}>{shortTime(d.lastSeen)}</time> : 'not yet'}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p className="muted">
            Set up or stop in a terminal: <code>tidy sync devices</code>, <code>tidy sync off</code>. A lost passphrase cannot be recovered.
          </p>
        </>
      )}
    </section>
  );
}

/** The sidebar's line while sync is on: "Synced 10:02", "Sync: 3 pending", "Sync error · Open". */
export function SyncStatusLine({ open }: { open: () => void }) {
  const s = useSync();
  if (!s?.on) return null;
  const text = s.running
    ? 'Syncing…'
    : s.locked
      ? 'Sync locked'
      : s.error
        ? 'Sync error'
        : s.pending > 0
          ? `Sync: ${s.pending.toLocaleString()} pending`
          : s.lastSyncedAt
            ? `Synced ${shortTime(s.lastSyncedAt)}`
            : 'Not synced yet';
  const bad = !s.running && (s.locked || s.error !== null);
  return (
    <p className={bad ? 'sync-line bad' : 'sync-line'} role="status" aria-label="Sync status" title={text}>
      <span className="sync-dot" aria-hidden="true">
        ●
      </span>{' '}
      <span className="nav-label">{text}</span>
      {bad && (
        <>
          {' · '}
          <button type="button" className="link" onClick={open}>
            Open
          </button>
        </>
      )}
    </p>
  );
}
