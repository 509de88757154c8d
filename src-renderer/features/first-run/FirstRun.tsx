/**
 * The first run: until a model answers, the chat shows this welcome instead of the example prompts. It
 * asks which model to use (a local server found on this machine, OpenAI, Azure OpenAI, or any
 * OpenAI-compatible URL), lists the endpoint's models to pick from, stores the key in the keychain,
 * and tests the connection. A message typed before that stays in the message box.
 */
import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { PRESETS, type ConnectionReport, type DetectedServer, type PresetId } from '../../../src-shared/providers';
import type { Problem } from '../../lib/problem';
import { isProblem, type ModelPlan } from '../settings';
import { useApp } from '../../store/react';
import '../../styles/firstrun.css';
import { Outcome } from './Outcome';

/** Shows `children` (the example prompts) only once a model works; the welcome until then. */
export function SetupGate({ children }: { children: ReactNode }) {
  const setup = useApp((s) => s.setup);
  const checkSetup = useApp((s) => s.checkSetup);
  useEffect(() => {
    if (setup.state === 'unknown') void checkSetup();
  }, [setup.state, checkSetup]);
  if (setup.state === 'ready') return children;
  if (setup.state === 'needed') return <Welcome />;
  return (
    <div className="welcome">
      <p role="status">Checking the model…</p>
    </div>
  );
}

type Choice = 'local' | 'openai' | 'azure' | 'custom';

const CHOICES: { id: Choice; label: string; help: string }[] = [
  { id: 'local', label: 'A local server', help: 'Ollama, LM Studio or llama.cpp on this computer: private, free, no key.' },
  { id: 'openai', label: 'OpenAI', help: 'Needs an API key from platform.openai.com.' },
  { id: 'azure', label: 'Azure OpenAI', help: 'Your Azure resource, a deployment and its key.' },
  { id: 'custom', label: 'Another server (URL)', help: 'Any OpenAI-compatible endpoint: vLLM, OpenRouter, a proxy…' },
];

export function Welcome() {
  const detected = useApp((s) => s.detected);
  const detectServers = useApp((s) => s.detectServers);
  const draft = useApp((s) => s.draft);
  const last = useApp((s) => s.setup.report);
  const sendProblem = useApp((s) => s.sendProblem);
  const takeSetupRefusal = useApp((s) => s.takeSetupRefusal);
  const [choice, setChoice] = useState<Choice | null>(null);
  const [refused, setRefused] = useState<Problem | null>(null);
  const groupId = useId();
  useEffect(() => {
    void detectServers();
  }, [detectServers]);
  // A message sent before setup was refused for want of a key: said here, next to the choice that fixes it.
  useEffect(() => {
    if (!sendProblem) return;
    const p = takeSetupRefusal();
    if (p) setRefused(p);
  }, [sendProblem, takeSetupRefusal]);
  const found = detected.value ?? [];
  // Until the user picks: a local server when one answers, else OpenAI.
  const shown: Choice = choice ?? (found.length ? 'local' : 'openai');

  return (
    <section className="welcome firstrun" aria-labelledby={`${groupId}-title`}>
      <h2 id={`${groupId}-title`}>Welcome to Tidy</h2>
      <p>Choose the model Tidy should use. You can change it any time in Settings.</p>
      {last && !last.ok && last.problem !== 'no_key' && (
        <p className="muted">
          The current model does not answer: {last.message}.
        </p>
      )}
      {refused ? (
        <div className="firstrun-kept" role="alert">
          <strong>Not sent yet: {refused.message}.</strong> {refused.hint ? `To send it, ${refused.hint}.` : ''} Your message stays in the message box.
        </div>
      ) : (
        draft.trim() && (
          <p className="firstrun-kept" role="note">
            Your message is kept in the message box; send it once a model works.
          </p>
        )
      )}
      <fieldset className="firstrun-choices">
        <legend>Which model?</legend>
        {CHOICES.map((c) => (
          <label key={c.id} className={`firstrun-choice${shown === c.id ? ' selected' : ''}`}>
            <input type="radio" name={groupId} value={c.id} checked={shown === c.id} onChange={() => setChoice(c.id)} />
            <span>
              <strong>
                {c.label}
                {c.id === 'local' && found.length > 0 && <span className="firstrun-badge">{found.length} found</span>}
              </strong>
              <span className="muted">{c.help}</span>
            </span>
          </label>
        ))}
      </fieldset>
      {shown === 'local' && <LocalSetup found={found} looking={detected.loading} problem={detected.problem} lookAgain={() => void detectServers()} />}
      {shown === 'openai' && <KeyedSetup preset="openai" key="openai" />}
      {shown === 'azure' && <KeyedSetup preset="azure" key="azure" />}
      {shown === 'custom' && <CustomSetup />}
    </section>
  );
}

