import { describe, expect, it } from 'vitest';
import { preCallVariables } from '../../media/src/agent/pre-call-fetch.ts';
import type { FlowDefinition } from '../../shared/domain/flows.ts';

const flow = (url: string): FlowDefinition => ({
  nodes: [
    {
      id: 'start',
      type: 'startCall',
      name: 'Start',
      prompt: 'Greet.',
      pre_call_fetch: { url, variables: ['tier', 'balance', 'nested'] },
    },
    { id: 'end', type: 'endCall', name: 'End' },
  ],
  edges: [{ source: 'start', target: 'end' }],
});

/** A fetch answering `body` with `status`, noting the URLs asked for. */
function fetching(status: number, body: string) {
  const urls: string[] = [];
  const fetch = async (input: string | URL | Request) => {
    urls.push(String(input));
    return new Response(body, { status, headers: { 'Content-Type': 'application/json' } });
  };
  return { fetch, urls };
}

describe("a flow's pre-call fetch", () => {
  it('takes the listed top-level keys with a plain value; the URL is filled from the call details', async () => {
    const { fetch, urls } = fetching(200, JSON.stringify({ tier: 'gold', balance: 12.5, nested: { a: 1 }, other: 1 }));
    const logs: string[] = [];
    const values = await preCallVariables(
      flow('https://crm.example.com/customers/{{initial_context.customer_id}}'),
      { customer_id: 'c-42' },
      { fetch, log: (message) => logs.push(message) },
    );
    expect(values).toEqual({ tier: 'gold', balance: 12.5 });
    expect(urls).toEqual(['https://crm.example.com/customers/c-42']);
    expect(logs).toEqual(['Pre-call fetch: tier, balance from crm.example.com']);
  });

  it.each([
    ['an error status', 500, '{}', /HTTP 500/],
    ['not JSON', 200, 'not json', /JSON/],
    ['not an object', 200, '[1, 2]', /not a JSON object/],
  ])('%s leaves the variables unset and says why', async (_case, status, body, reason) => {
    const logs: string[] = [];
    const values = await preCallVariables(
      flow('https://crm.example.com/x'),
      {},
      { fetch: fetching(status, body).fetch, log: (message) => logs.push(message) },
    );
    expect(values).toEqual({});
    expect(logs[0]).toMatch(/^Pre-call fetch failed/);
    expect(logs[0]).toMatch(reason);
  });

  it('goes through the SSRF guard at use: a private address is refused before any connection', async () => {
    const logs: string[] = [];
    const values = await preCallVariables(
      flow('https://10.0.0.5/internal'),
      {},
      { log: (message) => logs.push(message) },
    );
    expect(values).toEqual({});
    expect(logs[0]).toMatch(/10\.0\.0\.5 is not a public address \(private\)/);
  });

  it('no flow, or a flow without a pre-call fetch, fetches nothing', async () => {
    expect(await preCallVariables(null, {}, { log: () => {} })).toEqual({});
  });
});
