/**
 * The renderer's entry: one store per window, wired to the bridge (./api, the only way to the main
 * side), and either the main window or the quick-capture window (#/capture).
 */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { api } from './api';
import { App } from './app/App';
import { createAppStore, connectStore } from './app/store';
import { isView } from './store/views';
import { StoreProvider } from './store/react';
import { CaptureView } from './features/capture';

/** localStorage, when the page may use it (it may not on an opaque origin). */
function uiStorage(): Storage | undefined {
  try {
    return window.localStorage;
  } catch {
    return undefined;
  }
}

const store = createAppStore({ api, storage: uiStorage() });
connectStore(store, api);

const route = window.location.hash.replace(/^#\/?/, '');
const capture = route === 'capture';

if (!capture) {
  // The view is in the address (#/actions), so a reload or a link opens it again.
  if (isView(route)) store.getState().show(route);
  store.subscribe(
    (s) => s.view,
    (view) => history.replaceState(history.state, '', `#/${view}`),
  );
  // "Open in Tidy" in the quick-capture window: this window shows that conversation.
  api.on('app.open', ({ conversationId }) => {
    const s = store.getState();
    s.show('chat');
    void s.openConversation(conversationId);
  });
  window.addEventListener('hashchange', () => {
    const v = window.location.hash.replace(/^#\/?/, '');
    if (isView(v)) store.getState().show(v);
  });
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <StoreProvider store={store}>{capture ? <CaptureView close={() => window.close()} /> : <App />}</StoreProvider>
    </StrictMode>,
  );
}
