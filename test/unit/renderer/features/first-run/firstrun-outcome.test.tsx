// "Test and use" says what it found about the model: its name on success, and a warning (as `tidy config
// test` gives) when the server does not list it, instead of a green "Connected".
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ConnectionReport } from '../../../../../src-shared/providers';
import { Outcome } from '../../../../../src-renderer/features/first-run/Outcome';
import { createAppStore } from '../../../../../src-renderer/app/store';
import { StoreProvider } from '../../../../../src-renderer/store/react';
import { fakeApi } from '../../fake-api';

const base: ConnectionReport = {
  ok: true,
  problem: null,
  message: "connected to Ollama at http://127.0.0.1:11434/v1: 2 models listed, 'llama3.2' among them",
  hint: '',
  url: 'http://127.0.0.1:11434/v1/models',
  status: 200,
  keySource: null,
  models: ['llama3.2', 'qwen2.5'],
  modelCount: 2,
  model: 'llama3.2',
  modelListed: true,
  warning: null,
  elapsedMs: 12,
};
const html = (report: ConnectionReport) =>
  renderToStaticMarkup(
    <StoreProvider store={createAppStore({ api: fakeApi({}).api })}>
      <Outcome report={report} problem={null} />
    </StoreProvider>,
  );

describe('the outcome of Test and use', () => {
  it('names the model it will use on success', () => {
    const out = html(base);
    expect(out).toContain('class="firstrun-outcome ok"');
    expect(out).toContain('role="status"');
    expect(out).toContain('Tidy will use the model “llama3.2”.');
  });

  it('warns, as an alert, when the server does not list the model', () => {
    const out = html({ ...base, model: 'llama3', modelListed: false, warning: "the model 'llama3' is not among the 2 models Ollama lists (llama3.2, qwen2.5); set one with: tidy config set model NAME" });
    expect(out).toContain('class="firstrun-outcome bad"');
    expect(out).toContain('role="alert"');
    expect(out).toContain('Connected, but the server does not list the model “llama3”');
    expect(out).not.toContain('Tidy will use');
  });

  it('says nothing of the model when the list cannot tell (Azure deployments)', () => {
    const out = html({ ...base, modelListed: null });
    expect(out).toContain('class="firstrun-outcome ok"');
  });
});
