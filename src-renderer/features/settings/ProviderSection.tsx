/** The model provider: profile, endpoint, model, the connection test, the API key (in the keychain, or for this session only when there is none). */
import { useEffect, useId, useState } from 'react';
import { PRESETS } from '../../../src-shared/providers';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert } from '../../ui/common';
import { Setting, useField } from './fields';
import { ProfileList } from './ProfileList';
import { FieldError } from '../../ui/FieldError';

export function ProviderSection() {
  const providers = useApp((s) => s.providers);
  const keyStatus = useApp((s) => s.keyStatus);
  const keyProblem = useApp((s) => s.keyProblem);
  const connection = useApp((s) => s.connection);
  const switchProfile = useApp((s) => s.switchProfile);
  const updateProfile = useApp((s) => s.updateProfile);
  const setKey = useApp((s) => s.setKey);
  const clearKey = useApp((s) => s.clearKey);
  const testConnection = useApp((s) => s.testConnection);
  const clearSettingError = useApp((s) => s.clearSettingError);
  const profileField = useField('profile');
  const urlField = useField('profile.baseUrl');
  const modelField = useField('profile.model');
  const ids = { profile: useId(), url: useId(), model: useId(), key: useId(), models: useId() };

  const value = providers.value;
  const active = value?.profiles.find((p) => p.id === value.active) ?? null;
  const [url, setUrl] = useState(active?.baseUrl ?? '');
  const [model, setModel] = useState(active?.model ?? '');
  const [key, setKeyText] = useState('');
  useEffect(() => {
    setUrl(active?.baseUrl ?? '');
    setModel(active?.model ?? '');
  }, [active?.id, active?.baseUrl, active?.model]);

  if (providers.problem) return <ProblemAlert problem={providers.problem} title="Could not load the provider profiles" />;
  if (!value || !active) return <Loading what="providers" />;
  const preset = PRESETS[active.preset];
  // Back to the stored value: nothing to save, and no error left standing.
  const saveUrl = () => (url === active.baseUrl ? clearSettingError('profile.baseUrl') : void updateProfile(active.id, { baseUrl: url }));
  const saveModel = () => (model === active.model ? clearSettingError('profile.model') : void updateProfile(active.id, { model }));
  const report = connection.report;
  const status = keyStatus.value;
  // The key leaves the field once it is kept; refused, it stays (masked) to try again or keep for the session.
  const saveKey = (keep?: 'session') => {
    const typed = key;
    void setKey(typed, keep).then((saved) => {
      if (saved) setKeyText((k) => (k === typed ? '' : k));
    });
  };

  return (
    <section aria-labelledby="set-provider">
      <h2 id="set-provider">Model provider</h2>
      <Setting id={ids.profile} label="Provider profile" help={preset.help} {...profileField}>
        <select id={ids.profile} className="input grow" value={active.id} onChange={(e) => void switchProfile(e.target.value)}>
          {value.profiles.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id} — {PRESETS[p.preset].label}
            </option>
          ))}
        </select>
      </Setting>
      <Setting id={ids.url} label="Endpoint (base URL)" {...urlField}>
        <input
          id={ids.url}
          className="input grow"
          value={url}
          spellCheck={false}
          onChange={(e) => setUrl(e.target.value)}
          onBlur={() => saveUrl()}
          onKeyDown={(e) => e.key === 'Enter' && saveUrl()}
          {...urlField.invalid}
        />
      </Setting>
      <Setting id={ids.model} label="Model" {...modelField}>
        <input
          id={ids.model}
          className="input grow"
          value={model}
          list={ids.models}
          spellCheck={false}
          onChange={(e) => setModel(e.target.value)}
          onBlur={() => saveModel()}
          onKeyDown={(e) => e.key === 'Enter' && saveModel()}
          {...modelField.invalid}
        />
        <datalist id={ids.models}>
          {report?.models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
        <button type="button" className="btn" onClick={() => void testConnection()} disabled={connection.testing}>
          {connection.testing ? 'Testing…' : 'Test connection'}
        </button>
      </Setting>
      {(report || connection.problem) && (
        <div className={`report ${report?.ok ? 'ok' : 'bad'}`} role="status" aria-label="Connection test result">
          {report ? (
            <>
              <strong>{report.ok ? `Connected in ${Math.round(report.elapsedMs)} ms` : 'Connection failed'}</strong> — {report.message}
              {report.warning && <p>{report.warning}</p>}
              {report.context && !report.context.tooSmall && <p className="muted">{sentence(report.context.note)}</p>}
              {report.hint && <p className="muted">{report.hint}</p>}
            </>
          ) : (
            connection.problem && (
              <>
                <strong>{connection.problem.message}</strong> <span className="muted">{connection.problem.hint}</span>
              </>
            )
          )}
        </div>
      )}
      <form
        className="setting"
        onSubmit={(e) => {
          e.preventDefault();
          saveKey();
        }}
      >
        <label htmlFor={ids.key}>API key</label>
        <div className="row">
          <input
            id={ids.key}
            className="input grow"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder={status?.stored ? 'A key is set — type a new one to replace it' : 'Paste the key'}
            value={key}
            onChange={(e) => setKeyText(e.target.value)}
          />
          <button type="submit" className="btn" disabled={!key}>
            Save key
          </button>
          <button type="button" className="btn" disabled={!status?.stored && status?.storage !== 'session'} onClick={() => void clearKey()}>
            Clear key
          </button>
        </div>
        <p className="help" role="status" aria-label="Key status">
          {status === null
            ? 'Checking the keychain…'
            : status.storage === 'session'
              ? 'A key is set for this profile, kept for this session only, in memory: Tidy forgets it when it quits.'
              : status.storage === 'safe_storage'
                ? 'A key is set for this profile (kept encrypted by the OS, in safeStorage).'
                : status.stored
                  ? 'A key is set for this profile (kept in the OS keychain).'
                  : status.source === 'env'
                ? 'No key stored; OPENAI_API_KEY from the environment is used.'
                : status.required
                  ? 'No key set. This provider needs one.'
                  : 'No key set. This provider does not need one.'}
          {status?.problem ? ` ${status.problem.error} — ${status.problem.hint}` : ''}
        </p>
        <FieldError problem={keyProblem && `The key was not saved: ${keyProblem.message} — ${keyProblem.hint}.`} />
        {keyProblem?.reason === 'keychain_unavailable' && key && (
          <>
            <p className="help">Or keep it in memory for this session only: it is never written anywhere, and Tidy forgets it when it quits.</p>
            <div className="help">
              <button type="button" className="btn" onClick={() => saveKey('session')}>
                Keep it for this session only
              </button>
            </div>
          </>
        )}
      </form>
      <ProfileList />
    </section>
  );
}

/** "context window …" → "Context window ….": a line of the report as a sentence. */
const sentence = (line: string): string => `${line.charAt(0).toUpperCase()}${line.slice(1)}${/[.!?]$/.test(line) ? '' : '.'}`;
