/** Call placement figures: sequential latency, and admission under concurrency against a capacity. */
import { daytimeNumber } from '../test/support/phone-numbers.ts';
import { measureSequential, type LatencyFigures } from './latency.ts';

async function organizationWithAgent(baseUrl: string, name: string, maxConcurrentCalls: number) {
  const { createOrganization } = await import('../shared/services/organizations.ts');
  const { apiKey } = await createOrganization({ name, maxConcurrentCalls });
  const headers = { 'X-API-Key': apiKey.key, 'Content-Type': 'application/json' };
  const agent = (await (
    await fetch(`${baseUrl}/agents`, { method: 'POST', headers, body: JSON.stringify({ name }) })
  ).json()) as { public_id: string };
  return { headers, url: `${baseUrl}/agents/${agent.public_id}/calls` };
}

/** Placement latency (busy numbers: the channel frees within a second, so capacity never binds). */
export async function placementLatency(baseUrl: string, requests: number): Promise<LatencyFigures> {
  const { headers, url } = await organizationWithAgent(baseUrl, 'Placement latency', 100_000);
  const body = JSON.stringify({ phone_number: daytimeNumber(7) });
  await measureSequential(10, () => fetch(url, { method: 'POST', headers, body }));
  return measureSequential(requests, () => fetch(url, { method: 'POST', headers, body }));
}

/** `concurrent` simultaneous placements against `capacity` channels (answered calls hold theirs). */
export async function admissionUnderConcurrency(baseUrl: string, concurrent: number, capacity: number) {
  const { headers, url } = await organizationWithAgent(baseUrl, 'Admission', capacity);
  const body = JSON.stringify({ phone_number: daytimeNumber(1) });
  const statuses = await Promise.all(
    Array.from({ length: concurrent }, () =>
      fetch(url, { method: 'POST', headers, body }).then((response) => response.status),
    ),
  );
  const count = (status: number) => statuses.filter((candidate) => candidate === status).length;
  return { admitted: count(200), refused: count(429), other: statuses.length - count(200) - count(429) };
}
