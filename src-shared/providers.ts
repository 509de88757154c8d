/**
 * Provider profiles: which OpenAI-compatible endpoint Tidy talks to, and how. A profile is stored in the
 * SQLite settings; its API key never is — it lives in the OS keychain under the profile id. The renderer
 * learns only whether a key is set (KeyStatus), never the key.
 */
import { z } from 'zod';

/** Also the keychain account name, so it is kept short and plain. */
export const ProfileId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9._-]{0,39}$/, 'must be 1 to 40 lowercase letters, digits, ".", "_" or "-", starting with a letter or digit');
export type ProfileId = z.infer<typeof ProfileId>;

/**
 * Endpoint URLs have one normal form, used for every decision about one (is it this machine, is it plain
 * http, which origin a stored key belongs to) and for storing it, so that no spelling can make a check
 * and the request disagree (`HTTP://host` once passed the plain-http check and got the key). The WHATWG
 * URL parser gives it: scheme and host lower-cased, IPv4 in dotted form (127.1, 0x7f.0.0.1 and
 * 2130706433 are all 127.0.0.1), IPv6 compressed ([::1]), IDN hosts in punycode, the default port
 * dropped. On top: one trailing dot of a host name is dropped (example.com. is example.com), trailing
 * slashes of the path are dropped, and whitespace or control characters inside are refused (the parser
 * would silently delete a line break, so `http://127.0.0.1\n.evil.example` is not read as anything).
 */
interface ParsedEndpoint {
  ok: true;
  /** The normal form: scheme://host[:port][/path], without a trailing slash, credentials, query or fragment. */
  url: string;
  /** scheme://host[:port] */
  origin: string;
  protocol: 'http:' | 'https:';
  /** Lower case, without a trailing dot; IPv6 in brackets. */
  hostname: string;
  /** '' for the scheme's default port. */
  port: string;
  pathname: string;
  /** The input had a user name or password (not in `url`). */
  hasCredentials: boolean;
  /** The input had a query or fragment (not in `url`). */
  hasQuery: boolean;
}
type EndpointUrl = ParsedEndpoint | { ok: false; error: string };

const NOT_HTTP = 'must be an http(s) URL, e.g. http://127.0.0.1:11434/v1';

/** Parses and normalises an http(s) endpoint URL (see EndpointUrl); credentials and query are reported, not dropped. */
export function parseEndpointUrl(input: string): EndpointUrl {
  const text = input.trim();
  // eslint-disable-next-line no-control-regex
  if (/[\s\u0000-\u001f\u007f]/.test(text)) return { ok: false, error: 'must not contain spaces, line breaks or control characters' };
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    return { ok: false, error: NOT_HTTP };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, error: NOT_HTTP };
  let hostname = u.hostname;
  if (hostname.endsWith('.') && !hostname.startsWith('[')) hostname = hostname.slice(0, -1);
  if (hostname === '' || hostname.endsWith('.')) return { ok: false, error: 'must name a host, e.g. http://127.0.0.1:11434/v1' };
  const origin = `${u.protocol}//${hostname}${u.port ? `:${u.port}` : ''}`;
  const pathname = u.pathname.replace(/\/+$/, '');
  return {
    ok: true,
    url: origin + pathname,
    origin,
    protocol: u.protocol,
    hostname,
    port: u.port,
    pathname,
    hasCredentials: u.username !== '' || u.password !== '',
    hasQuery: u.search !== '' || u.hash !== '' || /[?#]/.test(text),
  };
}

/** The origin (scheme://host[:port]) of an endpoint URL in its normal form; undefined if it is not one. */
export function endpointOrigin(url: string): string | undefined {
  const e = parseEndpointUrl(url);
  return e.ok ? e.origin : undefined;
}

/**
 * An http(s) endpoint without credentials, query or fragment (those would end up in traces and logs, and
 * Azure's api-version has its own field), in its normal form (parseEndpointUrl).
 */
export const BaseUrl = z.string().transform((input, ctx) => {
  const e = parseEndpointUrl(input);
  if (!e.ok) {
    ctx.addIssue({ code: 'custom', message: e.error });
    return z.NEVER;
  }
  if (e.hasCredentials) {
    ctx.addIssue({ code: 'custom', message: 'must not contain a user name or password; the API key is stored with `tidy key set`' });
    return z.NEVER;
  }
  if (e.hasQuery) {
    ctx.addIssue({ code: 'custom', message: 'must not contain a query (?…) or fragment (#…); for Azure pass the api-version separately' });
    return z.NEVER;
  }
  return e.url;
});

export const ModelName = z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters');

/** Azure's dated API versions (2024-10-21, 2025-04-01-preview) or the literal "preview". */
const ApiVersion = z.string().regex(/^(\d{4}-\d{2}-\d{2}(-preview)?|preview)$/, 'must look like 2024-10-21, 2025-04-01-preview or preview');

export const PresetId = z.enum(['openai', 'azure', 'ollama', 'lmstudio', 'llamacpp', 'custom']);
export type PresetId = z.infer<typeof PresetId>;

