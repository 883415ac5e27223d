import { afterEach, describe, expect, it, vi } from 'vitest';
import { METRICS_NAMESPACE } from '../../shared/config/settings.ts';

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

/** The EMF documents written to stdout while `work` runs. */
async function emitted(
  work: (module: typeof import('../../shared/observability/metrics.ts')) => void,
): Promise<Record<string, any>[]> {
  vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', METRICS_NAMESPACE);
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
  vi.resetModules();
  const module = await import('../../shared/observability/metrics.ts');
  const lines: string[] = [];
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  work(module);
  return lines
    .flatMap((line) => line.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line));
}

describe('custom metrics (Embedded Metric Format)', () => {
  it('publishes each count at once, in the namespace the alarms read, with the one service dimension', async () => {
    const documents = await emitted(({ countMetric, METRICS }) => countMetric(METRICS.stuckRunsEnded, 2));
    expect(documents).toHaveLength(1);
    const [document] = documents;
    expect(document!._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: METRICS_NAMESPACE,
      Dimensions: [['service']],
      Metrics: [{ Name: 'StuckRunsEnded', Unit: 'Count' }],
    });
    expect(document).toMatchObject({ service: 'voice-agent-platform', StuckRunsEnded: 2 });
  });

  it('counts a call outcome once by its outcome, and answered calls as answered', async () => {
    const names = (
      await emitted(({ countCallOutcome }) => {
        countCallOutcome('completed', true);
        countCallOutcome('busy', false);
        countCallOutcome('failed', false);
      })
    ).map((document) => document._aws.CloudWatchMetrics[0].Metrics[0].Name);
    expect(names).toEqual(['CallsAnswered', 'CallsCompleted', 'CallsUnanswered', 'CallsFailed']);
  });
});
