/** The provider profiles in Settings: each with Use and Remove, and a form to add one (a custom URL, Azure, a second local server). */
import { useEffect, useId, useState } from 'react';
import { PRESET_IDS, PRESETS, type PresetId, type ProviderProfile } from '../../../src-shared/providers';
import { api } from '../../api';
import type { Problem } from '../../lib/problem';
import { useApp } from '../../store/react';
import '../../styles/firstrun.css';
import { FieldError } from '../../ui/FieldError';

/** A preset profile as Tidy made it: its own id, the preset's URL and model. */
const untouchedPreset = (p: ProviderProfile): boolean => p.id === p.preset && p.baseUrl === PRESETS[p.preset].baseUrl && p.model === PRESETS[p.preset].model;

/**
 * The ids of untouched presets that hold a key the user saved (keychain, safeStorage or this session; not
 * the environment's): OpenAI set up with its default model and then left for a local server was still used.
 */
function useKeyedPresets(profiles: readonly ProviderProfile[] | undefined, active: string | undefined): ReadonlySet<string> {
  const [keyed, setKeyed] = useState<ReadonlySet<string>>(new Set());
  const asked = (profiles ?? []).filter((p) => p.id !== active && untouchedPreset(p) && PRESETS[p.preset].keyRequired).map((p) => p.id);
  const key = asked.join(' ');
  useEffect(() => {
    let live = true;
    void Promise.all(
      key
        .split(' ')
        .filter(Boolean)
        .map((id) =>
          api.invoke('keys.status', { profile: id }).then(
            (s) => (s.stored || (s.storage !== undefined && s.storage !== null && s.storage !== 'env') ? id : null),
            () => null,
          ),
        ),
    ).then((ids) => {
      if (live) setKeyed(new Set(ids.filter((id): id is string => id !== null)));
    });
    return () => {
      live = false;
    };
  }, [key]);
  return keyed;
}

export function ProfileList() {
  const providers = useApp((s) => s.providers.value);
  const switchProfile = useApp((s) => s.switchProfile);
  const removeProfile = useApp((s) => s.removeProfile);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [more, setMore] = useState(false);
  const headingId = useId();
  const keyed = useKeyedPresets(providers?.profiles, providers?.active);
  if (!providers) return null;
  // The profiles in use: the active one and every one made or changed by the user or holding a key they
  // saved. The presets Tidy starts with and nobody touched wait behind "More providers".
  const used = providers.profiles.filter((p) => p.id === providers.active || !untouchedPreset(p) || keyed.has(p.id));
  const unused = providers.profiles.filter((p) => !used.includes(p));
  return (
    <div className="profile-block">
      <h3 id={headingId}>Profiles</h3>
      <ul className="profiles" aria-labelledby={headingId}>
        {[...used, ...(more ? unused : [])].map((p) => {
          const active = p.id === providers.active;
          return (
            <li key={p.id}>
              <span className="profile-name">
                <strong>{p.id}</strong> — {PRESETS[p.preset].label}, {p.model} at {p.baseUrl.replace(/^https?:\/\//, '')}
                {active && <span className="muted"> (in use)</span>}
              </span>
              {!active && (
                <button type="button" className="btn small" aria-label={`Use ${p.id}`} onClick={() => void switchProfile(p.id)}>
                  Use
                </button>
              )}
              <button
                type="button"
                className="btn small"
                aria-label={`Remove ${p.id}`}
                disabled={active}
                title={active ? 'Switch to another profile first' : undefined}
                onClick={() => void removeProfile(p.id).then(setProblem)}
              >
                Remove
              </button>
            </li>
          );
        })}
      </ul>
      {unused.length > 0 && (
        <button type="button" className="btn ghost small" aria-expanded={more} onClick={() => setMore((m) => !m)}>
          {more ? 'Fewer providers' : `More providers (${unused.length})`}
        </button>
      )}
      <FieldError problem={problem} />
      <AddProfile />
    </div>
  );
}

function AddProfile() {
  const addProfile = useApp((s) => s.addProfile);
  const switchProfile = useApp((s) => s.switchProfile);
  const [open, setOpen] = useState(false);
  const [id, setId] = useState('');
  const [preset, setPreset] = useState<PresetId>('custom');
  const [url, setUrl] = useState('');
  const [model, setModel] = useState('');
  const [problem, setProblem] = useState<Problem | null>(null);
  const [busy, setBusy] = useState(false);
  const ids = { id: useId(), preset: useId(), url: useId(), model: useId(), error: useId() };
  if (!open) {
    return (
      <button type="button" className="btn" onClick={() => setOpen(true)}>
        Add a profile…
      </button>
    );
  }
  const p = PRESETS[preset];
  return (
    <form
      aria-label="Add a profile"
      onSubmit={(e) => {
        e.preventDefault();
        if (busy) return;
        setBusy(true);
        void addProfile({ id: id.trim(), preset, ...(url.trim() ? { baseUrl: url.trim() } : {}), ...(model.trim() ? { model: model.trim() } : {}) }).then(async (refused) => {
          setBusy(false);
          setProblem(refused);
          if (refused) return;
          await switchProfile(id.trim());
          setOpen(false);
          setId('');
          setUrl('');
          setModel('');
        });
      }}
    >
      <div className="profile-add">
        <div className="firstrun-field">
          <label htmlFor={ids.id}>Name</label>
          <input id={ids.id} className="input" value={id} spellCheck={false} placeholder="e.g. work" onChange={(e) => setId(e.target.value)} />
        </div>
        <div className="firstrun-field">
          <label htmlFor={ids.preset}>Kind</label>
          <select id={ids.preset} className="input" value={preset} onChange={(e) => setPreset(e.target.value as PresetId)}>
            {PRESET_IDS.map((x) => (
              <option key={x} value={x}>
                {PRESETS[x].label}
              </option>
            ))}
          </select>
        </div>
        <div className="firstrun-field">
          <label htmlFor={ids.url}>Base URL</label>
          <input id={ids.url} className="input" value={url} spellCheck={false} placeholder={p.baseUrl} onChange={(e) => setUrl(e.target.value)} />
        </div>
        <div className="firstrun-field">
          <label htmlFor={ids.model}>{preset === 'azure' ? 'Deployment' : 'Model'}</label>
          <input id={ids.model} className="input" value={model} spellCheck={false} placeholder={p.model || 'the model name'} onChange={(e) => setModel(e.target.value)} />
        </div>
      </div>
      <p className="help">{p.help}</p>
      <FieldError id={ids.error} problem={problem} />
      <div className="row">
        <button type="submit" className="btn primary" disabled={busy || !id.trim()}>
          Add and use
        </button>
        <button type="button" className="btn ghost" onClick={() => (setOpen(false), setProblem(null))}>
          Cancel
        </button>
      </div>
    </form>
  );
}
