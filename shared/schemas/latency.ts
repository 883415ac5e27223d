import * as z from 'zod';
import {
  LATENCY_COMPONENTS,
  MAX_LATENCY_MS,
  MAX_LATENCY_TURNS,
  MAX_TOOL_NAME_CHARS,
  MAX_TURN_TOOLS,
  type LatencyComponent,
} from '../domain/call-latency.ts';
import { AgentIdParam } from './agents.ts';
import { documentedInt, MAX_ANSWER_CHARS } from './bounds.ts';
import { UsageQuery } from './usage.ts';

/** A delay in whole ms (int32, never negative). */
const milliseconds = () => documentedInt(z.int().gte(0).lte(MAX_LATENCY_MS));
const delay = (description: string) => milliseconds().nullable().openapi({ description });

const COMPONENT_DESCRIPTIONS: Record<LatencyComponent, string> = {
  transcription_ms: "The caller's end of speech to the final transcript of their turn; null for a turn of keys.",
  endpointing_ms: 'The final transcript to the turn decided by the end-of-turn policy.',
  model_ms: "The turn decided to the model's first sentence ready to speak, minus the time in tools.",
  tools_ms:
    'The time in tool calls before the first sentence (they delay the answer); null when the turn called no tool.',
  text_to_speech_ms: "The first sentence to text-to-speech's first audio byte; null for a chat.",
  overhead_ms: 'The first audio byte (a chat: the first sentence) to the first frame sent to the caller: our own work.',
  voice_to_voice_ms: "The caller's end of speech to the first frame of the answer sent.",
};

const components = Object.fromEntries(
  LATENCY_COMPONENTS.map((component) => [component, delay(COMPONENT_DESCRIPTIONS[component])]),
) as Record<LatencyComponent, ReturnType<typeof delay>>;

export const LatencyPercentiles = z
  .object({
    p50: milliseconds().nullable(),
    p95: milliseconds().nullable(),
  })
  .openapi('LatencyPercentiles', { description: 'Nearest-rank p50 and p95; null when no turn has the value.' });

const percentiles = Object.fromEntries(
  LATENCY_COMPONENTS.map((component) => [component, LatencyPercentiles]),
) as Record<LatencyComponent, typeof LatencyPercentiles>;

export const TurnLatency = z
  .object({
    turn: documentedInt(z.int().gte(1).lte(MAX_LATENCY_MS)).openapi({ description: "1 for the caller's first turn." }),
    at_ms: milliseconds().openapi({
      description: "The end of the caller's speech, in ms since the call was answered (`answered_at`).",
    }),
    ...components,
    tools: z
      .array(
        z.object({
          name: z.string().max(MAX_TOOL_NAME_CHARS),
          start_ms: milliseconds().openapi({ description: "From the end of the caller's speech." }),
          duration_ms: milliseconds(),
        }),
      )
      .max(MAX_TURN_TOOLS)
      .openapi({ description: `Each tool call of the turn, in order (the first ${MAX_TURN_TOOLS}).` }),
  })
  .openapi('TurnLatency');

export const CallLatency = z
  .object({
    greeting_ms: delay(
      "The call answered (the media stream started, the session connected) to the first frame of the agent's first words sent; null when the agent did not speak first.",
    ),
    turns: z
      .array(TurnLatency)
      .max(MAX_LATENCY_TURNS)
      .openapi({ description: `One per caller turn the agent answered, in order (the first ${MAX_LATENCY_TURNS}).` }),
    summary: z
      .object({
        turn_count: documentedInt(z.int().gte(0).lte(MAX_LATENCY_MS)).openapi({
          description: 'Every turn of the call, listed or not.',
        }),
        ...percentiles,
      })
      .openapi({ description: "p50 and p95 of each component over all the call's turns." }),
  })
  .openapi('CallLatency', {
    description:
      "Each turn's latency, measured by the media service on the call's clock (docs: Latency of each turn). The components of a turn are measured each from the previous mark: they sum to `voice_to_voice_ms` where all marks exist. Null until the call ends, and for a call that never connected.",
  });

export const LatencyUsageQuery = UsageQuery.extend({
  agent_id: AgentIdParam.shape.agent_id.optional().openapi({ description: 'One agent only (integer or public id).' }),
});

export const LatencyUsage = z
  .object({
    from: z.iso.date().openapi({ maxLength: 10, description: 'First day covered (UTC).' }),
    to: z.iso.date().openapi({ maxLength: 10, description: 'Day after the last day covered (exclusive).' }),
    group_by: z.enum(['day', 'month']),
    items: z
      .array(
        z.object({
          period: z.string().max(10).openapi({ description: '`2026-11-25` per day, `2026-11` per month (UTC).' }),
          agent_id: documentedInt(z.int().gte(0)),
          turn_count: documentedInt(z.int().gte(0)),
          ...percentiles,
        }),
      )
      .max(MAX_ANSWER_CHARS)
      .openapi({ description: 'One per period and agent that had turns, by period then agent.' }),
  })
  .openapi('LatencyUsage', {
    description:
      "Per agent, p50 and p95 of each turn's latency over a period, from per-agent daily histograms kept as each call ends (fixed buckets: exact to a bucket, within 4.6 % from 100 ms up; never averages of percentiles). They hold no content and stay when runs are deleted.",
  });
