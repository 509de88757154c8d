/**
 * Settings: the model provider (profile, endpoint, model, test connection, API key), the seeds' sliders,
 * protocol, per-tool approvals and the quick-capture shortcut. Every field validates inline, with the
 * same schemas the main side uses.
 */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { PRESETS } from '../../src-shared/providers';
import { toolLabel } from '../lib/format';
import { rangeOf, type RangeKey } from '../store/settings';
import { useApp } from '../store/react';
import { Loading, ProblemAlert, ViewHead } from './common';

export function SettingsView() {
  const settings = useApp((s) => s.settings);
  const loadSettings = useApp((s) => s.loadSettings);
  const loadProviders = useApp((s) => s.loadProviders);
  const loadKeyStatus = useApp((s) => s.loadKeyStatus);
  useEffect(() => {
    void loadSettings();
    void loadProviders();
    void loadKeyStatus();
  }, [loadSettings, loadProviders, loadKeyStatus]);

  return (
    <>
      <ViewHead title="Settings" />
      <div className="view-body">
        {settings.problem && <ProblemAlert problem={settings.problem} title="Could not load the settings" />}
        {settings.value === null ? (
          settings.loading && <Loading what="settings" />
        ) : (
          <div className="settings">
            <ProviderSection />
            <section aria-labelledby="set-model">
              <h2 id="set-model">Model settings</h2>
              <Slider k="maxTokens" label="Max response tokens" help="The longest reply the model may write in one call." />
              <Slider k="historyLength" label="History length" help="Earlier messages of the conversation sent along with a request." />
              <Slider k="temperature" label="Temperature" help="Lower is steadier, higher more varied." />
              <Slider k="maxActions" label="Max actions" help="Tool calls a request may make before Tidy stops it." />
              <Slider k="timeLimitSec" label="Time limit" help="Seconds a request may take before Tidy stops it." />
            </section>
            <AgentSection />
            <ApprovalsSection />
            <ShortcutSection />
          </div>
        )}
      </div>
    </>
  );
}

/** One labelled setting row: the control, its help, its inline error, a quiet "Saved". */
function Setting({ id, label, help, error, errorId, saved, children }: { id: string; label: string; help?: ReactNode; error?: string | undefined; errorId: string; saved?: boolean; children: ReactNode }) {
  return (
    <div className="setting">
      <label htmlFor={id}>{label}</label>
      <div className="row">
        {children}
        {saved && !error && (
          <span className="muted" role="status">
            Saved
          </span>
        )}
      </div>
      {help && <p className="help">{help}</p>}
      {error && (
        <p className="field-error" id={errorId} role="alert">
          {error}
        </p>
      )}
    </div>
  );
}

function useField(key: string) {
  const error = useApp((s) => s.settingErrors[key]);
  const saved = useApp((s) => s.settingSaved === key);
  const errorId = useId();
  return { error, saved, errorId, invalid: error ? { 'aria-invalid': true as const, 'aria-describedby': errorId } : {} };
}

/** A setting with a range: a slider and a number field that follow each other; saved when let go. */
function Slider({ k, label, help }: { k: RangeKey; label: string; help: string }) {
  const value = useApp((s) => s.settings.value?.[k]);
  const saveSetting = useApp((s) => s.saveSetting);
  const { min, max, step } = rangeOf(k);
  const [draft, setDraft] = useState(String(value ?? ''));
  const id = useId();
  const labelId = useId();
  const field = useField(k);
  useEffect(() => setDraft(String(value ?? '')), [value]);

  const commit = (raw: string) => {
    if (raw === String(value)) return;
    const n = Number(raw);
    void saveSetting(k, raw.trim() !== '' && Number.isFinite(n) ? n : raw);
  };
  const inRange = Number(draft) >= min && Number(draft) <= max;
  return (
    <Setting id={id} label={label} help={`${help} From ${min.toLocaleString()} to ${max.toLocaleString()}.`} {...field}>
      <div className="slider grow">
        <span id={labelId} hidden>
          {label}
        </span>
        <input
          type="range"
          aria-labelledby={labelId}
          min={min}
          max={max}
          step={step}
          value={inRange ? Number(draft) : (value ?? min)}
          onChange={(e) => setDraft(e.target.value)}
          onPointerUp={(e) => commit(e.currentTarget.value)}
          onKeyUp={(e) => commit(e.currentTarget.value)}
          onBlur={(e) => commit(e.currentTarget.value)}
        />
        <input
          id={id}
          className="input"
          type="number"
          inputMode="decimal"
          min={min}
          max={max}
          step={step}
          value={draft}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={(e) => commit(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commit(e.currentTarget.value);
          }}
          {...field.invalid}
        />
      </div>
    </Setting>
  );
}

