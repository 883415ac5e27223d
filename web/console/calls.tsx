/**
 * The console's calls and API keys pages (Preact): sign in with an organization API key (kept in
 * this browser session only). Calls: pick an agent, page through its calls and conversations, and
 * open one: the recording player beside the transcript (the line being played highlighted), the
 * outcome, cost, post-call analysis, gathered context and logs; a live call's transcript follows as
 * it happens (the listen endpoint). API keys (`#keys`): the organization's keys, a new one shown
 * once, revocation. Webhooks (`#webhooks`): the endpoints, a test send, each one's deliveries with
 * their attempts, and a retry. Everything through the public API, with the generated typed client.
 */
import createClient from 'openapi-fetch';
import { render } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { components, paths } from '../../client/openapi.d.ts';

type Api = ReturnType<typeof createClient<paths>>;
type Agent = components['schemas']['Agent'];
type RunItem = components['schemas']['RunListItem'];
type Run = components['schemas']['Run'];
type Segment = components['schemas']['Transcript']['segments'][number];
type ApiKey = components['schemas']['ApiKey'];
type Webhook = components['schemas']['Webhook'];
type Delivery = components['schemas']['WebhookDelivery'];

const KEY_STORAGE = 'voice-agent-api-key';
const PAGE_SIZE = 20;

/** The API's own message for an error body (`detail`, a string or FastAPI's list). */
function detailOf(error: unknown, status: number): string {
  const detail = (error as { detail?: unknown } | undefined)?.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map((item: { msg?: string }) => item.msg).join('; ');
  return `The API answered ${status}`;
}

/** `data`, or the API's error as an exception with its own message. */
async function answer<T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await request;
  if (error !== undefined || data === undefined) throw new Error(detailOf(error, response.status));
  return data;
}

