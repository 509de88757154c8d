/**
 * Settings: the model provider (profile, endpoint, model, test connection, API key), the model's limits,
 * protocol, per-tool approvals, where data can go (Wikipedia, MCP servers), the quick-capture shortcut, reminders and your data (import, backups), one section each. Every field validates
 * inline, with the same schemas the main side uses.
 */
import { useEffect } from 'react';
import { useApp } from '../../store/react';
import { Loading, ProblemAlert, ViewHead } from '../../ui/common';
import { AgentSection } from './AgentSection';
import { ApprovalsSection } from './ApprovalsSection';
import { McpSection } from './McpSection';
import { DataSection } from './DataSection';
import { ModelSection } from './ModelSection';
import { NotificationsSection } from './NotificationsSection';
import { ProviderSection } from './ProviderSection';
import { ShortcutSection } from './ShortcutSection';

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
            <ModelSection />
            <AgentSection />
            <ApprovalsSection />
            <McpSection />
            <ShortcutSection />
            <NotificationsSection />
            <DataSection />
          </div>
        )}
      </div>
    </>
  );
}
