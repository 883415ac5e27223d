/**
 * The per-turn latency figures the API gives: a run's `latency` (GET /calls/{run_id}, the run of an
 * agent) and `GET /usage/latency`. Typed here, matching their documentation, until the generated
 * client (`client/openapi.d.ts`) carries them; then these become aliases of its schemas. All times
 * are whole milliseconds, `null` where the mark never happened.
 */
import type { components } from '../../../client/openapi.d.ts';

export interface Percentiles {
  p50: number | null;
  p95: number | null;
}

/** The components of a turn's voice-to-voice time, in the order they happen, each with its colour in every view. */
export const COMPONENTS = [
  { key: 'transcription_ms', label: 'Transcription', hint: 'end of speech to the final transcript', colour: '#0b57d0' },
  { key: 'endpointing_ms', label: 'Endpointing', hint: 'to the turn decided', colour: '#6f42c1' },
  { key: 'model_ms', label: 'Model', hint: 'to the first sentence, without tools', colour: '#1e7e34' },
  { key: 'tools_ms', label: 'Tools', hint: 'tool calls during the turn', colour: '#b35c00' },
  { key: 'text_to_speech_ms', label: 'Text-to-speech', hint: 'to the first audio byte', colour: '#c2185b' },
  { key: 'overhead_ms', label: 'Overhead', hint: 'to the first frame sent (the platform)', colour: '#5f6368' },
] as const;
export type ComponentKey = (typeof COMPONENTS)[number]['key'];

export const colourOf = (key: ComponentKey): string => COMPONENTS.find((component) => component.key === key)!.colour;

export interface ToolCall {
  name: string;
  /** From the end of the caller's speech. */
  start_ms: number;
  duration_ms: number;
}

export type TurnLatency = { turn: number; at_ms: number; voice_to_voice_ms: number | null; tools: ToolCall[] } & Record<
  ComponentKey,
  number | null
>;

export type LatencyFigures = { voice_to_voice_ms: Percentiles } & Record<ComponentKey, Percentiles>;

export interface CallLatency {
  greeting_ms: number | null;
  turns: TurnLatency[];
  summary: { turn_count: number } & LatencyFigures;
}

/** A run as the API gives it once `latency` is documented on it (absent on a run served before). */
export type RunWithLatency = components['schemas']['Run'] & { latency?: CallLatency | null };

export type LatencyPeriod = { period: string; agent_id: number; turn_count: number } & LatencyFigures;

export interface LatencyReport {
  from: string;
  to: string;
  group_by: 'day' | 'month';
  items: LatencyPeriod[];
}

const grouped = new Intl.NumberFormat('en-US');

/** `1,062 ms`, or a dash where the mark never happened. */
export const ms = (value: number | null | undefined): string => (value == null ? '—' : `${grouped.format(value)} ms`);

/** `1.06 s` for a short label. */
export const seconds = (value: number): string => `${(value / 1000).toFixed(2)} s`;