function SignIn({ onSignedIn }: { onSignedIn: (api: Api) => void }) {
  const [baseUrl, setBaseUrl] = useState(`${location.origin}/api/v1`);
  const [key, setKey] = useState(sessionStorage.getItem(KEY_STORAGE) ?? '');
  const [error, setError] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    const api = createClient<paths>({ baseUrl, headers: { 'X-API-Key': key } });
    try {
      await answer(api.GET('/agents', { params: { query: { limit: 1 } } }));
      sessionStorage.setItem(KEY_STORAGE, key);
      onSignedIn(api);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="sign-in-title">
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

function CallList({ api, onOpen }: { api: Api; onOpen: (agentId: string, runId: number) => void }) {
  const [agents, setAgents] = useState<Agent[]>([]);
  const [agentId, setAgentId] = useState('');
  const [page, setPage] = useState(1);
  const [runs, setRuns] = useState<{ items: RunItem[]; total_pages: number } | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    answer(api.GET('/agents', { params: { query: { limit: 100 } } })).then(
      (found) => {
        setAgents(found);
        setAgentId(found[0]?.public_id ?? '');
      },
      (failure: Error) => setError(failure.message),
    );
  }, [api]);
  useEffect(() => {
    if (!agentId) return;
    answer(
      api.GET('/agents/{agent_id}/conversations', {
        params: { path: { agent_id: agentId }, query: { page, limit: PAGE_SIZE } },
      }),
    ).then(setRuns, (failure: Error) => setError(failure.message));
  }, [api, agentId, page]);
  return (
    <section aria-labelledby="calls-title">
      <h2 id="calls-title">Calls</h2>
      <p role="alert">{error}</p>
      <label for="agent">Agent</label>
      <select
        id="agent"
        value={agentId}
        onChange={(e) => {
          setAgentId(e.currentTarget.value);
          setPage(1);
        }}
      >
        {agents.map((agent) => (
          <option value={agent.public_id} key={agent.public_id}>
            {agent.name}
          </option>
        ))}
      </select>
      <table aria-label="Calls of the agent">
        <thead>
          <tr>
            <th>Started</th>
            <th>Name</th>
            <th>Mode</th>
            <th>Status</th>
            <th>Disposition</th>
            <th>Seconds</th>
          </tr>
        </thead>
        <tbody>
          {runs?.items.map((run) => (
            <tr key={run.id}>
              <td>{new Date(run.created_at).toLocaleString()}</td>
              <td>
                <button type="button" class="link" onClick={() => onOpen(agentId, run.id)}>
                  {run.name}
                </button>
              </td>
              <td>{run.mode}</td>
              <td>{run.status}</td>
              <td>{String(run.gathered_context.call_disposition ?? '')}</td>
              <td>{run.duration_seconds ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <div class="actions">
        <button type="button" disabled={page <= 1} onClick={() => setPage(page - 1)}>
          Previous page
        </button>
        <span>
          Page {page} of {Math.max(1, runs?.total_pages ?? 1)}
        </span>
        <button type="button" disabled={!runs || page >= runs.total_pages} onClick={() => setPage(page + 1)}>
          Next page
        </button>
      </div>
    </section>
  );
}

/** The transcript line being played: segments are wall-clock times, the recording starts at `answered_at`. */
const playing = (segments: Segment[], answeredAt: string | null, seconds: number): number =>
  answeredAt === null
    ? -1
    : segments.findIndex((segment) => {
        const start = (Date.parse(segment.start) - Date.parse(answeredAt)) / 1000;
        const end = (Date.parse(segment.end) - Date.parse(answeredAt)) / 1000;
        return seconds >= start && seconds <= end;
      });

function CallPage({ api, agentId, runId, onBack }: { api: Api; agentId: string; runId: number; onBack: () => void }) {
  const [run, setRun] = useState<Run | null>(null);
  const [segments, setSegments] = useState<Segment[]>([]);
  const [live, setLive] = useState<Segment[]>([]);
  const [current, setCurrent] = useState(-1);
  const [error, setError] = useState('');
  const audio = useRef<HTMLAudioElement>(null);
  const path = { agent_id: agentId, conversation_id: runId };
  useEffect(() => {
    answer(api.GET('/agents/{agent_id}/conversations/{conversation_id}', { params: { path } })).then(
      (found) => {
        setRun(found);
        if (found.status === 'in_progress') return;
        answer(api.GET('/agents/{agent_id}/conversations/{conversation_id}/transcript', { params: { path } })).then(
          (transcript) => setSegments(transcript.segments),
          () => setSegments([]),
        );
      },
      (failure: Error) => setError(failure.message),
    );
  }, [api, agentId, runId]);
  const listen = async () => {
    try {
      const session = await answer(
        api.POST('/agents/{agent_id}/conversations/{conversation_id}/listen', { params: { path } }),
      );
      const socket = new WebSocket(session.url);
      socket.onmessage = (message) => {
        const frame = JSON.parse(String(message.data)) as { event: string } & Partial<Segment> & { timestamp?: string };
        if (frame.event === 'transcript')
          setLive((lines) => [
            ...lines,
            { role: frame.role!, text: frame.text!, start: frame.timestamp!, end: frame.end ?? frame.timestamp! },
          ]);
      };
      socket.onclose = (event) => setError(event.code === 1000 ? 'The call has ended.' : event.reason);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  if (!run) return <p role="alert">{error || 'Loading…'}</p>;
  const lines = run.status === 'in_progress' ? live : segments;
  return (
    <section aria-labelledby="call-title">
      <button type="button" onClick={onBack}>
        Back to the calls
      </button>
      <h2 id="call-title">{run.name}</h2>
      <p role="alert">{error}</p>
      <div class="call-page">
        <div>
          <dl>
            <dt>Status</dt>
            <dd>{run.status}</dd>
            <dt>Disposition</dt>
            <dd>{String(run.gathered_context.call_disposition ?? '')}</dd>
            <dt>Duration</dt>
            <dd>{run.duration_seconds ?? ''} s</dd>
            <dt>Cost</dt>
            <dd>{run.cost ? `$${run.cost.total_usd}` : ''}</dd>
            {run.analysis && (
              <>
                <dt>Analysis</dt>
                <dd>{run.analysis.summary ?? run.analysis.error ?? run.analysis.status}</dd>
              </>
            )}
          </dl>
          {run.status === 'in_progress' && (
            <button type="button" onClick={listen}>
              Follow live
            </button>
          )}
          {run.recording_download_url && (
            <audio
              ref={audio}
              controls
              preload="metadata"
              src={run.recording_download_url}
              aria-label="Recording"
              onTimeUpdate={() => setCurrent(playing(segments, run.answered_at, audio.current?.currentTime ?? 0))}
            />
          )}
          <h3>Gathered context</h3>
          <pre>{JSON.stringify(run.gathered_context, null, 2)}</pre>
          <h3>Logs</h3>
          <ol aria-label="Logs">
            {run.logs.map((log) => (
              <li key={`${log.timestamp}${log.message}`}>
                <time>{new Date(log.timestamp).toLocaleTimeString()}</time> {log.message}
              </li>
            ))}
          </ol>
        </div>
        <ol class="transcript" aria-label="Transcript" aria-live="polite">
          {lines.map((segment, index) => (
            <li key={`${segment.start}${index}`} aria-current={index === current ? 'true' : undefined}>
              <strong>{segment.role === 'assistant' ? 'Agent' : 'Caller'}:</strong> {segment.text}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

function Keys({ api }: { api: Api }) {
  const [keys, setKeys] = useState<ApiKey[]>([]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const [confirming, setConfirming] = useState('');
  const [error, setError] = useState('');
  const load = () =>
    answer(api.GET('/api-keys', { params: { query: { limit: 100 } } })).then(
      (page) => setKeys(page.items),
      (failure: Error) => setError(failure.message),
    );
  useEffect(() => void load(), [api]);
  const create = async (event: Event) => {
    event.preventDefault();
    try {
      const key = await answer(api.POST('/api-keys', { body: { name } }));
      setCreated({ name: key.name, key: key.key });
      setName('');
      await load();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const revoke = async (id: string) => {
    try {
      const { error: refused, response } = await api.DELETE('/api-keys/{key_id}', { params: { path: { key_id: id } } });
      if (refused !== undefined) throw new Error(detailOf(refused, response.status));
      setConfirming('');
      await load();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">API keys</h2>
      <p role="alert">{error}</p>
      <form onSubmit={create}>
        <label for="key-name">Name of a new key</label>
        <input id="key-name" required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <button type="submit">Create key</button>
      </form>
      {created && (
        <p role="status">
          New key “{created.name}”: <code aria-label="New API key">{created.key}</code> — copy it now: it is not shown
          again.
        </p>
      )}
      <table aria-label="API keys of the organization">
        <thead>
          <tr>
            <th>Name</th>
            <th>Key</th>
            <th>Created</th>
            <th>Revoked</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {keys.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>
                <code>{key.key_prefix}</code>
              </td>
              <td>{new Date(key.created_at).toLocaleString()}</td>
              <td>{key.revoked_at ? new Date(key.revoked_at).toLocaleString() : ''}</td>
              <td>
                {!key.revoked_at &&
                  (confirming === key.id ? (
                    <button type="button" onClick={() => revoke(key.id)}>
                      Confirm: revoke {key.name}
                    </button>
                  ) : (
                    <button type="button" onClick={() => setConfirming(key.id)}>
                      Revoke {key.name}
                    </button>
                  ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Webhooks({ api }: { api: Api }) {
  const [webhooks, setWebhooks] = useState<Webhook[]>([]);
  const [selected, setSelected] = useState('');
  const [deliveries, setDeliveries] = useState<Delivery[]>([]);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  useEffect(() => {
    answer(api.GET('/webhooks', { params: { query: { limit: 100 } } })).then(
      (page) => {
        setWebhooks(page.items);
        setSelected(page.items[0]?.id ?? '');
      },
      (failure: Error) => setError(failure.message),
    );
  }, [api]);
  const loadDeliveries = () =>
    selected
      ? answer(
          api.GET('/webhooks/{webhook_id}/deliveries', {
            params: { path: { webhook_id: selected }, query: { limit: 50 } },
          }),
        ).then(
          (page) => setDeliveries(page.items),
          (failure: Error) => setError(failure.message),
        )
      : Promise.resolve();
  useEffect(() => void loadDeliveries(), [api, selected]);
  const sendTest = async () => {
    try {
      const result = await answer(
        api.POST('/webhooks/{webhook_id}/test', { params: { path: { webhook_id: selected } } }),
      );
      setNotice(
        result.delivered
          ? `Test ${result.event_type} delivered: the endpoint answered ${result.status_code} in ${result.duration_ms} ms.`
          : `Test ${result.event_type} not delivered: ${result.status_code ?? result.error}.`,
      );
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const retry = async (delivery: Delivery) => {
    try {
      await answer(
        api.POST('/webhooks/{webhook_id}/deliveries/{delivery_id}/retry', {
          params: { path: { webhook_id: selected, delivery_id: delivery.message_id } },
        }),
      );
      setNotice(`${delivery.event_type} is being sent again.`);
      await loadDeliveries();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <section aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p role="alert">{error}</p>
      <p role="status">{notice}</p>
      <label for="webhook">Endpoint</label>
      <select id="webhook" value={selected} onChange={(e) => setSelected(e.currentTarget.value)}>
        {webhooks.map((webhook) => (
          <option value={webhook.id} key={webhook.id}>
            {webhook.url} ({webhook.events.join(', ')}, {webhook.status})
          </option>
        ))}
      </select>
      <div class="actions">
        <button type="button" disabled={!selected} onClick={sendTest}>
          Send a test event
        </button>
        <button type="button" disabled={!selected} onClick={() => void loadDeliveries()}>
          Refresh deliveries
        </button>
      </div>
      <table aria-label="Deliveries to the endpoint">
        <thead>
          <tr>
            <th>Event</th>
            <th>Status</th>
            <th>Attempts</th>
            <th>Last answer</th>
            <th>Next attempt</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {deliveries.map((delivery) => {
            const last = delivery.attempts.at(-1);
            return (
              <tr key={delivery.message_id}>
                <td>{delivery.event_type}</td>
                <td>{delivery.status}</td>
                <td>{delivery.attempts.length}</td>
                <td>{last ? (last.status_code ?? last.error) : ''}</td>
                <td>{delivery.next_attempt_at ? new Date(delivery.next_attempt_at).toLocaleString() : ''}</td>
                <td>
                  {delivery.status !== 'pending' && (
                    <button type="button" onClick={() => retry(delivery)}>
                      Retry {delivery.event_type}
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}

/** The view a location hash names (`#keys`, `#webhooks`); the calls otherwise. */
const viewOf = (hash: string) => (hash === '#keys' ? 'keys' : hash === '#webhooks' ? 'webhooks' : 'calls');

function Console() {
  const [api, setApi] = useState<Api | null>(null);
  const [view, setView] = useState(viewOf(location.hash));
  const [open, setOpen] = useState<{ agentId: string; runId: number } | null>(null);
  useEffect(() => {
    const follow = () => setView(viewOf(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  if (!api) return <SignIn onSignedIn={setApi} />;
  if (view === 'keys') return <Keys api={api} />;
  if (view === 'webhooks') return <Webhooks api={api} />;
  if (open) return <CallPage api={api} {...open} onBack={() => setOpen(null)} />;
  return <CallList api={api} onOpen={(agentId, runId) => setOpen({ agentId, runId })} />;
}

render(<Console />, document.getElementById('app')!);
