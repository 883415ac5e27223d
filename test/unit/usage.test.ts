import { describe, expect, it } from 'vitest';
import { aggregateUsage, dailyBreakdown, daysBetween, periodOf, type UsageEntry } from '../../shared/domain/usage.ts';

const entry = (
  run: number,
  agent: number,
  endedAt: string,
  seconds: number,
  status = 'completed',
  cost = 0.064,
): UsageEntry => ({
  run_id: run,
  workflow_id: agent,
  status,
  started_at: endedAt,
  ended_at: endedAt,
  duration_seconds: seconds,
  cost_usd: cost,
});

describe('aggregateUsage', () => {
  it('totals calls, billed minutes (rounded up per call) and cost, per period and per agent', () => {
    const usage = aggregateUsage(
      [
        entry(1, 1, '2026-11-01T10:00:00.000Z', 61),
        entry(2, 1, '2026-11-01T12:00:00.000Z', 0, 'busy', 0),
        entry(3, 2, '2026-11-02T09:00:00.000Z', 180),
      ],
      'day',
    );
    expect(usage.totals).toEqual({
      calls: 3,
      answered_calls: 2,
      minutes: 5,
      cost_usd: 0.128,
      sms_messages: 0,
      sms_segments: 0,
      sms_usd: 0,
    });
    expect(usage.periods).toEqual([
      {
        period: '2026-11-01',
        calls: 2,
        answered_calls: 1,
        minutes: 2,
        cost_usd: 0.064,
        sms_messages: 0,
        sms_segments: 0,
        sms_usd: 0,
      },
      {
        period: '2026-11-02',
        calls: 1,
        answered_calls: 1,
        minutes: 3,
        cost_usd: 0.064,
        sms_messages: 0,
        sms_segments: 0,
        sms_usd: 0,
      },
    ]);
    expect(usage.agents.map((agent) => [agent.workflow_id, agent.minutes])).toEqual([
      [2, 3],
      [1, 2],
    ]);
  });

  it("counts the texts the calls sent, their segments and cost (within the calls' cost)", () => {
    const usage = aggregateUsage(
      [
        {
          ...entry(1, 1, '2026-11-01T10:00:00.000Z', 61, 'completed', 0.0798),
          sms_messages: 2,
          sms_segments: 2,
          sms_usd: 0.0158,
        },
        entry(2, 1, '2026-11-01T12:00:00.000Z', 30),
        // A record written before `sms_usd` was kept: priced by its segments.
        { ...entry(3, 2, '2026-11-02T09:00:00.000Z', 60), sms_messages: 1, sms_segments: 3 },
      ],
      'day',
    );
    expect(usage.totals).toMatchObject({ sms_messages: 3, sms_segments: 5, sms_usd: 0.0395 });
    expect(usage.periods.map(({ period, sms_messages, sms_usd }) => [period, sms_messages, sms_usd])).toEqual([
      ['2026-11-01', 2, 0.0158],
      ['2026-11-02', 1, 0.0237],
    ]);
  });

  it.each([
    ['2026-11-23T23:59:59.999Z', 'day', '2026-11-23'],
    ['2026-11-23T23:59:59.999Z', 'month', '2026-11'],
  ] as const)('period of %s by %s is %s', (endedAt, grouping, expected) => {
    expect(periodOf(endedAt, grouping)).toBe(expected);
  });

  it('is empty for no calls', () => {
    expect(aggregateUsage([], 'month')).toEqual({
      totals: { calls: 0, answered_calls: 0, minutes: 0, cost_usd: 0, sms_messages: 0, sms_segments: 0, sms_usd: 0 },
      periods: [],
      agents: [],
    });
  });
});

describe('dailyBreakdown', () => {
  it.each([
    ['2026-11-01T00:00:00.000Z', '2026-11-04T00:00:00.000Z', ['2026-11-01', '2026-11-02', '2026-11-03']],
    ['2026-11-01T10:00:00.000Z', '2026-11-02T00:00:01.000Z', ['2026-11-01', '2026-11-02']],
    ['2026-02-28T00:00:00.000Z', '2026-03-01T00:00:00.000Z', ['2026-02-28']],
  ])('days from %s to %s', (from, to, expected) => {
    expect(daysBetween(from, to)).toEqual(expected);
  });

  it('fills days without calls with zeros', () => {
    const days = dailyBreakdown(
      [entry(1, 1, '2026-11-02T10:00:00.000Z', 61)],
      '2026-11-01T00:00:00.000Z',
      '2026-11-03T00:00:00.000Z',
    );
    expect(days).toEqual([
      {
        date: '2026-11-01',
        calls: 0,
        answered_calls: 0,
        minutes: 0,
        cost_usd: 0,
        sms_messages: 0,
        sms_segments: 0,
        sms_usd: 0,
      },
      {
        date: '2026-11-02',
        calls: 1,
        answered_calls: 1,
        minutes: 2,
        cost_usd: 0.064,
        sms_messages: 0,
        sms_segments: 0,
        sms_usd: 0,
      },
    ]);
  });
});
