/** Which tools wait for the user's OK before they run. */
import { useEffect } from 'react';
import { toolLabel } from '../../lib/format';
import { useApp } from '../../store/react';
import { FieldError } from '../../ui/FieldError';

export function ApprovalsSection() {
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
  // A tool that asks every time whatever the settings say (create_routine) is shown as such, not offered as a choice.
  const fixed = new Set((agentTools.value ?? []).filter((t) => t.alwaysAsks).map((t) => t.name));
  const tools = [...new Set([...(agentTools.value ?? []).filter((t) => t.changes).map((t) => t.name), ...Object.keys(approvals)])];
  return (
    <section aria-labelledby="set-approvals">
      <h2 id="set-approvals">Approvals</h2>
      <p className="muted">Which changes wait for your OK. Read-only tools never ask. "Always allow" on an approval card sets a tool to run without asking.</p>
      <FieldError problem={agentTools.problem && `Could not list the tools: ${agentTools.problem.message}`} role={null} />
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
                {fixed.has(tool) ? (
                  <span className="muted">Always asks (not configurable)</span>
                ) : (
                <select className="input" aria-label={`Approval for ${toolLabel(tool)}`} value={approvals[tool] ?? toolDefault(tool)} onChange={(e) => void saveSetting(`approvals.${tool}`, e.target.value)}>
                  <option value="ask">Ask me first</option>
                  <option value="auto">Run without asking</option>
                </select>
                )}
                <FieldError as="span" problem={errors[`approvals.${tool}`] && ` ${errors[`approvals.${tool}`]}`} role={null} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
