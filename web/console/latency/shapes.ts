/**
 * The per-turn latency figures the API gives (a run's `latency` and `GET /usage/latency`), as the
 * generated client types them, and the components' labels and colours in every view. All times are
 * whole milliseconds, `null` where the mark never happened.
 */
import type { components } from '../../../client/openapi.d.ts';

type Schemas = components['schemas'];

export type Percentiles = Schemas['LatencyPercentiles'];

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

export type ToolCall = Schemas['TurnLatency']['tools'][number];
export type TurnLatency = Schemas['TurnLatency'];
export type CallLatency = NonNullable<Schemas['CallLatency']>;
export type LatencyFigures = CallLatency['summary'];
/** A run as `GET …/conversations/{id}` gives it (`latency` null until the call ends). */
export type RunWithLatency = Schemas['Run'];
export type LatencyReport = Schemas['LatencyUsage'];
export type LatencyPeriod = LatencyReport['items'][number];

const grouped = new Intl.NumberFormat('en-US');

/** `1,062 ms`, or a dash where the mark never happened. */
export const ms = (value: number | null | undefined): string => (value == null ? '—' : `${grouped.format(value)} ms`);

/** `1.06 s` for a short label. */
export const seconds = (value: number): string => `${(value / 1000).toFixed(2)} s`;
