/**
 * Calls and conversations: an agent's runs with filters (status, disposition, dates, a text in
 * the name or number), refreshed while any is live; one run's page with the recording player
 * beside the transcript (the line being played highlighted), outcome, cost, analysis, gathered
 * context and the logs as a timeline, the path through its flow (flows/run-path.tsx), and each
 * agent turn's latency as a waterfall (its time marked beside each answer in the transcript). A
 * live call refreshes until it ends, and its transcript can be followed as it happens (the listen
 * endpoint).
 */
import { useQuery } from '@tanstack/preact-query';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { RunPath } from '../flows/run-path.tsx';
import { CallLatencySection, ReplyLatency, useCallLatency } from '../latency/call-latency.tsx';
import { repliesOf } from '../latency/layout.ts';
import type { RunWithLatency } from '../latency/shapes.ts';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { href, navigate } from '../lib/route.ts';
import { ErrorLine, Pager, Table, when } from '../lib/ui.tsx';
import { MakeTest } from '../tests/make-test.tsx';

type Segment = Schemas['Transcript']['segments'][number];
type RunStatus = Schemas['Run']['status'];
const PAGE_SIZE = 20;
const LIVE_REFRESH_MS = 2_000;
const IDLE_REFRESH_MS = 15_000;
const STATUSES: RunStatus[] = ['in_progress', 'completed', 'busy', 'no_answer', 'voicemail', 'failed', 'created'];

/** A date input's day as the start of that day in the browser's timezone, for the API's filters. */
const dayStart = (day: string, plusDays = 0): string | undefined => {
  if (!day) return undefined;
  const start = new Date(`${day}T00:00:00`);
  start.setDate(start.getDate() + plusDays);
  return start.toISOString();
};