/** How the key travels: OpenAI's `Authorization: Bearer`, or Azure's `api-key` header (accepted by both of its URL shapes). */
export const AuthStyle = z.enum(['bearer', 'api-key']);
export type AuthStyle = z.infer<typeof AuthStyle>;

interface Preset {
  id: PresetId;
  label: string;
  /** A starting point; `needsBaseUrl` presets have only a placeholder and must be given one. */
  baseUrl: string;
  needsBaseUrl: boolean;
  /** Empty when the user must name the model (Azure: the deployment name). */
  model: string;
  /** A cloud service that refuses requests without a key (a loopback override lifts this). */
  keyRequired: boolean;
  /** A server on this machine: never gets OPENAI_API_KEY from the environment. */
  local: boolean;
  auth: AuthStyle;
  /** One line for `profile presets` and the settings screen: what to run or where to look. */
  help: string;
}

export const PRESETS: Record<PresetId, Preset> = {
  openai: {
    id: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    needsBaseUrl: false,
    model: 'gpt-4o-mini',
    keyRequired: true,
    local: false,
    auth: 'bearer',
    help: 'api.openai.com; needs a key from platform.openai.com (tidy key set)',
  },
  azure: {
    id: 'azure',
    label: 'Azure OpenAI',
    baseUrl: 'https://YOUR-RESOURCE.openai.azure.com/openai/v1',
    needsBaseUrl: true,
    model: '',
    keyRequired: true,
    local: false,
    auth: 'api-key',
    help: 'https://<resource>.openai.azure.com/openai/v1 with --model <deployment>; for a …/openai/deployments/<name> URL add --api-version',
  },
  ollama: {
    id: 'ollama',
    label: 'Ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    needsBaseUrl: false,
    model: 'llama3.2',
    keyRequired: false,
    local: true,
    auth: 'bearer',
    help: 'run `ollama serve` and `ollama pull <model>`; no key needed',
  },
  lmstudio: {
    id: 'lmstudio',
    label: 'LM Studio',
    baseUrl: 'http://127.0.0.1:1234/v1',
    needsBaseUrl: false,
    model: 'qwen2.5-7b-instruct',
    keyRequired: false,
    local: true,
    auth: 'bearer',
    help: 'start the local server in LM Studio (Developer tab, or `lms server start`); no key needed',
  },
  llamacpp: {
    id: 'llamacpp',
    label: 'llama.cpp server',
    baseUrl: 'http://127.0.0.1:8080/v1',
    needsBaseUrl: false,
    model: 'default',
    keyRequired: false,
    local: true,
    auth: 'bearer',
    help: 'run `llama-server -m model.gguf --port 8080` (add --jinja for tool calls); no key needed',
  },
  custom: {
    id: 'custom',
    label: 'Custom OpenAI-compatible endpoint',
    baseUrl: 'http://127.0.0.1:8000/v1',
    needsBaseUrl: true,
    model: '',
    keyRequired: false,
    local: false,
    auth: 'bearer',
    help: 'any OpenAI-compatible server (vLLM, OpenRouter, a proxy…); a key is optional',
  },
};

export const PRESET_IDS = PresetId.options;

export const ProviderProfile = z
  .object({
    id: ProfileId,
    preset: PresetId,
    baseUrl: BaseUrl,
    model: ModelName,
    /** Azure deployment URLs (…/openai/deployments/<name>) only: sent as ?api-version=… on every request. */
    apiVersion: ApiVersion.optional(),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.preset !== 'azure') {
      if (p.apiVersion !== undefined) ctx.addIssue({ code: 'custom', path: ['apiVersion'], message: 'is only for Azure profiles' });
      return;
    }
    const path = new URL(p.baseUrl).pathname;
    const v1 = /\/openai\/v1$/.test(path);
    const deployment = /\/openai\/deployments\/[^/]+$/.test(path);
    if (!v1 && !deployment) {
      ctx.addIssue({
        code: 'custom',
        path: ['baseUrl'],
        message: 'must end in /openai/v1 for Azure (e.g. https://my-resource.openai.azure.com/openai/v1) or in /openai/deployments/<deployment>',
      });
    } else if (deployment && p.apiVersion === undefined) {
      ctx.addIssue({ code: 'custom', path: ['apiVersion'], message: 'is needed with an Azure deployment URL, e.g. --api-version 2024-10-21' });
    }
  });
export type ProviderProfile = z.infer<typeof ProviderProfile>;

/** The stored list: ids are unique. */
export const ProviderProfiles = z
  .array(ProviderProfile)
  .min(1)
  .refine((ps) => new Set(ps.map((p) => p.id)).size === ps.length, 'profile ids must be unique');

/** What a fresh Tidy knows: OpenAI (active) and the three local servers, so switching is one command. */
export const DEFAULT_PROFILES: ProviderProfile[] = (['openai', 'ollama', 'lmstudio', 'llamacpp'] as const).map((id) => ({
  id,
  preset: id,
  baseUrl: PRESETS[id].baseUrl,
  model: PRESETS[id].model,
}));
export const DEFAULT_PROFILE_ID: ProfileId = 'openai';

/** Where a request's key comes from. */
export const KeySource = z.enum(['keychain', 'session', 'env']);
export type KeySource = z.infer<typeof KeySource>;

