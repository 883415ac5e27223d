/**
 * An agent's latency over a period (`GET /usage/latency`, per day): voice-to-voice p50 and p95 with
 * the turns of each day, and each component's p50 or p95, on uPlot charts (the usage page's chart
 * library); every figure is also in a table. Days without turns are gaps.
 */
import { useQuery } from '@tanstack/preact-query';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { answer, useApi } from '../lib/api.ts';
import { ErrorLine, Table } from '../lib/ui.tsx';
import { everyDay } from './layout.ts';
import { COMPONENTS, ms, type Percentiles } from './shapes.ts';

const DAY_MS = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

type Day = ReturnType<typeof everyDay>[number];

const millis = (_chart: uPlot, value: number | null) => (value == null ? '—' : ms(Math.round(value)));

/** A uPlot chart of the days, drawn into a div once the figures are there and again when they change. */
function DayChart({
  label,
  options,
  data,
}: {
  label: string;
  options: Omit<uPlot.Options, 'width' | 'height'>;
  data: uPlot.AlignedData;
}) {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!target.current) return;
    const chart = new uPlot(
      { ...options, width: Math.min(960, target.current.clientWidth || 960), height: 220 },
      data,
      target.current,
    );
    return () => chart.destroy();
  }, [options, data]);
  return <div ref={target} role="img" aria-label={label} class="latency-chart" />;
}

const timeScale: uPlot.Scale = { time: true, range: (_chart, min, max) => [min - 43_200, max + 43_200] };
const fromZero: uPlot.Scale = { range: (_chart, _min, max) => [0, Math.max(100, max * 1.1)] };

function VoiceToVoiceChart({ days }: { days: Day[] }) {
  const data = useMemo<uPlot.AlignedData>(
    () => [
      days.map(({ day }) => Date.parse(`${day}T00:00:00Z`) / 1000),
      days.map(({ figures }) => figures?.turn_count ?? null),
      days.map(({ figures }) => figures?.voice_to_voice_ms.p50 ?? null),
      days.map(({ figures }) => figures?.voice_to_voice_ms.p95 ?? null),
    ],
    [days],
  );
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(
    () => ({
      series: [
        {},
        {
          label: 'Turns',
          scale: 'turns',
          stroke: '#9aa0a6',
          fill: 'rgba(154, 160, 166, 0.3)',
          paths: uPlot.paths.bars!({ size: [0.6, 40] }),
          points: { show: false },
        },
        { label: 'p50', stroke: '#0b57d0', width: 2, value: millis },
        { label: 'p95', stroke: '#0b57d0', width: 2, dash: [6, 4], value: millis },
      ],
      axes: [{}, { label: 'ms', size: 60 }, { side: 1, scale: 'turns', label: 'Turns', grid: { show: false } }],
      scales: { x: timeScale, y: fromZero, turns: { range: (_chart, _min, max) => [0, Math.max(1, max * 2)] } },
    }),
    [],
  );
  return (
    <DayChart
      label="Voice-to-voice p50 and p95 per day in milliseconds, and turns per day (the figures are in the table below)"
      options={options}
      data={data}
    />
  );
}

function ComponentsChart({ days, percentile }: { days: Day[]; percentile: keyof Percentiles }) {
  const data = useMemo<uPlot.AlignedData>(
    () => [
      days.map(({ day }) => Date.parse(`${day}T00:00:00Z`) / 1000),
      ...COMPONENTS.map(({ key }) => days.map(({ figures }) => figures?.[key][percentile] ?? null)),
    ],
    [days, percentile],
  );
  const options = useMemo<Omit<uPlot.Options, 'width' | 'height'>>(
    () => ({
      series: [{}, ...COMPONENTS.map(({ label, colour }) => ({ label, stroke: colour, width: 2, value: millis }))],
      axes: [{}, { label: 'ms', size: 60 }],
      scales: { x: timeScale, y: fromZero },
    }),
    [],
  );
  return (
    <DayChart
      label={`Each component's ${percentile} per day in milliseconds (the figures are in the table below)`}
      options={options}
      data={data}
    />
  );
}

const grouped = new Intl.NumberFormat('en-US');
const figure = (value: number | null) => (value == null ? '—' : grouped.format(value));
const pair = (figures: Percentiles) => `${figure(figures.p50)} / ${figure(figures.p95)}`;

export function AgentLatency({ agentId }: { agentId: number }) {
  const api = useApi();
  const [from, setFrom] = useState(isoDay(Date.now() - 29 * DAY_MS));
  const [to, setTo] = useState(isoDay(Date.now()));
  const [percentile, setPercentile] = useState<keyof Percentiles>('p50');
  const report = useQuery({
    queryKey: ['latency', agentId, from, to],
    queryFn: () =>
      answer(
        api.GET('/usage/latency', {
          params: {
            query: {
              agent_id: String(agentId),
              from,
              to: isoDay(Date.parse(`${to}T00:00:00Z`) + DAY_MS),
              group_by: 'day',
            },
          },
        }),
      ),
  });
  const items = report.data?.items;
  const days = useMemo(() => (items ? everyDay(items, from, to) : []), [items, from, to]);
  return (
    <section aria-labelledby="agent-latency-title" class="latency">
      <h3 id="agent-latency-title">Response latency</h3>
      <div class="filters">
        <div>
          <label for="latency-from">From</label>
          <input id="latency-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div>
          <label for="latency-to">To</label>
          <input id="latency-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </div>
      </div>
      <ErrorLine error={report.error} />
      {items && items.length === 0 && (
        <p>
          No agent turns from {from} to {to}.
        </p>
      )}
      {items && items.length > 0 && (
        <>
          <p aria-label="Latency totals">
            {grouped.format(items.reduce((sum, item) => sum + item.turn_count, 0))} turns on {items.length} of{' '}
            {days.length} days
          </p>
          <h4>Voice-to-voice per day</h4>
          <VoiceToVoiceChart days={days} />
          <div class="latency-heading">
            <h4>Each component per day</h4>
            <div>
              <label for="latency-percentile" class="inline">
                Percentile
              </label>
              <select
                id="latency-percentile"
                value={percentile}
                onChange={(e) => setPercentile(e.currentTarget.value as keyof Percentiles)}
              >
                <option value="p50">p50</option>
                <option value="p95">p95</option>
              </select>
            </div>
          </div>
          <ComponentsChart days={days} percentile={percentile} />
          <details class="latency-figures">
            <summary>Figures per day (p50 / p95, in ms)</summary>
            <Table
              label="Latency per day"
              columns={['Day', 'Turns', 'Voice-to-voice', ...COMPONENTS.map(({ label }) => label)]}
            >
              {items.map((item) => (
                <tr key={item.period}>
                  <td>{item.period.slice(0, 10)}</td>
                  <td>{item.turn_count}</td>
                  <td>{pair(item.voice_to_voice_ms)}</td>
                  {COMPONENTS.map(({ key }) => (
                    <td key={key}>{pair(item[key])}</td>
                  ))}
                </tr>
              ))}
            </Table>
          </details>
        </>
      )}
    </section>
  );
}