const hostOf = (url: string): string => url.replace(/^https?:\/\//, '').replace(/\/v1$/, '');

/** A model from a list, or typed when the list is empty or unknown. */
function ModelField({ models, value, onChange, placeholder }: { models: readonly string[]; value: string; onChange: (m: string) => void; placeholder?: string }) {
  const id = useId();
  return (
    <div className="firstrun-field">
      <label htmlFor={id}>Model</label>
      {models.length > 0 ? (
        <select id={id} className="input" value={value} onChange={(e) => onChange(e.target.value)}>
          {!models.includes(value) && <option value={value}>{value || 'Choose a model'}</option>}
          {models.map((m) => (
            <option key={m} value={m}>
              {m}
            </option>
          ))}
        </select>
      ) : (
        <input id={id} className="input" value={value} spellCheck={false} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} />
      )}
    </div>
  );
}

/** Runs a setup plan with a busy state; returns what the form shows. */
function useSetUp() {
  const setUpModel = useApp((s) => s.setUpModel);
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<ConnectionReport | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const run = async (plan: ModelPlan): Promise<{ keySaved: boolean }> => {
    setBusy(true);
    setProblem(null);
    setReport(null);
    const r = await setUpModel(plan);
    setBusy(false);
    setReport(r.report);
    setProblem(r.problem);
    return { keySaved: r.keySaved };
  };
  return { busy, report, problem, run };
}

function LocalSetup({ found, looking, problem, lookAgain }: { found: DetectedServer[]; looking: boolean; problem: Problem | null; lookAgain: () => void }) {
  const [pick, setPick] = useState(0);
  const server = found[Math.min(pick, found.length - 1)] ?? null;
  const [model, setModel] = useState('');
  const { busy, report, problem: failed, run } = useSetUp();
  const groupId = useId();
  useEffect(() => {
    if (server) setModel((m) => (server.models.includes(m) ? m : (server.models[0] ?? '')));
  }, [server]);

  if (looking && found.length === 0) return <p role="status">Looking for local servers…</p>;
  if (found.length === 0) {
    return (
      <div className="firstrun-panel">
        {problem && <p role="alert">{problem.message}</p>}
        <p>
          No local server answers on this computer (Ollama on port 11434, LM Studio on 1234, llama.cpp on 8080). Start one — for example{' '}
          <code>ollama serve</code> and <code>ollama pull llama3.2</code> — then look again.
        </p>
        <button type="button" className="btn" onClick={lookAgain} disabled={looking}>
          {looking ? 'Looking…' : 'Look again'}
        </button>
      </div>
    );
  }
  return (
    <form
      className="firstrun-panel"
      onSubmit={(e) => {
        e.preventDefault();
        if (!server || !model || busy) return;
        void run({ id: server.profile ?? server.preset, preset: server.preset, baseUrl: server.baseUrl, model });
      }}
    >
      <fieldset className="firstrun-servers">
        <legend>Found on this computer</legend>
        {found.map((s, i) => (
          <label key={s.baseUrl} className="firstrun-server">
            <input type="radio" name={groupId} checked={server === s} onChange={() => setPick(i)} />
            {s.label} at {hostOf(s.baseUrl)} · {s.modelCount === 1 ? '1 model' : `${s.modelCount} models`}
          </label>
        ))}
      </fieldset>
      {server && server.models.length === 0 ? (
        <p className="muted">This server lists no models yet: load or pull one, then look again.</p>
      ) : (
        server && <ModelField models={server.models} value={model} onChange={setModel} />
      )}
      <div className="row">
        <button type="submit" className="btn primary" disabled={busy || !model}>
          {busy ? 'Testing…' : 'Test and use'}
        </button>
        <button type="button" className="btn ghost" onClick={lookAgain} disabled={looking}>
          Look again
        </button>
      </div>
      <Outcome report={report} problem={failed} />
    </form>
  );
}