function ProviderSection() {
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
          const typed = key;
          // The key goes to the keychain and is not kept here, whatever the answer.
          setKeyText('');
          void setKey(typed);
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
          <button type="button" className="btn" disabled={!status?.stored} onClick={() => void clearKey()}>
            Clear key
          </button>
        </div>
        <p className="help" role="status" aria-label="Key status">
          {status === null
            ? 'Checking the keychain…'
            : status.stored
              ? 'A key is set for this profile (kept in the OS keychain).'
              : status.source === 'env'
                ? 'No key stored; OPENAI_API_KEY from the environment is used.'
                : status.required
                  ? 'No key set. This provider needs one.'
                  : 'No key set. This provider does not need one.'}
          {status?.problem ? ` ${status.problem.error} — ${status.problem.hint}` : ''}
        </p>
        {keyProblem && (
          <p className="field-error" role="alert">
            {keyProblem.message} — {keyProblem.hint}
          </p>
        )}
      </form>
    </section>
  );
}

function AgentSection() {
  const settings = useApp((s) => s.settings.value);
  const saveSetting = useApp((s) => s.saveSetting);
  const protocol = useField('protocol');
  const stream = useField('stream');
  const ids = { protocol: useId(), stream: useId() };
  if (!settings) return null;
  return (
    <section aria-labelledby="set-agent">
      <h2 id="set-agent">Agent</h2>
      <Setting id={ids.protocol} label="Protocol" help="Native tool calls, the json ReAct format for models without tool calling, or auto (native, falling back to json)." {...protocol}>
        <select id={ids.protocol} className="input" value={settings.protocol} onChange={(e) => void saveSetting('protocol', e.target.value)}>
          <option value="auto">Auto</option>
          <option value="native">Native tool calls</option>
          <option value="json">JSON (ReAct)</option>
        </select>
      </Setting>
      <Setting id={ids.stream} label="Stream answers" help="Show the answer as it is written." {...stream}>
        <input id={ids.stream} type="checkbox" checked={settings.stream} onChange={(e) => void saveSetting('stream', e.target.checked)} />
      </Setting>
    </section>
  );
}

function ApprovalsSection() {
  const approvals = useApp((s) => s.settings.value?.approvals);
  const agentTools = useApp((s) => s.tools);
  const loadTools = useApp((s) => s.loadTools);
  const saveSetting = useApp((s) => s.saveSetting);
  const errors = useApp((s) => s.settingErrors);
  useEffect(() => {
    void loadTools();
  }, [loadTools]);
  if (!approvals) return null;
  // The tools that change data, and any other the stored setting names.
  const described = new Map((agentTools.value ?? []).map((t) => [t.name, t.description]));
  const toolDefault = (name: string) => agentTools.value?.find((t) => t.name === name)?.approval ?? 'auto';
  const tools = [...new Set([...(agentTools.value ?? []).filter((t) => t.changes).map((t) => t.name), ...Object.keys(approvals)])];
  return (
    <section aria-labelledby="set-approvals">
      <h2 id="set-approvals">Approvals</h2>
      <p className="muted">Which changes wait for your OK. Read-only tools never ask. "Always allow" on an approval card sets a tool to run without asking.</p>
      {agentTools.problem && <p className="field-error">Could not list the tools: {agentTools.problem.message}</p>}
      <table className="approvals-table">
        <thead>
          <tr>
            <th scope="col">Tool</th>
            <th scope="col">Before it runs</th>
          </tr>
        </thead>
        <tbody>
          {tools.map((tool) => (
            <tr key={tool}>
              <th scope="row" style={{ fontWeight: 400 }} title={described.get(tool)}>
                {toolLabel(tool)}
              </th>
              <td>
                <select className="input" aria-label={`Approval for ${toolLabel(tool)}`} value={approvals[tool] ?? toolDefault(tool)} onChange={(e) => void saveSetting(`approvals.${tool}`, e.target.value)}>
                  <option value="ask">Ask me first</option>
                  <option value="auto">Run without asking</option>
                </select>
                {errors[`approvals.${tool}`] && <span className="field-error"> {errors[`approvals.${tool}`]}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function ShortcutSection() {
  const current = useApp((s) => s.settings.value?.quickCaptureShortcut ?? '');
  const saveSetting = useApp((s) => s.saveSetting);
  const field = useField('quickCaptureShortcut');
  const [text, setText] = useState(current);
  const id = useId();
  useEffect(() => setText(current), [current]);
  return (
    <section aria-labelledby="set-capture">
      <h2 id="set-capture">Quick capture</h2>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void saveSetting('quickCaptureShortcut', text);
        }}
      >
        <Setting
          id={id}
          label="Global shortcut"
          help="Opens the small capture window from anywhere (desktop app). Enter adds to the inbox, Ctrl+Enter asks Tidy. E.g. CommandOrControl+Shift+Space."
          {...field}
        >
          <input id={id} className="input grow" value={text} spellCheck={false} onChange={(e) => setText(e.target.value)} {...field.invalid} />
          <button type="submit" className="btn" disabled={text === current}>
            Save shortcut
          </button>
        </Setting>
      </form>
    </section>
  );
}
