/**
 * First run: which local model servers answer on this machine, and which models an endpoint lists. A
 * server counts as found when GET {baseUrl}/models answers an OpenAI model list within a short time;
 * anything else on the port (another program, a web page, silence) is not reported. The parsing, the
 * size cap and the redaction are test connection's (test-connection.ts), run over a throwaway profile
 * that carries no key: nothing here ever sends one.
 */
import { isLoopbackUrl, parseEndpointUrl, PRESETS, type ConnectionReport, type DetectedServer, type PresetId, type ProviderProfile } from '../../../src-shared/providers';
import { createMemorySecretStore } from '../secrets/store';
import { connectionFor } from './connection';
import { testConnection } from './test-connection';

export type LocalPreset = Extract<PresetId, 'ollama' | 'lmstudio' | 'llamacpp'>;
export const LOCAL_PRESETS: readonly LocalPreset[] = ['ollama', 'lmstudio', 'llamacpp'];

export interface Candidate {
  preset: LocalPreset;
  baseUrl: string;
}

/**
 * Where to look: each local preset's default address, except that Ollama's own OLLAMA_HOST (host:port,
 * or a URL) moves it, as it moves the server. A bind address (0.0.0.0, ::) is reached on 127.0.0.1; an
 * OLLAMA_HOST that is not this machine is ignored (detection never leaves it).
 */
export function localCandidates(env: Record<string, string | undefined> = {}): Candidate[] {
  return LOCAL_PRESETS.map((preset) => {
    const fallback = { preset, baseUrl: PRESETS[preset].baseUrl };
    if (preset !== 'ollama') return fallback;
    const host = env['OLLAMA_HOST']?.trim();
    if (!host) return fallback;
    const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(host) ? host : `http://${host}`;
    const e = parseEndpointUrl(withScheme);
    if (!e.ok) return fallback;
    const hostname = e.hostname === '0.0.0.0' || e.hostname === '[::]' ? '127.0.0.1' : e.hostname;
    const url = `${e.protocol}//${hostname}:${e.port || '11434'}/v1`;
    return isLoopbackUrl(url) ? { preset, baseUrl: url } : fallback;
  });
}

/** A profile for one look at an endpoint: never saved, no key (an empty store, no environment). */
function lookup(preset: PresetId, baseUrl: string): ReturnType<typeof connectionFor> {
  const profile = { id: 'probe', preset, baseUrl, model: PRESETS[preset].model || 'probe' } as ProviderProfile;
  return connectionFor(profile, { secrets: createMemorySecretStore(), env: {} });
}

/**
 * GET {baseUrl}/models without a key: the models the endpoint lists, or what is wrong in one line (the
 * report of test connection). For a server that needs no key (local ones, most custom ones).
 */
export function listModels(baseUrl: string, options: { preset?: PresetId; timeoutMs?: number; signal?: AbortSignal } = {}): Promise<ConnectionReport> {
  return testConnection(lookup(options.preset ?? 'custom', baseUrl), {
    timeoutMs: options.timeoutMs ?? 10_000,
    // Only the list: the model is not chosen yet (Test and use reads its context window).
    context: false,
    ...(options.signal ? { signal: options.signal } : {}),
  });
}

export interface DetectOptions {
  /** Where to look; default localCandidates(env). */
  candidates?: readonly Candidate[];
  env?: Record<string, string | undefined>;
  /** Per server; all are asked at once, so detection takes at most about this long. Default 2 s (a busy machine answers slowly). */
  timeoutMs?: number;
  /** The stored profiles, to say which one already points at a found server. */
  profiles?: readonly ProviderProfile[];
}

/** The local servers that answer with a model list, in the order of the presets. */
export async function detectLocalServers(options: DetectOptions = {}): Promise<DetectedServer[]> {
  const candidates = options.candidates ?? localCandidates(options.env);
  const timeoutMs = options.timeoutMs ?? 2000;
  const reports = await Promise.all(candidates.map((c) => listModels(c.baseUrl, { preset: c.preset, timeoutMs })));
  const found: DetectedServer[] = [];
  candidates.forEach((c, i) => {
    const r = reports[i]!;
    if (!r.ok) return;
    const baseUrl = parseEndpointUrl(c.baseUrl);
    const url = baseUrl.ok ? baseUrl.url : c.baseUrl;
    const profile = options.profiles?.find((p) => p.preset === c.preset && p.baseUrl === url) ?? options.profiles?.find((p) => p.id === c.preset && p.preset === c.preset);
    found.push({ preset: c.preset, label: PRESETS[c.preset].label, baseUrl: url, models: r.models, modelCount: r.modelCount, profile: profile?.id ?? null });
  });
  return found;
}