/** OpenAI and Azure: a key (kept in the keychain), the model or deployment, and for Azure its endpoint. */
function KeyedSetup({ preset }: { preset: Extract<PresetId, 'openai' | 'azure'> }) {
  const profiles = useApp((s) => s.providers.value?.profiles);
  const [heldForSession, setHeldForSession] = useState(false);
  const existing = profiles?.find((p) => p.id === preset);
  const azure = preset === 'azure';
  const [url, setUrl] = useState(existing?.baseUrl ?? '');
  const [model, setModel] = useState(existing?.model ?? PRESETS[preset].model);
  const [key, setKey] = useState('');
  const { busy, report, problem, run } = useSetUp();
  const ids = { url: useId(), key: useId(), deployment: useId() };
  return (
    <form
      className="firstrun-panel"
      onSubmit={(e) => {
        e.preventDefault();
        submit();
      }}
    >
      {azure && (
        <div className="firstrun-field">
          <label htmlFor={ids.url}>Endpoint</label>
          <input id={ids.url} className="input" value={url} spellCheck={false} placeholder={PRESETS.azure.baseUrl} onChange={(e) => setUrl(e.target.value)} />
        </div>
      )}
      <div className="firstrun-field">
        <label htmlFor={ids.key}>API key</label>
        <input
          id={ids.key}
          className="input"
          type="password"
          autoComplete="off"
          spellCheck={false}
          placeholder={azure ? 'Key 1 or Key 2 of the resource' : 'sk-…'}
          value={key}
          onChange={(e) => setKey(e.target.value)}
        />
      </div>
      {azure ? (
        <div className="firstrun-field">
          <label htmlFor={ids.deployment}>Deployment</label>
          <input id={ids.deployment} className="input" value={model} spellCheck={false} placeholder="the deployment name" onChange={(e) => setModel(e.target.value)} />
        </div>
      ) : (
        <ModelField models={report?.ok ? report.models : []} value={model} onChange={setModel} />
      )}
      {heldForSession ? (
        <p className="muted" role="status">
          The key is kept for this session only, in memory: Tidy forgets it when it quits.
        </p>
      ) : (
        <p className="muted">The key is kept in your system's keychain, never in Tidy's database.</p>
      )}
      <div className="row">
        <button type="submit" className="btn primary" disabled={busy || !model.trim() || (azure && !url.trim())}>
          {busy ? 'Testing…' : key.trim() ? 'Save key and test' : 'Test and use'}
        </button>
      </div>
      {problem?.reason === 'keychain_unavailable' && key.trim() ? (
        <KeychainRefusal problem={problem} busy={busy} onKeepForSession={() => submit('session')} />
      ) : (
        <Outcome report={report} problem={problem} />
      )}
    </form>
  );

  function submit(keep?: 'session'): void {
    if (busy) return;
    const typed = key;
    void run({ id: preset, preset, baseUrl: azure ? url.trim() : PRESETS.openai.baseUrl, model: model.trim(), key: typed, ...(keep ? { keep } : {}) }).then(({ keySaved }) => {
      // The key leaves the form only once it is kept: a refused key stays, to try again.
      if (keySaved) {
        setKey((k) => (k === typed ? '' : k));
        setHeldForSession(keep === 'session');
      }
    });
  }
}

