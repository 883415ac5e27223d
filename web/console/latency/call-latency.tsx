/**
 * A call's latency: the greeting's delay, the p50/p95 of each component over the call's turns, and
 * each agent turn as a waterfall on one shared scale (drawn in SVG, each bar named for screen
 * readers, every figure also in a table). The transcript marks each answer with its turn's time.
 */
import { useQuery } from '@tanstack/preact-query';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { Table } from '../lib/ui.tsx';
import { callerLineOf, describeTurn, figuresPending, scaleFor, turnLength, turnSegments } from './layout.ts';
import {
  type CallLatency,
  colourOf,
  COMPONENTS,
  ms,
  type RunWithLatency,
  seconds,
  type TurnLatency,
} from './shapes.ts';

const FIGURES_REFRESH_MS = 2_000;

/**
 * The call's latency figures: the run's own, or, for a call that ended moments ago without them
 * yet (they are written as it ends), the run read again every 2 s until they are there. A query
 * of its own, so the page's run (its fresh recording link, playing) is not read again.
 */
export function useCallLatency(
  agentId: string,
  runId: number,
  run: RunWithLatency | undefined,
  readAt: number,
): { latency: CallLatency | null | undefined; pending: boolean } {
  const api = useApi();
  const waiting = run !== undefined && figuresPending(run, readAt);
  const again = useQuery({
    queryKey: ['run-latency', agentId, runId],
    enabled: waiting,
    queryFn: (): Promise<RunWithLatency> =>
      answer(
        api.GET('/agents/{agent_id}/conversations/{conversation_id}', {
          params: { path: { agent_id: agentId, conversation_id: runId } },
        }),
      ),
    refetchInterval: ({ state: { data, dataUpdatedAt } }) =>
      data && figuresPending(data, dataUpdatedAt) ? FIGURES_REFRESH_MS : false,
  });
  if (!waiting || !again.data) return { latency: run?.latency, pending: waiting && !again.error };
  return { latency: again.data.latency, pending: figuresPending(again.data, again.dataUpdatedAt) };
}

type Line = Schemas['Transcript']['segments'][number];

const BAR_WIDTH = 480;
const BAR_HEIGHT = 20;

const tickLabel = (value: number): string => (value === 0 ? '0' : `${Number((value / 1000).toFixed(2))} s`);

const ticksOf = ({ end, step }: { end: number; step: number }): number[] =>
  Array.from({ length: Math.round(end / step) + 1 }, (_, index) => index * step);

/** The time axis over the waterfall column: one label per tick. */
function Axis({ scale }: { scale: { end: number; step: number } }) {
  const ticks = ticksOf(scale);
  return (
    <svg class="latency-axis" viewBox={`0 0 ${BAR_WIDTH} 14`} aria-hidden="true" focusable="false">
      {ticks.map((tick, index) => (
        <text
          key={tick}
          x={(tick / scale.end) * BAR_WIDTH}
          y={11}
          text-anchor={index === 0 ? 'start' : index === ticks.length - 1 ? 'end' : 'middle'}
        >
          {tickLabel(tick)}
        </text>
      ))}
    </svg>
  );
}

/** One turn's parts from the caller's end of speech, on the scale every turn of the call shares. */
function TurnWaterfall({ turn, scale }: { turn: TurnLatency; scale: { end: number; step: number } }) {
  const x = (value: number) => (value / scale.end) * BAR_WIDTH;
  return (
    <svg
      class="latency-bar"
      viewBox={`0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`}
      role="img"
      aria-label={`Turn ${turn.turn}. ${describeTurn(turn)}`}
      focusable="false"
    >
      {ticksOf(scale).map((tick) => (
        <line key={tick} class="latency-grid" x1={x(tick)} x2={x(tick)} y1={0} y2={BAR_HEIGHT} />
      ))}
      {turnSegments(turn).map((segment) => (
        <rect
          key={`${segment.key}${segment.start}`}
          fill={colourOf(segment.key)}
          x={x(segment.start)}
          y={3}
          width={Math.max(1, x(segment.duration))}
          height={BAR_HEIGHT - 6}
        >
          <title>
            {segment.label}: {ms(segment.duration)}
          </title>
        </rect>
      ))}
    </svg>
  );
}

/** The colour of each component, named. */
function LatencyLegend() {
  return (
    <ul class="latency-legend" aria-label="Latency components">
      {COMPONENTS.map(({ key, label, hint }) => (
        <li key={key} title={hint}>
          <svg viewBox="0 0 12 12" aria-hidden="true" focusable="false">
            <rect fill={colourOf(key)} width={12} height={12} rx={2} />
          </svg>
          {label}
        </li>
      ))}
    </ul>
  );
}

/** `1:05` on the call's clock (since it was answered). */
const clock = (atMs: number): string => {
  const total = Math.floor(atMs / 1000);
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
};

/** The answer's time beside an agent line of the transcript: its turn's parts in small, and the total. */
export function ReplyLatency({ turn }: { turn: TurnLatency }) {
  const end = turnLength(turn) || 1;
  return (
    <span class="reply-latency">
      <svg viewBox={`0 0 ${BAR_WIDTH} ${BAR_HEIGHT}`} preserveAspectRatio="none" aria-hidden="true" focusable="false">
        {turnSegments(turn).map((segment) => (
          <rect
            key={`${segment.key}${segment.start}`}
            fill={colourOf(segment.key)}
            x={(segment.start / end) * BAR_WIDTH}
            y={0}
            width={(segment.duration / end) * BAR_WIDTH}
            height={BAR_HEIGHT}
          />
        ))}
      </svg>
      <span class="visually-hidden"> answered in</span>{' '}
      {turn.voice_to_voice_ms == null ? '—' : seconds(turn.voice_to_voice_ms)}
    </span>
  );
}

