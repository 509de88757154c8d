/**
 * Settings: the model provider (profile, endpoint, model, test connection, API key), the model's limits,
 * protocol, per-tool approvals, where data can go (Wikipedia, MCP servers), the quick-capture shortcut, reminders and your data (import, backups), one section each. Every field validates
 * inline, with the same schemas the main side uses.
 */
import { useEffect, useRef, useState, type RefObject } from 'react';
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
import { TraySection } from './TraySection';
import { SyncSection } from '../sync';

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
  const body = useRef<HTMLDivElement>(null);
  const sections = useSections(body, settings.value !== null);

  return (
    <>
      <ViewHead title="Settings" />
      <div className="view-body">
        {settings.problem && <ProblemAlert problem={settings.problem} title="Could not load the settings" />}
        {settings.value === null ? (
          settings.loading && <Loading what="settings" />
        ) : (
          <div className="settings" ref={body}>
            <SectionNav sections={sections} />
            <ProviderSection />
            <ModelSection />
            <AgentSection />
            <ApprovalsSection />
            <McpSection />
            <ShortcutSection />
            <NotificationsSection />
            <DataSection />
            <TraySection />
            <SyncSection />
          </div>
        )}
      </div>
    </>
  );
}

interface SectionLink {
  id: string;
  title: string;
}

/** The sections on the page, read from their headings (each section is `aria-labelledby` its h2), so a new section is listed without an edit here. */
function useSections(body: RefObject<HTMLDivElement | null>, ready: boolean): SectionLink[] {
  const [sections, setSections] = useState<SectionLink[]>([]);
  useEffect(() => {
    const el = body.current;
    if (!ready || !el) return;
    const read = () => {
      const found = [...el.querySelectorAll<HTMLElement>(':scope > section > h2[id]')].map((h) => ({ id: h.id, title: h.textContent ?? '' }));
      setSections((old) => (old.length === found.length && old.every((o, i) => o.id === found[i]!.id && o.title === found[i]!.title) ? old : found));
    };
    read();
    const watch = new MutationObserver(read);
    watch.observe(el, { childList: true, subtree: true, characterData: true });
    return () => watch.disconnect();
  }, [body, ready]);
  return sections;
}

/** Settings' own navigation: one button a section, which brings it into view and puts the focus on its heading. */
function SectionNav({ sections }: { sections: SectionLink[] }) {
  if (sections.length === 0) return null;
  return (
    <nav className="settings-nav" aria-label="Settings sections">
      <ul>
        {sections.map((s) => (
          <li key={s.id}>
            <button
              type="button"
              className="btn small ghost"
              onClick={() => {
                const h = document.getElementById(s.id);
                if (!h) return;
                if (!h.hasAttribute('tabindex')) h.setAttribute('tabindex', '-1');
                h.scrollIntoView({ block: 'start' });
                h.focus({ preventScroll: true });
              }}
            >
              {s.title}
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