/**
 * No keychain to keep the key in: the refusal, scrolled into view (it is below the fold on a small
 * window), and the way on that needs no setup — the key in memory for this session only.
 */
function KeychainRefusal({ problem, busy, onKeepForSession }: { problem: Problem; busy: boolean; onKeepForSession: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'nearest' });
  }, [problem]);
  return (
    <div ref={ref} className="firstrun-refusal">
      <p className="firstrun-outcome bad" role="alert">
        {problem.message} — {problem.hint}
      </p>
      <p className="muted">Or keep the key in memory for this session only: it is never written anywhere, and Tidy forgets it when it quits.</p>
      <div className="row">
        <button type="button" className="btn" disabled={busy} onClick={onKeepForSession}>
          Keep it for this session only
        </button>
      </div>
    </div>
  );
}

/** Any OpenAI-compatible URL: find its models first, then test and use. */
function CustomSetup() {
  const listModels = useApp((s) => s.listModels);
  const profiles = useApp((s) => s.providers.value?.profiles);
  const existing = profiles?.find((p) => p.id === 'custom');
  const [url, setUrl] = useState(existing?.baseUrl ?? '');
  const [model, setModel] = useState(existing?.model ?? '');
  const [key, setKey] = useState('');
  const [listing, setListing] = useState<{ busy: boolean; found: ConnectionReport | null; problem: Problem | null }>({ busy: false, found: null, problem: null });
  const { busy, report, problem, run } = useSetUp();
  const ids = { url: useId(), key: useId() };
  const models = listing.found?.ok ? listing.found.models : [];

  const find = async () => {
    setListing({ busy: true, found: null, problem: null });
    const r = await listModels(url.trim());
    if (isProblem(r)) setListing({ busy: false, found: null, problem: r });
    else {
      setListing({ busy: false, found: r, problem: null });
      if (r.ok && !r.models.includes(model)) setModel(r.models[0] ?? '');
    }
  };
  return (
    <form
      className="firstrun-panel"
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        const typed = key;
        void run({ id: 'custom', preset: 'custom', baseUrl: url.trim(), model: model.trim(), key: typed }).then(({ keySaved }) => {
          if (keySaved) setKey((k) => (k === typed ? '' : k));
        });
      }}
    >
      <div className="firstrun-field">
        <label htmlFor={ids.url}>Server URL</label>
        <div className="row">
          <input id={ids.url} className="input grow" value={url} spellCheck={false} placeholder="http://127.0.0.1:8000/v1" onChange={(e) => setUrl(e.target.value)} />
          <button type="button" className="btn" disabled={!url.trim() || listing.busy} onClick={() => void find()}>
            {listing.busy ? 'Looking…' : 'Find models'}
          </button>
        </div>
      </div>
      {listing.found && !listing.found.ok && (
        <p className="firstrun-outcome bad" role="alert">
          {listing.found.message} — {listing.found.hint}
        </p>
      )}
      {listing.problem && (
        <p className="firstrun-outcome bad" role="alert">
          {listing.problem.message} — {listing.problem.hint}
        </p>
      )}
      {listing.found?.ok && (
        <p className="muted" role="status">
          {listing.found.modelCount === 1 ? '1 model listed.' : `${listing.found.modelCount} models listed.`}
        </p>
      )}
      <ModelField models={models} value={model} onChange={setModel} placeholder="the model name the server knows" />
      <div className="firstrun-field">
        <label htmlFor={ids.key}>API key (if the server needs one)</label>
        <input id={ids.key} className="input" type="password" autoComplete="off" spellCheck={false} value={key} onChange={(e) => setKey(e.target.value)} />
      </div>
      <div className="row">
        <button type="submit" className="btn primary" disabled={busy || !url.trim() || !model.trim()}>
          {busy ? 'Testing…' : 'Test and use'}
        </button>
      </div>
      <Outcome report={report} problem={problem} />
    </form>
  );
}
