/**
 * Each turn's latency as CloudWatch metrics per agent: Powertools Metrics writes Embedded Metric
 * Format lines on stdout, which CloudWatch extracts from the task's log group (no API call, no
 * permission). One line carries a call's values (a metric's values as a list, up to 99 turns a
 * line), so CloudWatch's percentiles over an agent's turns are exact and a call costs one write.
 */
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { LatencyComponent } from '../../../shared/domain/call-latency.ts';
import type { CallLatencyReport, TurnTelemetry } from './turn-telemetry.ts';

/** The metric of each component of a turn (milliseconds), in the namespace the stack sets. */
export const TURN_LATENCY_METRICS = {
  voice_to_voice_ms: 'VoiceToVoiceLatency',
  transcription_ms: 'TranscriptionLatency',
  endpointing_ms: 'EndpointingLatency',
  model_ms: 'ModelLatency',
  tools_ms: 'ToolsLatency',
  text_to_speech_ms: 'TextToSpeechLatency',
  overhead_ms: 'OverheadLatency',
} as const satisfies Record<LatencyComponent, string>;

/** The greeting's delay (milliseconds), one value per call the agent opened. */
export const GREETING_METRIC = 'GreetingDelay';

/** The dimension beside `service`: each agent's figures apart. */
export const AGENT_DIMENSION = 'agent_id';

/**
 * Powertools publishes a metric on its own once it holds 100 values, dropping the dimensions of
 * the values after it: a call's turns go in lines of fewer.
 */
const TURNS_PER_LINE = 99;

export class LatencyMetrics implements TurnTelemetry {
  /** `metrics`: its namespace and service name set; shared by the task's calls (each call's lines are written at once). */
  constructor(private readonly metrics: Metrics) {}

  callEnded({ agentId, greetingMs, turns }: CallLatencyReport): void {
    const components = Object.entries(TURN_LATENCY_METRICS) as [LatencyComponent, string][];
    for (let first = 0; first === 0 || first < turns.length; first += TURNS_PER_LINE) {
      const greeting = first === 0 ? greetingMs : null;
      const line = turns.slice(first, first + TURNS_PER_LINE);
      if (greeting === null && !line.some((turn) => components.some(([component]) => turn[component] !== null)))
        continue;
      this.metrics.addDimension(AGENT_DIMENSION, String(agentId));
      if (greeting !== null) this.metrics.addMetric(GREETING_METRIC, MetricUnit.Milliseconds, greeting);
      for (const turn of line)
        for (const [component, name] of components) {
          const value = turn[component];
          if (value !== null) this.metrics.addMetric(name, MetricUnit.Milliseconds, value);
        }
      this.metrics.publishStoredMetrics();
    }
  }
}
