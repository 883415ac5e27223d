/**
 * `npm run bench`: Lambda bundle sizes; the local p50/p99 latency of GET /agents with the
 * authorizer included over 1,000 sequential requests, with the authorizer cache (as on AWS) and
 * without (every request runs the authorizer's GetItem); call placement latency; and admission of
 * 200 concurrent placements against 10 channels; the voice pipeline's own latency per turn
 * (bench/voice-latency.ts). Prints figures; asserts nothing.
 */
import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from '../local/paths.ts';
import { bundleSizes } from './bundle-sizes.ts';
import type { CampaignFigures } from './campaign.ts';
import type { LatencyFigures } from './latency.ts';
import type { VoiceLatencyFigures } from './voice-latency.ts';

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;
const figures = (f: LatencyFigures) => `p50 ${ms(f.p50)}, p99 ${ms(f.p99)}, mean ${ms(f.mean)}, max ${ms(f.max)}`;

function scenario<T>(...args: string[]): T {
  return runJson<T>('bench/scenario.ts', ...args);
}

function runJson<T>(script: string, ...args: string[]): T {
  const output = execFileSync('npx', ['tsx', script, ...args], { cwd: REPO_ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(output.trim().split('\n').at(-1)!) as T;
}

console.log('Lambda bundles (as synthesized by CDK):');
for (const bundle of bundleSizes()) console.log(`  ${bundle.name.padEnd(40)} ${kib(bundle.raw).padStart(12)}  (gzip ${kib(bundle.gzip)})`);

for (const [label, ttl] of [
  ['authorizer cache on (60 s)', '60'],
  ['authorizer cache off', '0'],
] as const) {
  const result = scenario<LatencyFigures & { agents: number }>('agents-list', ttl);
  console.log(`GET /agents (${result.agents} agents), ${result.requests} sequential requests, ${label}: ${figures(result)}`);
}

const calls = scenario<{ placement: LatencyFigures; admission: { admitted: number; refused: number; other: number } }>('calls');
console.log(`POST /agents/{id}/calls, ${calls.placement.requests} sequential placements: ${figures(calls.placement)}`);
console.log(`200 concurrent placements, capacity 10: ${calls.admission.admitted} admitted, ${calls.admission.refused} refused with 429, ${calls.admission.other} other`);

const campaign = scenario<CampaignFigures>('campaign', process.env.BENCH_CONTACTS ?? '10000');
console.log(
  `Campaign of ${campaign.contacts} contacts, ${campaign.channels} channels, instant simulated calls: created in ${campaign.createSeconds.toFixed(1)} s, ` +
    `ran in ${campaign.runSeconds.toFixed(1)} s; ${campaign.engineSteps} engine steps, ${campaign.transitionsPerContact.toFixed(2)} state transitions ` +
    `and ${campaign.dynamoRequestsPerContact.toFixed(1)} DynamoDB requests (application client) per contact`,
);

const voice = runJson<VoiceLatencyFigures>('bench/voice-latency.ts', process.env.BENCH_TURNS ?? '200');
console.log(
  `Voice pipeline, ${voice.turns} turns, end of caller speech to first agent audio frame: overhead p50 ${ms(voice.overhead.p50)}, p95 ${ms(voice.overhead.p95)}, ` +
    `max ${ms(voice.overhead.max)} (total p50 ${ms(voice.total.p50)}, p95 ${ms(voice.total.p95)}; fixed provider delays STT ${voice.fakeDelaysMs.stt} + ` +
    `model ${voice.fakeDelaysMs.llm} + TTS ${voice.fakeDelaysMs.tts} ms = ${(voice.providerShareP50 * 100).toFixed(1)} % of the p50 total)`,
);
