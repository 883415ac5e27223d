/**
 * Latency on the record: a run's `latency` (written once its call ends, on the run item, in a
 * compact form) and the per-agent per-day histograms its turns are added into (counters ADDed,
 * read back by a Query of the organization's days). See docs/data-model.md.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  LATENCY_COMPONENTS,
  type CallLatency,
  type LatencyComponent,
  type LatencyTurn,
} from '../domain/call-latency.ts';
import { emptyHistogram, type AgentDayHistogram, type LatencyHistogram } from '../domain/latency-histograms.ts';
import type { RunRef } from '../domain/run-ref.ts';
import { keys } from './keys.ts';
import { db, queryItems, tableName } from './table.ts';

/**
 * The run item's `latency`: each turn one list of numbers (turn, at_ms, the components in
 * LATENCY_COMPONENTS order, then name index, start and duration of each tool), the tool names once.
 * 200 turns of 20 tools take about 60 KB (test/unit/call-latency.test.ts measures it).
 */
export interface StoredLatency {
  greeting_ms: number | null;
  tool_names: string[];
  turns: (number | null)[][];
  summary: CallLatency['summary'];
}

const FIXED = 2 + LATENCY_COMPONENTS.length;

export function packLatency(latency: CallLatency): StoredLatency {
  const names: string[] = [];
  const nameIndex = (name: string) => {
    const index = names.indexOf(name);
    return index >= 0 ? index : names.push(name) - 1;
  };
  return {
    greeting_ms: latency.greeting_ms,
    tool_names: names,
    turns: latency.turns.map((turn) => [
      turn.turn,
      turn.at_ms,
      ...LATENCY_COMPONENTS.map((component) => turn[component]),
      ...turn.tools.flatMap((tool) => [nameIndex(tool.name), tool.start_ms, tool.duration_ms]),
    ]),
    summary: latency.summary,
  };
}

export function unpackLatency(stored: StoredLatency): CallLatency {
  return {
    greeting_ms: stored.greeting_ms,
    turns: stored.turns.map((row): LatencyTurn => {
      const tools: LatencyTurn['tools'] = [];
      for (let at = FIXED; at + 2 < row.length; at += 3)
        tools.push({ name: stored.tool_names[row[at]!]!, start_ms: row[at + 1]!, duration_ms: row[at + 2]! });
      const components = Object.fromEntries(LATENCY_COMPONENTS.map((component, index) => [component, row[2 + index]]));
      return {
        turn: row[0]!,
        at_ms: row[1]!,
        ...(components as Record<LatencyComponent, number | null>),
        tools,
      };
    }),
    summary: stored.summary,
  };
}

/**
 * Sets the run's `latency`, and nothing else: whoever ended the run (this call's media task or a
 * provider's status callback, whichever came first), the measurements come from the media task.
 * False when the run is gone (deleted meanwhile).
 */
export async function recordRunLatency(ref: RunRef, latency: CallLatency): Promise<boolean> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.run(ref.organizationId, ref.agentId, ref.runId),
        UpdateExpression: 'SET latency = :latency',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':latency': packLatency(latency) },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/** Each component's counters are attributes `<prefix><bucket>` of the day's item (ADD works on top-level numbers only). */
const PREFIXES: Record<LatencyComponent, string> = {
  transcription_ms: 'tr',
  endpointing_ms: 'ep',
  model_ms: 'md',
  tools_ms: 'tl',
  text_to_speech_ms: 'ts',
  overhead_ms: 'oh',
  voice_to_voice_ms: 'vv',
};
const COUNTER = /^(tr|ep|md|tl|ts|oh|vv)(\d+)$/;
const COMPONENT_OF = Object.fromEntries(Object.entries(PREFIXES).map(([component, prefix]) => [prefix, component]));
/** Counters per request: keeps the expression well inside DynamoDB's 4 KB (a call touches at most 7 × 120). */
const COUNTERS_PER_UPDATE = 150;

/** Adds a call's turns to its agent's day (`2026-11-25`, UTC). */
export async function addLatencyHistogram(
  orgId: number,
  agentId: number,
  day: string,
  increments: LatencyHistogram,
): Promise<void> {
  const counters: [string, number][] = [['turn_count', increments.turn_count]];
  for (const component of LATENCY_COMPONENTS)
    for (const [bucket, count] of Object.entries(increments.counts[component]))
      counters.push([`${PREFIXES[component]}${bucket}`, count]);
  for (let first = 0; first < counters.length; first += COUNTERS_PER_UPDATE) {
    const chunk = counters.slice(first, first + COUNTERS_PER_UPDATE);
    const values: Record<string, unknown> = { ':agent': agentId, ':day': day, ':type': 'latencyDay' };
    const adds = chunk.map(([attribute, count]) => {
      values[`:c${count}`] = count;
      return `${attribute} :c${count}`;
    });
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: keys.latencyDay(orgId, day, agentId),
        UpdateExpression: `SET agent_id = :agent, #day = :day, #type = :type ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: { '#day': 'day', '#type': 'type' },
        ExpressionAttributeValues: values,
      }),
    );
  }
}

/** The organization's agent days from `firstDay` to `lastDay` (inclusive), days then agents in order; one agent's only with `agentId`. */
export async function listLatencyHistograms(
  orgId: number,
  firstDay: string,
  lastDay: string,
  agentId?: number,
): Promise<AgentDayHistogram[]> {
  const items = await queryItems({
    KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
    ...(agentId === undefined ? {} : { FilterExpression: 'agent_id = :agent' }),
    ExpressionAttributeValues: {
      ':pk': keys.orgPartition(orgId),
      ':from': `${keys.latencyDaySkPrefix}${firstDay}`,
      ':to': `${keys.latencyDaySkPrefix}${lastDay}#~`,
      ...(agentId === undefined ? {} : { ':agent': agentId }),
    },
  });
  return items.map((item) => {
    const histogram = emptyHistogram();
    histogram.turn_count = Number(item.turn_count ?? 0);
    for (const [attribute, count] of Object.entries(item)) {
      const match = COUNTER.exec(attribute);
      if (match) histogram.counts[COMPONENT_OF[match[1]!] as LatencyComponent][Number(match[2])] = Number(count);
    }
    return { day: String(item.day), agent_id: Number(item.agent_id), histogram };
  });
}
