/**
 * `npm run bench`: Lambda bundle sizes, and the local p50/p99 latency of GET /agents with the
 * authorizer included, over 1,000 sequential requests — once with the authorizer cache (as
 * configured on AWS) and once with it off (every request runs the authorizer's GetItem); call
 * placement latency, and admission of 200 concurrent placements against 10 channels.
 * Prints figures; asserts nothing.
 */
import { startLocalStack } from '../local/stack.ts';
import { bundleSizes } from './bundle-sizes.ts';
import { admissionUnderConcurrency, placementLatency } from './calls.ts';
import { measureSequential, type LatencyFigures } from './latency.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const AGENTS = 25;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function agentListLatency(authorizerCacheTtlSeconds: number): Promise<LatencyFigures> {
  const stack = await startLocalStack({ port: 0, logLevel: 'SILENT', authorizerCacheTtlSeconds });
  try {
    const { createOrganization } = await import('../shared/services/organizations.ts');
    const { apiKey } = await createOrganization({ name: 'Benchmark' });
    const headers = { 'X-API-Key': apiKey.key, 'Content-Type': 'application/json' };
    for (let i = 0; i < AGENTS; i += 1) {
      await fetch(`${stack.baseUrl}/agents`, { method: 'POST', headers, body: JSON.stringify({ name: `Agent ${i}` }) });
    }
    // Warm-up: module imports and JIT, as a warm Lambda would be.
    await measureSequential(20, () => fetch(`${stack.baseUrl}/agents`, { headers }));
    return await measureSequential(REQUESTS, () => fetch(`${stack.baseUrl}/agents`, { headers }));
  } finally {
    await stack.stop();
  }
}

console.log('Lambda bundles (as synthesized by CDK):');
for (const bundle of bundleSizes()) console.log(`  ${bundle.name.padEnd(40)} ${kib(bundle.raw).padStart(12)}  (gzip ${kib(bundle.gzip)})`);

for (const [label, ttl] of [
  ['authorizer cache on (60 s)', 60],
  ['authorizer cache off', 0],
] as const) {
  const figures = await agentListLatency(ttl);
  console.log(
    `GET /agents (${AGENTS} agents), ${figures.requests} sequential requests, ${label}: ` +
      `p50 ${ms(figures.p50)}, p99 ${ms(figures.p99)}, mean ${ms(figures.mean)}, max ${ms(figures.max)}`,
  );
}

const stack = await startLocalStack({ port: 0, logLevel: 'SILENT' });
try {
  const placement = await placementLatency(stack.baseUrl, Number(process.env.BENCH_CALLS ?? 200));
  console.log(
    `POST /agents/{id}/calls, ${placement.requests} sequential placements: ` +
      `p50 ${ms(placement.p50)}, p99 ${ms(placement.p99)}, mean ${ms(placement.mean)}, max ${ms(placement.max)}`,
  );
  const admission = await admissionUnderConcurrency(stack.baseUrl, 200, 10);
  console.log(`200 concurrent placements, capacity 10: ${admission.admitted} admitted, ${admission.refused} refused with 429, ${admission.other} other`);
  await stack.idle();
} finally {
  await stack.stop();
}
