import type { LatencyTurn } from '../../shared/domain/call-latency.ts';

/** A turn's components, none measured. */
export const NO_COMPONENTS = {
  transcription_ms: null,
  endpointing_ms: null,
  model_ms: null,
  tools_ms: null,
  text_to_speech_ms: null,
  overhead_ms: null,
  voice_to_voice_ms: null,
} satisfies Partial<LatencyTurn>;

/** A turn as the run lists it, with only the components given measured (`at_ms`: the end of the caller's speech). */
export function latencyTurnWith(values: Partial<LatencyTurn> & Pick<LatencyTurn, 'turn' | 'at_ms'>): LatencyTurn {
  return { ...NO_COMPONENTS, tools: [], ...values };
}