export function CallsPage({ agentId }: { agentId?: string }) {
  const api = useApi();
  const agents = useQuery({
    queryKey: ['agents', 'active,archived', 'all'],
    queryFn: () => answer(api.GET('/agents', { params: { query: { status: 'active,archived', limit: 100 } } })),
  });
  const selected = agentId ?? agents.data?.[0]?.public_id ?? '';
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [disposition, setDisposition] = useState('');
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const [search, setSearch] = useState('');
  const query = {
    page,
    limit: PAGE_SIZE,
    ...(status ? { status: status as RunStatus } : {}),
    ...(disposition ? { disposition } : {}),
    ...(fromDay ? { created_from: dayStart(fromDay) } : {}),
    ...(toDay ? { created_to: dayStart(toDay, 1) } : {}),
    ...(search ? { search } : {}),
  };
  const runs = useQuery({
    queryKey: ['runs', selected, query],
    enabled: selected !== '',
    queryFn: () =>
      answer(api.GET('/agents/{agent_id}/conversations', { params: { path: { agent_id: selected }, query } })),
    refetchInterval: (current) =>
      current.state.data?.items.some((run) => run.status === 'in_progress') ? LIVE_REFRESH_MS : IDLE_REFRESH_MS,
  });
  const filter = (set: (value: string) => void) => (event: Event) => {
    set((event.currentTarget as HTMLInputElement).value);
    setPage(1);
  };
  return (
    <section aria-labelledby="calls-title">
      <h2 id="calls-title">Calls</h2>
      <ErrorLine error={agents.error ?? runs.error} />
      <div class="filters">
        <div>
          <label for="agent">Agent</label>
          <select id="agent" value={selected} onChange={(e) => navigate('calls', e.currentTarget.value)}>
            {agents.data?.map((agent) => (
              <option value={agent.public_id} key={agent.public_id}>
                {agent.name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="call-status">Status</label>
          <select id="call-status" value={status} onChange={filter(setStatus)}>
            <option value="">Any</option>
            {STATUSES.map((name) => (
              <option value={name} key={name}>
                {name}
              </option>
            ))}
          </select>
        </div>
        <div>
          <label for="call-disposition">Disposition</label>
          <input id="call-disposition" value={disposition} onChange={filter(setDisposition)} />
        </div>
        <div>
          <label for="call-from">From</label>
          <input id="call-from" type="date" value={fromDay} onChange={filter(setFromDay)} />
        </div>
        <div>
          <label for="call-to">To</label>
          <input id="call-to" type="date" value={toDay} onChange={filter(setToDay)} />
        </div>
        <div>
          <label for="call-search">Name or number</label>
          <input id="call-search" type="search" value={search} onChange={filter(setSearch)} />
        </div>
      </div>
      <p>{runs.data ? `${runs.data.total_count} matching` : ''}</p>
      <Table label="Calls of the agent" columns={['Started', 'Name', 'Mode', 'Status', 'Disposition', 'Seconds']}>
        {runs.data?.items.map((run) => (
          <tr key={run.id}>
            <td>{when(run.created_at)}</td>
            <td>
              <a href={href('calls', selected, run.id)}>{run.name}</a>
            </td>
            <td>{run.mode}</td>
            <td>{run.status}</td>
            <td>{String(run.gathered_context.call_disposition ?? '')}</td>
            <td>{run.duration_seconds ?? ''}</td>
          </tr>
        ))}
      </Table>
      <Pager page={page} totalPages={runs.data?.total_pages ?? 1} onPage={setPage} label="calls" />
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

/** A live call's transcript lines, from the listen endpoint's WebSocket while `on`. */
function useLiveTranscript(agentId: string, runId: number, on: boolean) {
  const api = useApi();
  const [lines, setLines] = useState<Segment[]>([]);
  const [state, setState] = useState('');
  useEffect(() => {
    if (!on) return;
    let socket: WebSocket | undefined;
    let stopped = false;
    answer(
      api.POST('/agents/{agent_id}/conversations/{conversation_id}/listen', {
        params: { path: { agent_id: agentId, conversation_id: runId } },
      }),
    ).then(
      (session) => {
        if (stopped) return;
        socket = new WebSocket(session.url);
        setState('Following the call live.');
        socket.onmessage = (message) => {
          const frame = JSON.parse(String(message.data)) as {
            event: string;
            role?: Segment['role'];
            text?: string;
            timestamp?: string;
          };
          if (frame.event === 'transcript' && frame.role && frame.text) {
            const at = frame.timestamp ?? new Date().toISOString();
            setLines((previous) => [...previous, { role: frame.role!, text: frame.text!, start: at, end: at }]);
          }
        };
        socket.onclose = (event) => setState(event.code === 1000 ? 'The call has ended.' : event.reason);
      },
      (failure: Error) => setState(failure.message),
    );
    return () => {
      stopped = true;
      socket?.close();
    };
  }, [api, agentId, runId, on]);
  return { lines, state };
}

export function CallPage({ agentId, runId }: { agentId: string; runId: number }) {
  const api = useApi();
  const path = { agent_id: agentId, conversation_id: runId };
  const run = useQuery({
    queryKey: ['run', agentId, runId],
    queryFn: (): Promise<RunWithLatency> =>
      answer(api.GET('/agents/{agent_id}/conversations/{conversation_id}', { params: { path } })),
    refetchInterval: (current) =>
      current.state.data?.status === 'in_progress' || current.state.data?.status === 'created'
        ? LIVE_REFRESH_MS
        : false,
  });
  const figures = useCallLatency(agentId, runId, run.data, run.dataUpdatedAt);
  const ended = run.data !== undefined && run.data.status !== 'in_progress' && run.data.status !== 'created';
  const transcript = useQuery({
    queryKey: ['transcript', agentId, runId],
    enabled: ended,
    queryFn: () =>
      answer(api.GET('/agents/{agent_id}/conversations/{conversation_id}/transcript', { params: { path } })),
  });
  const [following, setFollowing] = useState(false);
  const live = useLiveTranscript(agentId, runId, following && !ended);
  const [current, setCurrent] = useState(-1);
  const audio = useRef<HTMLAudioElement>(null);
  const segments = transcript.data?.segments;
  const replies = useMemo(
    () => repliesOf(figures.latency?.turns ?? [], segments ?? [], run.data?.answered_at ?? null),
    [figures.latency, run.data, segments],
  );
  if (!run.data) return <ErrorLine error={run.error ?? new Error('Loading…')} />;
  const call = run.data;
  const lines = ended ? (segments ?? []) : live.lines;
  return (
    <section aria-labelledby="call-title">
      <p>
        <a href={href('calls', agentId)}>Back to the calls</a>
      </p>
      <h2 id="call-title">{call.name}</h2>
      <ErrorLine error={run.error} />
      <p role="status">{live.state}</p>
      <div class="call-page">
        <div>
          <dl class="counts">
            <dt>Status</dt>
            <dd aria-label="Call status">{call.status}</dd>
            <dt>Disposition</dt>
            <dd>{String(call.gathered_context.call_disposition ?? '')}</dd>
            <dt>Duration</dt>
            <dd>{call.duration_seconds ?? ''} s</dd>
            <dt>Cost</dt>
            <dd>{call.cost ? `$${call.cost.total_usd}` : ''}</dd>
            {call.analysis && (
              <>
                <dt>Analysis</dt>
                <dd>{call.analysis.summary ?? call.analysis.error ?? call.analysis.status}</dd>
              </>
            )}
          </dl>
          {!ended && !following && (
            <button type="button" onClick={() => setFollowing(true)}>
              Follow live
            </button>
          )}
          {call.recording_download_url && (
            <audio
              ref={audio}
              controls
              preload="metadata"
              src={call.recording_download_url}
              aria-label="Recording"
              onTimeUpdate={() => setCurrent(playing(lines, call.answered_at, audio.current?.currentTime ?? 0))}
            />
          )}
          <h3>Gathered context</h3>
          <pre>{JSON.stringify(call.gathered_context, null, 2)}</pre>
          {call.sms.length > 0 && (
            <>
              <h3>Text messages</h3>
              <ol aria-label="Text messages" class="timeline">
                {call.sms.map((sms) => (
                  <li key={sms.id}>
                    <time dateTime={sms.timestamp}>{new Date(sms.timestamp).toLocaleTimeString()}</time>{' '}
                    {sms.direction === 'outbound' ? `To ${sms.to}` : `From ${sms.from}`}: {sms.body}{' '}
                    <strong>{sms.status}</strong>
                    {sms.error_reason ? ` (${sms.error_code}: ${sms.error_reason})` : ''}
                  </li>
                ))}
              </ol>
            </>
          )}
          <h3>Logs</h3>
          <ol aria-label="Logs" class="timeline">
            {call.logs.map((log, index) => (
              <li key={`${log.timestamp}${index}`}>
                <time dateTime={log.timestamp}>{new Date(log.timestamp).toLocaleTimeString()}</time> {log.message}
              </li>
            ))}
          </ol>
        </div>
        <ol class="transcript" aria-label="Transcript" aria-live="polite">
          {lines.map((segment, index) => (
            <li key={`${segment.start}${index}`} aria-current={index === current ? 'true' : undefined}>
              <strong>{segment.role === 'assistant' ? 'Agent' : 'Caller'}:</strong> {segment.text}
              {ended && replies.has(index) && <ReplyLatency turn={replies.get(index)!} />}
            </li>
          ))}
        </ol>
      </div>
      {call.flow && <RunPath agentId={agentId} definitionId={call.definition_id} steps={call.flow} />}
      <CallLatencySection
        latency={figures.latency}
        ended={ended}
        pending={figures.pending}
        lines={lines}
        answeredAt={call.answered_at}
      />
      {ended && <MakeTest agentId={agentId} runId={runId} />}
    </section>
  );
}
