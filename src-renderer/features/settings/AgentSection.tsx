/** How the agent talks to the model: the protocol, and whether answers stream. */
import { useId } from 'react';
import { useApp } from '../../store/react';
import { Setting, useField } from './fields';

export function AgentSection() {
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
