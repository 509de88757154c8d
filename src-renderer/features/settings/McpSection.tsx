/**
 * Beyond your own data: where data can go (the model endpoint, each MCP server that is on, Wikipedia),
 * the wikipedia tool (off by default, with a plain statement of where its queries go), and the MCP
 * servers whose tools the agent may use: on/off, the tools each offers, per-tool approval, add, remove.
 */
import { useId, useState } from 'react';
import { ENV_NAME, MAX_START_FAILURES, McpServerConfig, McpServerName, mcpTarget, normaliseServerName, type McpServers, type McpToolInfo } from '../../../src-shared/mcp';
import { api } from '../../api';
import { outcome } from '../../store/request';
import { useApp } from '../../store/react';
import { Setting, useField } from './fields';
import '../../styles/mcp.css';
import { FieldError } from '../../ui/FieldError';

type ToolList = { loading: true } | { tools: McpToolInfo[] } | { problem: string };

export function McpSection() {
  const settings = useApp((s) => s.settings.value);
  if (!settings) return null;
  return (
    <>
      <DestinationsSection />
      <WikipediaSection />
      <section aria-labelledby="set-mcp">
        <h2 id="set-mcp">MCP servers</h2>
        <p className="muted">
          Tools from Model Context Protocol servers you add reach the agent as <code>server__tool</code>. Each one asks before it runs unless you allow it; what they
          do happens outside Tidy and cannot be undone here. A server gets only the environment you give it.
        </p>
        <ServerList servers={settings.mcpServers} />
        <AddServer servers={settings.mcpServers} />
      </section>
    </>
  );
}

/** Every place a request's data can be sent, from the current settings. */
function DestinationsSection() {
  const settings = useApp((s) => s.settings.value)!;
  const on = Object.entries(settings.mcpServers).filter(([, c]) => c.enabled);
  return (
    <section aria-labelledby="set-destinations">
      <h2 id="set-destinations">Where your data can go</h2>
      <p className="muted">Your tasks, projects and lists stay in one file on this computer. A request can send data only to these places:</p>
      <ul className="destinations" aria-label="Destinations">
        <li>
          <span className="badge accent">Model</span> <span className="target">{settings.baseUrl}</span>
          <span className="muted"> — your messages and the tool results the agent reads</span>
        </li>
        {on.map(([name, c]) => (
          <li key={name}>
            <span className="badge">MCP</span> <span className="target">{name}</span> <span className="muted">({mcpTarget(c)}) — the arguments of its tools the agent calls</span>
          </li>
        ))}
        {settings.wikipedia && (
          <li>
            <span className="badge">Wikipedia</span> <span className="target">{settings.wikipediaUrl}/w/api.php</span>
            <span className="muted"> — the words the agent looks up</span>
          </li>
        )}
      </ul>
    </section>
  );
}

function WikipediaSection() {
  const settings = useApp((s) => s.settings.value)!;
  const saveSetting = useApp((s) => s.saveSetting);
  const onField = useField('wikipedia');
  const urlField = useField('wikipediaUrl');
  const ids = { on: useId(), url: useId() };
  const [url, setUrl] = useState(settings.wikipediaUrl);
  return (
    <section aria-labelledby="set-wikipedia">
      <h2 id="set-wikipedia">Wikipedia</h2>
      <Setting
        id={ids.on}
        label="Let the agent look things up on Wikipedia"
        help={
          <>
            When this is on, the words the agent searches for are sent to <strong>{settings.wikipediaUrl}/w/api.php</strong>. Nothing else is sent. Off by default.
          </>
        }
        {...onField}
      >
        <input id={ids.on} type="checkbox" checked={settings.wikipedia} onChange={(e) => void saveSetting('wikipedia', e.target.checked)} />
      </Setting>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void saveSetting('wikipediaUrl', url);
        }}
      >
        <Setting id={ids.url} label="Wikipedia site" help="Another language (https://de.wikipedia.org) or a local MediaWiki mirror." {...urlField}>
          <input id={ids.url} className="input grow" value={url} spellCheck={false} onChange={(e) => setUrl(e.target.value)} {...urlField.invalid} />
          <button type="submit" className="btn" disabled={url === settings.wikipediaUrl}>
            Save site
          </button>
        </Setting>
      </form>
    </section>
  );
}

