/**
 * Usage: calls, minutes and cost per day of a range (a uPlot chart and the figures), and per agent,
 * with the texts the calls sent (count, segments, their cost: part of the cost).
 */
import { useQuery } from '@tanstack/preact-query';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { emptyUsage } from '../../../shared/domain/usage.ts';
import { answer, type Schemas, useApi } from '../lib/api.ts';
import { ErrorLine, Table } from '../lib/ui.tsx';

type Period = Schemas['UsageReport']['periods'][number];
const DAY_MS = 86_400_000;
const isoDay = (time: number) => new Date(time).toISOString().slice(0, 10);

/** One value per day of the range, oldest first: days without calls are zeros (the API lists only days with calls). */
function everyDay(periods: Period[], from: string, to: string): Period[] {
  const byDay = new Map(periods.map((period) => [period.period.slice(0, 10), period]));
  const days: Period[] = [];
  for (let time = Date.parse(`${from}T00:00:00Z`); time <= Date.parse(`${to}T00:00:00Z`); time += DAY_MS) {
    const day = isoDay(time);
    days.push(byDay.get(day) ?? { period: day, ...emptyUsage() });
  }
  return days;
}

/** The texts the calls sent, as the totals line says them (their cost is within the cost before it). */
const texts = ({ sms_messages, sms_segments, sms_usd }: Pick<Period, 'sms_messages' | 'sms_segments' | 'sms_usd'>) =>
  `${sms_messages} ${sms_messages === 1 ? 'text' : 'texts'} sent (${sms_segments} ${sms_segments === 1 ? 'segment' : 'segments'}, $${sms_usd} of the cost)`;

function DailyChart({ days }: { days: Period[] }) {
  const target = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!target.current) return;
    const chart = new uPlot(
      {
        width: Math.min(960, target.current.clientWidth || 960),
        height: 260,
        series: [
          {},
          {
            label: 'Minutes',
            stroke: '#0b57d0',
            fill: 'rgba(11, 87, 208, 0.35)',
            paths: uPlot.paths.bars!({ size: [0.6, 40] }),
            points: { show: false },
          },
          {
            label: 'Texts sent',
            stroke: '#1e7d32',
            width: 0,
            points: { show: true, size: 8, fill: '#1e7d32' },
          },
          {
            label: 'Cost (USD)',
            stroke: '#8a4b00',
            width: 2,
            scale: 'usd',
            points: { show: true },
            value: (_chart, value) => (value == null ? '' : `$${value.toFixed(3)}`),
          },
        ],
        axes: [{}, { label: 'Minutes, texts' }, { side: 1, scale: 'usd', label: 'USD', grid: { show: false } }],
        scales: {
          x: { time: true, range: (_chart, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_chart, _min, max) => [0, Math.max(1, max)] },
        },
      },
      [
        days.map((day) => Date.parse(`${day.period.slice(0, 10)}T00:00:00Z`) / 1000),
        days.map((day) => day.minutes),
        days.map((day) => day.sms_messages),
        days.map((day) => day.cost_usd),
      ],
      target.current,
    );
    return () => chart.destroy();
  }, [days]);
  return <div ref={target} role="img" aria-label="Minutes, texts sent and cost per day" />;
}

export function UsagePage() {
  const api = useApi();
  const [from, setFrom] = useState(isoDay(Date.now() - 29 * DAY_MS));
  const [to, setTo] = useState(isoDay(Date.now()));
  const usage = useQuery({
    queryKey: ['usage', from, to],
    queryFn: () =>
      answer(
        api.GET('/usage', {
          params: {
            query: {
              from: `${from}T00:00:00Z`,
              to: new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS).toISOString(),
              group_by: 'day',
            },
          },
        }),
      ),
  });
  const report = usage.data;
  const days = useMemo(() => (report ? everyDay(report.periods, from, to) : []), [report, from, to]);
  return (
    <section aria-labelledby="usage-title">
      <h2 id="usage-title">Usage</h2>
      <div class="filters">
        <div>
          <label for="usage-from">From</label>
          <input id="usage-from" type="date" value={from} onChange={(e) => setFrom(e.currentTarget.value)} />
        </div>
        <div>
          <label for="usage-to">To</label>
          <input id="usage-to" type="date" value={to} onChange={(e) => setTo(e.currentTarget.value)} />
        </div>
      </div>
      <ErrorLine error={usage.error} />
      {report && (
        <>
          <p aria-label="Usage totals">
            {report.totals.calls} calls ({report.totals.answered_calls} answered), {report.totals.minutes} minutes, $
            {report.totals.cost_usd}; {texts(report.totals)}
          </p>
          <DailyChart days={days} />
          <Table
            label="Usage per agent"
            columns={['Agent', 'Calls', 'Answered', 'Minutes', 'Texts', 'Text segments', 'Texts cost', 'Cost']}
          >
            {report.agents.map((agent) => (
              <tr key={agent.workflow_id}>
                <td>{agent.workflow_name}</td>
                <td>{agent.calls}</td>
                <td>{agent.answered_calls}</td>
                <td>{agent.minutes}</td>
                <td>{agent.sms_messages}</td>
                <td>{agent.sms_segments}</td>
                <td>${agent.sms_usd}</td>
                <td>${agent.cost_usd}</td>
              </tr>
            ))}
          </Table>
        </>
      )}
    </section>
  );
}