export const KeyStorage = z.enum(['keychain', 'safe_storage', 'session', 'env']);
export type KeyStorage = z.infer<typeof KeyStorage>;

/** Everything the UI may know about a profile's key: whether one is there and usable, never the key. */
export const KeyStatus = z.object({
  profile: ProfileId,
  /** A key for this profile is stored in the OS keychain. */
  stored: z.boolean(),
  /** What a request would use now; null: no key is sent. */
  source: KeySource.nullable(),
  /** The endpoint refuses requests without a key. */
  required: z.boolean(),
  keychain: z.union([z.object({ available: z.literal(true) }), z.object({ available: z.literal(false), problem: z.string() })]),
  /**
   * Where the key a request would use is kept: the OS keychain, Electron's safeStorage (a file the OS
   * encrypts), this session only (memory, forgotten when Tidy quits), the environment; null: no key.
   */
  storage: KeyStorage.nullable().optional(),
  /** Why a request would fail for lack of a usable key, and what to do; null when it would not. */
  problem: z.object({ error: z.string(), hint: z.string() }).nullable(),
});
export type KeyStatus = z.infer<typeof KeyStatus>;

export const ConnectionProblem = z.enum([
  'bad_url',
  'no_key',
  'refused',
  'dns',
  'timeout',
  'tls',
  'network',
  'auth',
  'forbidden',
  'not_found',
  'not_openai',
  'redirect',
  'rate_limit',
  'server',
  'http',
  'cancelled',
]);
export type ConnectionProblem = z.infer<typeof ConnectionProblem>;

/** The answer of "test connection": what is wrong in one line and what to do, or the models the endpoint lists. */
/**
 * A local server's context window for the model, and whether Tidy's prompt fits in it (`tidy config test`,
 * "Test and use"). `tokens` null: the server did not say (`source` says why).
 */
export const ContextReport = z.object({
  tokens: z.number().int().nullable(),
  /** The most the model itself takes, when the server says. */
  modelMax: z.number().int().nullable(),
  /** Where `tokens` came from, or why it is unknown. */
  source: z.string(),
  /** Tidy's own prompt (system prompt and tools), in estimated tokens, once checked. */
  promptTokens: z.number().int().nullable(),
  /** The context budget (setting contextTokens) fitted to the window, once fitted. */
  budget: z.number().int().nullable(),
  /** The window cannot hold Tidy's prompt, the answer and a little conversation: requests would be cut. */
  tooSmall: z.boolean(),
  /** One line for the user. */
  note: z.string(),
});
export type ContextReport = z.infer<typeof ContextReport>;

export const ConnectionReport = z.object({
  ok: z.boolean(),
  problem: ConnectionProblem.nullable(),
  /** One line: what happened. Never contains the key. */
  message: z.string(),
  /** What to do about it; empty when all is well. */
  hint: z.string(),
  /** The models URL that was asked (no credentials: those travel in headers). */
  url: z.string(),
  status: z.number().int().nullable(),
  keySource: KeySource.nullable(),
  /** The first 200 model ids the endpoint lists, sorted. */
  models: z.array(z.string()),
  modelCount: z.number().int(),
  model: z.string(),
  /** Whether the configured model is listed; null when the list cannot tell (Azure lists base models, not deployments). */
  modelListed: z.boolean().nullable(),
  /** Set when the connection works but something will likely fail later (e.g. the model is not listed). */
  warning: z.string().nullable(),
  elapsedMs: z.number(),
  /** For local servers (Ollama, LM Studio, llama.cpp): the model's context window. */
  context: ContextReport.nullable().optional(),
});
export type ConnectionReport = z.infer<typeof ConnectionReport>;

/** A model server found on this machine at first run (core/providers/detect.ts): where, and what it lists. */
export const DetectedServer = z.object({
  preset: PresetId,
  label: z.string(),
  /** In normal form. */
  baseUrl: z.string(),
  /** The first 200 model ids it lists, sorted. */
  models: z.array(z.string()),
  modelCount: z.number().int(),
  /** The stored profile that already points at it (or is its preset's), if any. */
  profile: ProfileId.nullable(),
});
export type DetectedServer = z.infer<typeof DetectedServer>;

/** 127.0.0.0/8, ::1 and localhost: a server on this machine, reached without leaving it. Anything unreadable is not. */
export function isLoopbackUrl(url: string): boolean {
  const e = parseEndpointUrl(url);
  if (!e.ok) return false;
  const host = e.hostname;
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Plain http beyond this machine: a key sent there can be read on the way. Anything unreadable counts as insecure. */
export function isInsecureUrl(url: string): boolean {
  const e = parseEndpointUrl(url);
  return !e.ok || (e.protocol === 'http:' && !isLoopbackUrl(url));
}

/** A cloud preset needs a key, unless its URL was pointed at this machine (a proxy, a fake in tests). */
export const keyRequired = (profile: Pick<ProviderProfile, 'preset'>, baseUrl: string): boolean =>
  PRESETS[profile.preset].keyRequired && !isLoopbackUrl(baseUrl);
