/**
 * One benchmark scenario against its own local stack, in its own process (the SDK clients of the
 * in-process handlers are bound to one stack's endpoints). Prints one JSON line of figures.
 *
 *   tsx bench/scenario.ts agents-list <authorizer cache TTL seconds>
 *   tsx bench/scenario.ts calls
 *   tsx bench/scenario.ts campaign <label> <contacts> <channels> <last digit> <answered call seconds> <calls per second>
 */
import { startLocalStack } from '../local/stack.ts';
import { admissionUnderConcurrency, placementLatency } from './calls.ts';
import { runCampaign } from './campaign.ts';
import { measureSequential } from './latency.ts';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 1000);
const AGENTS = 25;
const [scenario, argument, ...rest] = process.argv.slice(2);

// The benchmarks measure the platform, not the per-organization rate limit: lift it.
const stack = await startLocalStack({
  port: 0,
  logLevel: 'SILENT',
  authorizerCacheTtlSeconds: scenario === 'agents-list' ? Number(argument) : 60,
  // The engine looks in as rarely as on AWS (completions refill their channels themselves), or as
  // often as `npm start` does (BENCH_POLL_SECONDS=1): a poll must cost the same whatever the size.
  campaignPollSeconds: Number(process.env.BENCH_POLL_SECONDS ?? 60),
  usagePlan: { rateLimit: 1_000_000, burstLimit: 1_000_000 },
  // The platform's provider account's call rate (campaign scenarios choose theirs).
  ...(scenario === 'campaign' ? { callsPerSecond: Number(rest[4]) } : {}),
});
try {
  if (scenario === 'agents-list') {
    const { createOrganization } = await import('../shared/services/organizations.ts');
    const { apiKey } = await createOrganization({ name: 'Benchmark' });
    const headers = { 'X-API-Key': apiKey.key, 'Content-Type': 'application/json' };
    for (let i = 0; i < AGENTS; i += 1) {
      await fetch(`${stack.baseUrl}/agents`, { method: 'POST', headers, body: JSON.stringify({ name: `Agent ${i}` }) });
    }
    // Warm-up: module imports and JIT, as a warm Lambda would be.
    await measureSequential(20, () => fetch(`${stack.baseUrl}/agents`, { headers }));
    console.log(
      JSON.stringify({
        agents: AGENTS,
        ...(await measureSequential(REQUESTS, () => fetch(`${stack.baseUrl}/agents`, { headers }))),
      }),
    );
  } else if (scenario === 'calls') {
    const placement = await placementLatency(stack.baseUrl, Number(process.env.BENCH_CALLS ?? 200));
    const admission = await admissionUnderConcurrency(stack.baseUrl, 200, 10);
    await stack.idle();
    console.log(JSON.stringify({ placement, admission }));
  } else if (scenario === 'campaign') {
    const [contacts, channels, lastDigit, callSeconds, callsPerSecond] = rest.map(Number);
    const scenario = {
      label: argument!,
      contacts: contacts!,
      channels: channels!,
      lastDigit: lastDigit!,
      callSeconds: callSeconds!,
      callsPerSecond: callsPerSecond!,
    };
    console.log(JSON.stringify(await runCampaign(stack.baseUrl, scenario)));
    await stack.idle();
  } else {
    throw new Error(`Unknown scenario '${scenario}'`);
  }
} finally {
  await stack.stop();
}
