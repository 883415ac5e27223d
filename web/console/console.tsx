/**
 * The console (Preact): sign in with an organization API key (kept in this browser session only),
 * then agents, calls, campaigns, numbers, Do-not-call, usage, API keys, webhooks, integrations and talking to an
 * agent (voice or chat), each a page addressed by the location hash. Everything goes through the public API with the generated typed
 * client; the API's own message is shown for every error.
 */
import { QueryClientProvider } from '@tanstack/preact-query';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import {
  answer,
  BASE_URL_STORAGE,
  connect,
  type Connection,
  ConnectionContext,
  KEY_STORAGE,
  keyRefused,
  queryClient,
} from './lib/api.ts';
import { FlowEditorPage } from './flows/editor.tsx';
import { href, useRoute } from './lib/route.ts';
import { consentAnswerInAddress } from './lib/sheet-picker.ts';
import { AgentPage, AgentsPage } from './pages/agents.tsx';
import { CallPage, CallsPage } from './pages/calls.tsx';
import { CampaignPage, CampaignsPage } from './pages/campaigns.tsx';
import { DoNotCallPage } from './pages/do-not-call.tsx';
import { IntegrationsPage } from './pages/integrations.tsx';
import { KeysPage } from './pages/keys.tsx';
import { NumbersPage } from './pages/numbers.tsx';
import { TalkPage } from './pages/talk.tsx';
import { UsagePage } from './pages/usage.tsx';
import { WebhooksPage } from './pages/webhooks.tsx';
import { AgentTestsPage } from './tests/tests-page.tsx';

const SECTIONS = [
  ['agents', 'Agents'],
  ['calls', 'Calls'],
  ['campaigns', 'Campaigns'],
  ['numbers', 'Phone numbers'],
  ['do-not-call', 'Do-not-call'],
  ['usage', 'Usage'],
  ['keys', 'API keys'],
  ['webhooks', 'Webhooks'],
  ['integrations', 'Integrations'],
  ['talk', 'Talk to an agent'],
] as const;

function SignIn({ onSignedIn, refusal }: { onSignedIn: (connection: Connection) => void; refusal: string }) {
  const [baseUrl, setBaseUrl] = useState(sessionStorage.getItem(BASE_URL_STORAGE) ?? `${location.origin}/api/v1`);
  const [key, setKey] = useState(sessionStorage.getItem(KEY_STORAGE) ?? '');
  const [error, setError] = useState(refusal);
  const submit = async (event: Event) => {
    event.preventDefault();
    const connection = connect(baseUrl, key);
    try {
      await answer(connection.api.GET('/agents', { params: { query: { limit: 1 } } }));
      sessionStorage.setItem(KEY_STORAGE, key);
      sessionStorage.setItem(BASE_URL_STORAGE, baseUrl);
      onSignedIn(connection);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="sign-in-title" class="sign-in">
      <h2 id="sign-in-title">Sign in</h2>
      <label for="base-url">API base URL</label>
      <input id="base-url" type="url" required value={baseUrl} onInput={(e) => setBaseUrl(e.currentTarget.value)} />
      <label for="api-key">API key</label>
      <input
        id="api-key"
        type="password"
        autocomplete="off"
        required
        value={key}
        onInput={(e) => setKey(e.currentTarget.value)}
      />
      <button type="submit">Sign in</button>
      <p role="alert">{error}</p>
    </form>
  );
}

function Page({ route }: { route: string[] }) {
  const [section = 'agents', id, child] = route;
  // The provider's consent sends the browser back to the console's address with its answer.
  if (consentAnswerInAddress()) return <IntegrationsPage />;
  switch (section) {
    case 'calls':
      return id && child ? <CallPage agentId={id} runId={Number(child)} /> : <CallsPage agentId={id} />;
    case 'campaigns':
      return id ? <CampaignPage campaignId={Number(id)} /> : <CampaignsPage />;
    case 'numbers':
      return <NumbersPage />;
    case 'do-not-call':
      return <DoNotCallPage />;
    case 'usage':
      return <UsagePage />;
    case 'keys':
      return <KeysPage />;
    case 'webhooks':
      return <WebhooksPage />;
    case 'integrations':
      return <IntegrationsPage />;
    case 'talk':
      return <TalkPage agentId={id} definitionId={child ? Number(child) : undefined} />;
    default:
      if (id && child === 'flow') return <FlowEditorPage agentId={id} />;
      if (id && child === 'tests') return <AgentTestsPage agentId={id} />;
      return id ? <AgentPage agentId={id} /> : <AgentsPage />;
  }
}

function Console() {
  const [connection, setConnection] = useState<Connection | null>(null);
  const [refusal, setRefusal] = useState('');
  useEffect(() => {
    const signOut = (event: Event) => {
      queryClient.clear();
      setConnection(null);
      setRefusal(`Signed out: ${(event as CustomEvent<string>).detail}`);
    };
    keyRefused.addEventListener('refused', signOut);
    return () => keyRefused.removeEventListener('refused', signOut);
  }, []);
  const route = useRoute();
  const section = route[0] ?? 'agents';
  return (
    <>
      <header>
        <h1>Voice Agent Platform console</h1>
        <nav aria-label="Console">
          <ul>
            {SECTIONS.map(([name, title]) => (
              <li key={name}>
                <a href={href(name)} aria-current={section === name ? 'page' : undefined}>
                  {title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        {connection && (
          <button
            type="button"
            class="secondary"
            onClick={() => {
              sessionStorage.removeItem(KEY_STORAGE);
              queryClient.clear();
              setConnection(null);
            }}
          >
            Sign out
          </button>
        )}
      </header>
      <main>
        {connection ? (
          <ConnectionContext.Provider value={connection}>
            <Page route={route} />
          </ConnectionContext.Provider>
        ) : (
          <SignIn onSignedIn={setConnection} refusal={refusal} />
        )}
      </main>
    </>
  );
}

render(
  <QueryClientProvider client={queryClient}>
    <Console />
  </QueryClientProvider>,
  document.getElementById('console')!,
);
