import type { TestProject } from 'vitest/node';
import { startLocalStack } from '../../local/stack.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the API under test, ending in /api/v1. */
    baseUrl: string;
    /** Environment that reaches the same table the API uses (to create organizations). */
    stackEnv: Record<string, string>;
    /** The local Twilio's API origin (empty against a deployed stack). */
    telephonyApiUrl: string;
    /** The local Telnyx's origin (empty against a deployed stack). */
    telnyxOrigin: string;
    /** How many times faster than real time the simulated lines run (LocalStackOptions.linePace). */
    linePace: number;
  }
}

/**
 * How many times faster than real time the simulated lines run: the callees' speech, the playing
 * of the agents' audio, the carriers' text-to-speech and answering-machine detection (the media
 * service follows the stream's timestamps; detection, the callee's audio as it goes out); the
 * people's own waits (ringing, a transfer's talk, the callee's patience) stay real time. At 2 the
 * call-placing files take about 0.7 of their time at 1 (docs/testing.md, "Where the time goes").
 */
const LINE_PACE = 2;

/**
 * Starts the local stack (in-memory DynamoDB Local, s3rver in a temporary folder) once for the
 * integration project. With API_BASE_URL set (the LocalStack suite) the tests target that URL
 * instead, and the environment (TABLE_NAME, AWS_ENDPOINT_URL) comes from the caller.
 */
export default async function setup(project: TestProject) {
  if (process.env.API_BASE_URL) {
    project.provide('baseUrl', process.env.API_BASE_URL.replace(/\/$/, ''));
    project.provide('stackEnv', {});
    project.provide('telephonyApiUrl', '');
    project.provide('telnyxOrigin', '');
    project.provide('linePace', 1);
    return;
  }
  const stack = await startLocalStack({
    port: 0,
    logLevel: 'SILENT',
    // DynamoDB Local for a few minutes: its JVM compiles with C1 only and collects with the serial
    // collector. The optimizing compiler's own work costs more than it saves in a run this short (the
    // suite is CPU-bound on CI's two cores): half the JVM's CPU for the same requests, and no slower
    // (`npx tsx bench/dynamodb-local-jvm.ts`, docs/testing.md).
    dynamoDbJvmOptions: ['-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC'],
    authorizerCacheTtlSeconds: 1,
    simCallSeconds: 30,
    linePace: LINE_PACE,
    // The local providers decide a regulated number's review within a fraction of a second.
    regulatoryReviewMs: 200,
    // The retry schedule (5 s, 5 min, ...) runs a thousand times faster: retries within seconds.
    webhookRetryTimeScale: 1000,
    // The every-minute source re-sync runs every second.
    scheduleIntervalScale: 60,
    // No "one moment" filler within a call's length: it comes after 2 s of a silent model on the
    // wall clock, and a loaded machine's fake model can be that slow, so the filler would fall into
    // the scripted lines (a callee says its next line after it; the agent's line starts with it).
    // The filler itself is tested on a fake clock (the prompt-brain and voice-agent unit tests).
    fillerAfterMs: 120_000,
    // The suites send bursts (the fuzz test hundreds a second): the per-organization rate limit
    // has its own test with its own gateway.
    usagePlan: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
  });
  project.provide('baseUrl', stack.baseUrl);
  project.provide('stackEnv', { ...stack.env, LLM_API_KEY: stack.platformModelKey });
  project.provide('telephonyApiUrl', stack.telephonyApiUrl);
  project.provide('telnyxOrigin', stack.telnyxOrigin);
  project.provide('linePace', LINE_PACE);
  return () => stack.stop();
}