function ServerList({ servers }: { servers: McpServers }) {
  const saveSetting = useApp((s) => s.saveSetting);
  const approvals = useApp((s) => s.settings.value?.approvals ?? {});
  const [lists, setLists] = useState<Record<string, ToolList>>({});
  const names = Object.keys(servers);
  if (names.length === 0) return <p className="empty-note">No MCP servers yet. Add one below, or with <code>tidy mcp add NAME -- command args…</code>.</p>;

  const showTools = async (name: string) => {
    setLists((l) => ({ ...l, [name]: { loading: true } }));
    const r = await outcome(() => api.invoke('mcp.tools', { server: name }));
    setLists((l) => ({ ...l, [name]: r.ok ? { tools: r.value } : { problem: r.problem.message } }));
  };
  const remove = async (name: string) => {
    const { [name]: _gone, ...rest } = servers;
    if (!(await saveSetting('mcpServers', rest))) return;
    const kept = Object.fromEntries(Object.entries(approvals).filter(([tool]) => !tool.startsWith(`${name}__`)));
    await saveSetting('approvals', kept);
  };

  return (
    <ul className="mcp-servers" aria-label="MCP servers">
      {names.map((name) => {
        const c = servers[name]!;
        const list = lists[name];
        return (
          <li key={name} className="mcp-server">
            <div className="mcp-server-head">
              <label className="mcp-toggle">
                <input
                  type="checkbox"
                  checked={c.enabled}
                  // Switched on again by the user: its count of failed starts begins anew.
                  onChange={(e) => void saveSetting('mcpServers', { ...servers, [name]: { ...c, enabled: e.target.checked, ...(e.target.checked ? { failures: undefined } : {}) } })}
                />
                <span className="visually-hidden">Use {name}</span>
                <strong>{name}</strong>
              </label>
              <code className="target" title={mcpTarget(c)}>
                {mcpTarget(c)}
              </code>
              <button type="button" className="btn small" onClick={() => void showTools(name)} disabled={list !== undefined && 'loading' in list}>
                {list && 'tools' in list ? 'Refresh tools' : `Show tools of ${name}`}
              </button>
              <button type="button" className="btn small danger" aria-label={`Remove ${name}`} onClick={() => void remove(name)}>
                Remove
              </button>
            </div>
            {!c.enabled && (c.failures ?? 0) >= MAX_START_FAILURES && (
              <FieldError role="note" problem={`Switched off: it failed to start ${c.failures} times in a row. Fix its command or URL, then switch it on.`} />
            )}
            {!c.enabled && c.unconfirmed === 'restored' && (
              <p className="muted" role="note">
                From a restored file: off until you switch it on.
              </p>
            )}
            {'env' in c && Object.keys(c.env).length > 0 && (
              <ul className="mcp-env-list" aria-label={`Environment of ${name}`}>
                {Object.entries(c.env).map(([k, v]) => (
                  <li key={k}>
                    <code>{k}</code> <span className="muted">{maskedValue(v)}</span>
                  </li>
                ))}
              </ul>
            )}
            {list && 'loading' in list && <p className="muted">Starting {name}…</p>}
            {list && 'problem' in list && <FieldError problem={list.problem} />}
            {list && 'tools' in list && (
              <table className="approvals-table mcp-tools" aria-label={`Tools of ${name}`}>
                <thead>
                  <tr>
                    <th scope="col">Tool</th>
                    <th scope="col">Before it runs</th>
                  </tr>
                </thead>
                <tbody>
                  {list.tools.map((t) => (
                    <tr key={t.name}>
                      <th scope="row" title={t.description}>
                        <code>{t.original}</code> <span className="muted">{t.readOnly ? 'reads' : 'may change things'}</span>
                      </th>
                      <td>
                        <select className="input" aria-label={`Approval for ${t.name}`} value={approvals[t.name] ?? 'ask'} onChange={(e) => void saveSetting(`approvals.${t.name}`, e.target.value)}>
                          <option value="ask">Ask me first</option>
                          <option value="auto">Always allow</option>
                        </select>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </li>
        );
      })}
    </ul>
  );
}

/** NAME=value lines as an environment, or what is wrong with the first bad line. */
function parseEnvLines(text: string): { env: Record<string, string> } | { problem: string } {
  const env: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const at = line.indexOf('=');
    const key = at > 0 ? line.slice(0, at).trim() : '';
    if (!ENV_NAME.test(key)) return { problem: `environment line ${i + 1}: write NAME=value, the name letters, digits and _ (e.g. GITHUB_TOKEN=…)` };
    env[key] = line.slice(at + 1).trim();
  }
  return { env };
}

/** An environment value as the list shows it: never in full. */
const maskedValue = (value: string): string => (value.length === 0 ? '(empty)' : `•••• (${value.length} character${value.length === 1 ? '' : 's'})`);

/**
 * Add a server: a command (stdio) or a URL (streamable HTTP), and for a command the environment it gets
 * (tokens). The name is made lower_snake_case ("My Notes" → my_notes), not refused. Checked with the same
 * schema as `tidy mcp add`.
 */
function AddServer({ servers }: { servers: McpServers }) {
  const saveSetting = useApp((s) => s.saveSetting);
  const field = useField('mcpServers');
  const ids = { name: useId(), target: useId(), env: useId() };
  const [name, setName] = useState('');
  const [target, setTarget] = useState('');
  const [envText, setEnvText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const normalised = name.trim() ? normaliseServerName(name.trim()) : null;
  const submit = async () => {
    const n = McpServerName.safeParse(normalised ?? '');
    if (!n.success) return setProblem(name.trim() ? `"${name.trim().slice(0, 40)}" has no letters or digits to make a server name from` : 'give the server a name, e.g. notes');
    if (Object.hasOwn(servers, n.data)) return setProblem(`there is a server named ${n.data} already; remove it first or choose another name`);
    const t = target.trim();
    const words = t.match(/"[^"]*"|\S+/g)?.map((w) => w.replace(/^"|"$/g, '')) ?? [];
    const isUrl = /^https?:\/\//.test(t);
    const parsedEnv = parseEnvLines(envText);
    if ('problem' in parsedEnv) return setProblem(parsedEnv.problem);
    if (isUrl && Object.keys(parsedEnv.env).length > 0) return setProblem('an environment is for a command; a URL server gets none');
    const candidate = isUrl ? { url: t } : { command: words[0] ?? '', args: words.slice(1), env: parsedEnv.env };
    const c = McpServerConfig.safeParse(candidate);
    if (!c.success || !t) return setProblem(c.success ? 'say how to start the server' : `${c.error.issues[0]?.path.join('.') ?? ''} ${c.error.issues[0]?.message ?? 'invalid'}`.trim());
    setProblem(null);
    if (await saveSetting('mcpServers', { ...servers, [n.data]: c.data })) {
      setName('');
      setTarget('');
      setEnvText('');
    }
  };
  return (
    <form
      className="mcp-add"
      aria-label="Add an MCP server"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Setting
        id={ids.name}
        label="Server name"
        help={normalised && normalised !== name.trim() ? `Saved as ${normalised}` : 'Any name; it is saved in lower_snake_case, e.g. My Notes → my_notes'}
        error={problem ?? field.error}
        errorId={field.errorId}
      >
        <input id={ids.name} className="input" value={name} spellCheck={false} onChange={(e) => setName(e.target.value)} />
      </Setting>
      <Setting id={ids.env} label="Environment" errorId={field.errorId} help="For a command: one NAME=value a line, e.g. GITHUB_TOKEN=… The values are never shown again in full.">
        <textarea id={ids.env} className="input grow mcp-env" rows={2} value={envText} spellCheck={false} autoComplete="off" onChange={(e) => setEnvText(e.target.value)} />
      </Setting>
      <Setting id={ids.target} label="Command or URL" help="A command that starts it on stdio (npx -y some-mcp-server), or a streamable-HTTP URL." errorId={field.errorId}>
        <input id={ids.target} className="input grow" value={target} spellCheck={false} onChange={(e) => setTarget(e.target.value)} />
        <button type="submit" className="btn">
          Add server
        </button>
      </Setting>
    </form>
  );
}
