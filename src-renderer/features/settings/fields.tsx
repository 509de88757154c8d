/** The pieces every settings section is made of: a labelled row, a field's state, a slider. */
import { useEffect, useId, useState, type ReactNode } from 'react';
import { rangeOf, type RangeKey } from './slice';
import { useApp } from '../../store/react';
import { FieldError } from '../../ui/FieldError';

/** One labelled setting row: the control, its help, its inline error, a quiet "Saved". */
export function Setting({ id, label, help, error, errorId, saved, children }: { id: string; label: string; help?: ReactNode; error?: string | undefined; errorId: string; saved?: boolean; children: ReactNode }) {
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
      <FieldError id={errorId} problem={error} />
    </div>
  );
}

export function useField(key: string) {
  const error = useApp((s) => s.settingErrors[key]);
  const saved = useApp((s) => s.settingSaved === key);
  const errorId = useId();
  return { error, saved, errorId, invalid: error ? { 'aria-invalid': true as const, 'aria-describedby': errorId } : {} };
}

/** A setting with a range: a slider and a number field that follow each other; saved when let go. */
export function Slider({ k, label, help }: { k: RangeKey; label: string; help: string }) {
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