function Percentiles({ latency }: { latency: CallLatency }) {
  const { summary } = latency;
  return (
    <Table label="Latency percentiles of the call" columns={['Component', 'p50', 'p95']}>
      <tr class="latency-total">
        <th scope="row">Voice-to-voice</th>
        <td>{ms(summary.voice_to_voice_ms.p50)}</td>
        <td>{ms(summary.voice_to_voice_ms.p95)}</td>
      </tr>
      {COMPONENTS.map(({ key, label }) => (
        <tr key={key}>
          <th scope="row">
            <svg class="swatch" viewBox="0 0 12 12" aria-hidden="true" focusable="false">
              <rect fill={colourOf(key)} width={12} height={12} rx={2} />
            </svg>
            {label}
          </th>
          <td>{ms(summary[key].p50)}</td>
          <td>{ms(summary[key].p95)}</td>
        </tr>
      ))}
    </Table>
  );
}

/** Every turn's figures as numbers: what the waterfall draws, for reading and copying. */
function TurnFigures({ turns }: { turns: TurnLatency[] }) {
  return (
    <details class="latency-figures">
      <summary>Each turn’s figures</summary>
      <Table
        label="Latency of each turn by component"
        columns={['Turn', ...COMPONENTS.map(({ label }) => label), 'Voice-to-voice', 'Tool calls']}
      >
        {turns.map((turn) => (
          <tr key={turn.turn}>
            <td>{turn.turn}</td>
            {COMPONENTS.map(({ key }) => (
              <td key={key}>{ms(turn[key])}</td>
            ))}
            <td>{ms(turn.voice_to_voice_ms)}</td>
            <td>
              {turn.tools.map((call) => `${call.name} ${ms(call.duration_ms)} (from ${ms(call.start_ms)})`).join(', ')}
            </td>
          </tr>
        ))}
      </Table>
    </details>
  );
}

export function CallLatencySection({
  latency,
  ended,
  pending,
  lines,
  answeredAt,
}: {
  latency: CallLatency | null | undefined;
  ended: boolean;
  /** Ended moments ago: the figures may still be on their way. */
  pending: boolean;
  lines: Line[];
  answeredAt: string | null;
}) {
  const body = () => {
    if (!ended) return <p>Each turn’s latency is shown here once the call ends.</p>;
    if (pending) return <p>The call has just ended: its latency figures are on their way.</p>;
    if (!latency)
      return (
        <p>
          {answeredAt === null
            ? 'No latency figures: the call never connected.'
            : 'No latency figures were kept for this call.'}
        </p>
      );
    const scale = scaleFor(Math.max(0, ...latency.turns.map(turnLength)));
    const { summary } = latency;
    return (
      <>
        <div class="latency-overview">
          <dl class="counts" aria-label="Latency summary">
            <dt>Greeting delay</dt>
            <dd>{latency.greeting_ms === null ? 'none: the agent waited for the caller' : ms(latency.greeting_ms)}</dd>
            <dt>Agent turns</dt>
            <dd>{summary.turn_count}</dd>
            <dt>Voice-to-voice</dt>
            <dd>
              p50 {ms(summary.voice_to_voice_ms.p50)} · p95 {ms(summary.voice_to_voice_ms.p95)}
            </dd>
          </dl>
          <Percentiles latency={latency} />
        </div>
        {latency.turns.length === 0 ? (
          <p>The agent answered no turn in this call.</p>
        ) : (
          <>
            <h4>Each turn, from the caller’s end of speech</h4>
            <LatencyLegend />
            <table aria-label="Latency of each agent turn" class="latency-turns">
              <thead>
                <tr>
                  <th scope="col">Turn</th>
                  <th scope="col">Caller said</th>
                  <th scope="col" class="latency-scale">
                    <span class="visually-hidden">Waterfall</span>
                    <Axis scale={scale} />
                  </th>
                  <th scope="col">Voice-to-voice</th>
                </tr>
              </thead>
              <tbody>
                {latency.turns.map((turn) => (
                  <tr key={turn.turn}>
                    <td>
                      {turn.turn} <span class="muted">at {clock(turn.at_ms)}</span>
                    </td>
                    <td class="caller-said">{callerLineOf(turn, lines, answeredAt)?.text ?? ''}</td>
                    <td>
                      <TurnWaterfall turn={turn} scale={scale} />
                    </td>
                    <td class="figure">{ms(turn.voice_to_voice_ms)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {summary.turn_count > latency.turns.length && (
              <p class="muted">
                The first {latency.turns.length} of {summary.turn_count} turns; the percentiles count them all.
              </p>
            )}
            <TurnFigures turns={latency.turns} />
          </>
        )}
      </>
    );
  };
  return (
    <section aria-labelledby="call-latency-title" class="latency">
      <h3 id="call-latency-title">Response latency</h3>
      {body()}
    </section>
  );
}
