import { afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeVoiceProviders, type FakeVoiceProviders } from '../../local/fakes/voice-providers.ts';
import { loadElevenLabs, platformProviders } from '../../media/src/agent/providers.ts';
import { startMediaService, type MediaService } from '../../media/src/service.ts';
import { prepareUrl, purposeRef } from '../../shared/domain/live-call-access.ts';
import { mintStreamToken } from '../../shared/telephony/stream-token.ts';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from '../support/api.ts';
import { daytimeNumber } from '../support/phone-numbers.ts';
import { eventually } from '../support/webhook-receiver.ts';
import { NO_TELEMETRY } from '../../media/src/telemetry/turn-telemetry.ts';
import { dynamoDocumentClient } from '../../shared/aws/clients.ts';

const api = apiClient();
let org: TestOrganization;

beforeAll(async () => {
  org = await newOrganization('Early connections', 2);
  // The ElevenLabs SDK loaded before this file's media services take calls, as the task loads it
  // (media/src/main.ts): its load is about 1.7 s of CPU with the event loop blocked, several seconds
  // on a loaded machine, which inside a test ran out the model warm-up's 5 s timeout (no listing).
  await loadElevenLabs();
});

async function endedCall(workflowDefinition: object, phoneNumber: string) {
  const agent = await api.request('POST', '/agents', {
    key: org.key,
    body: {
      name: 'Early',
      workflow_definition: workflowDefinition,
      call_disposition_codes: { done: 'Done' },
      workflow_configurations: { language: 'en', silence_timeout_seconds: 6 },
    },
  });
  expect(agent.status).toBe(201);
  const placed = await api.request('POST', `/agents/${agent.body.public_id}/calls`, {
    key: org.key,
    body: { phone_number: phoneNumber, initial_context: { name: 'Anna' } },
  });
  expect(placed.status).toBe(200);
  const path = `/agents/${agent.body.public_id}/conversations/${placed.body.workflow_run_id}`;
  const run = await eventually(async () => {
    const current = await api.request('GET', path, { key: org.key });
    return current.body.status !== 'in_progress' ? current.body : undefined;
  }, 40_000);
  const transcript = await api.request('GET', `${path}/transcript`, { key: org.key });
  return {
    run,
    messages: run.logs.map((log: { message: string }) => log.message) as string[],
    lines: transcript.body.segments.map(({ role, text }: { role: string; text: string }) => `${role}: ${text}`),
  };
}

describe.skipIf(needsLocalStack)('a dialed call made ready while it rings (the local Twilio)', () => {
  it(
    'starts with the greeting (its initial context filled in) synthesized and the model connection opened before the answer',
    { timeout: 60_000 },
    async () => {
      const { run, messages, lines } = await endedCall(
        { greeting: 'Hi {{initial_context.name}}, Smile clinic here.', steps: ['Anything else?'] },
        daytimeNumber(2, 3),
      );
      expect(run.status).toBe('completed');
      // The dialer asked while the phone rang; the answered call took what was opened then.
      const dialed = messages.indexOf('Dialing through twilio');
      const prepared = messages.indexOf("Prepared while the call rang: the greeting's speech, the model's connection");
      expect(dialed).toBeGreaterThanOrEqual(0);
      expect(prepared).toBeGreaterThan(dialed);
      // The greeting prepared is the one the caller heard first; the caller was heard through the stream opened on answer.
      expect(lines.slice(0, 2)).toEqual(['assistant: Hi Anna, Smile clinic here.', 'user: Hello, who is this?']);
    },
  );

  it(
    'an agent whose first words come from the model has the model connection opened',
    { timeout: 60_000 },
    async () => {
      const { messages, lines } = await endedCall({ steps: ['Anything else?'] }, daytimeNumber(2, 4));
      expect(messages).toContain("Prepared while the call rang: the model's connection");
      expect(lines[0]).toBe('assistant: Hello, this is Early. How can I help you?');
    },
  );
});

describe.skipIf(needsLocalStack)('the media service preparing calls (POST /prepare)', () => {
  let service: MediaService | undefined;
  let fakes: FakeVoiceProviders | undefined;
  afterEach(async () => {
    await service?.close();
    await fakes?.stop();
    service = fakes = undefined;
  });

  /** A media service of its own (the stack's table and credential key), with fakes this test can watch. */
  async function start(options: { earlyConnections?: boolean; maxCalls?: number } = {}) {
    Object.assign(process.env, inject('stackEnv'));
    fakes = await startFakeVoiceProviders();
    service = await startMediaService({
      port: 0,
      host: '127.0.0.1',
      calls: { providers: platformProviders(fakes.settings, fakes.readKeys), settings: fakes.settings },
      log: () => {},
      telemetry: NO_TELEMETRY,
      ...options,
    });
    return { service, fakes };
  }

  /** The definition version of each run ref's agent: a prepare request names the run's. */
  const definitionOf = new Map<string, number>();
  async function agentRunRef(runId: number, greeting = 'Hi {{initial_context.name}}.') {
    const agent = await api.request('POST', '/agents', {
      key: org.key,
      body: { name: 'Prepared', workflow_definition: { greeting } },
    });
    expect(agent.status).toBe(201);
    const runRef = `${org.organizationId}.${agent.body.id}.${runId}`;
    definitionOf.set(runRef, agent.body.current_definition_id);
    return runRef;
  }

  const ask = async (port: number, body: object) => {
    const response = await fetch(prepareUrl(`ws://127.0.0.1:${port}/media`), {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as { status?: string; detail?: string } };
  };
  const request = async (runRef: string, purpose: 'prepare' | 'control' = 'prepare') => ({
    run_ref: runRef,
    token: await mintStreamToken(purposeRef(purpose, runRef), 60),
    mode: 'outbound',
    initial_context: { name: 'Anna' },
    definition_id: definitionOf.get(runRef) ?? 1,
  });

  it('synthesizes the greeting of a call nobody answers and opens the model connection, no speech-to-text stream, and releases it when the task stops', async () => {
    const { service, fakes } = await start({ earlyConnections: true });
    const runRef = await agentRunRef(900_001);
    expect(await ask(service.port, await request(runRef))).toEqual({ status: 202, body: { status: 'preparing' } });
    expect(await ask(service.port, await request(runRef))).toEqual({ status: 202, body: { status: 'already' } });
    expect(service.preparedCalls).toBe(1);
    await expect.poll(() => fakes.elevenlabs.texts).toEqual(['Hi Anna.']);
    await expect.poll(() => fakes.openai.modelListings()).toBe(1);
    expect(fakes.deepgram.connections).toHaveLength(0);
    await service.close();
    expect(service.preparedCalls).toBe(0);
  });

  it('reads nothing about the number it calls while it rings (its notes are read at the answer)', async () => {
    const { service, fakes } = await start({ earlyConnections: true });
    const runRef = await agentRunRef(900_008);
    const queried: string[] = [];
    dynamoDocumentClient().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'QueryCommand') {
          const input = args.input as { ExpressionAttributeValues?: Record<string, unknown> };
          queried.push(String(input.ExpressionAttributeValues?.[':pk']));
        }
        return next(args);
      },
      { step: 'initialize', name: 'queriesWhileRinging' },
    );
    try {
      const asked = await ask(service.port, { ...(await request(runRef)), phone_number: '+48221234599' });
      expect(asked).toEqual({ status: 202, body: { status: 'preparing' } });
      // The greeting is synthesized once the call's setup has been read.
      await expect.poll(() => fakes.elevenlabs.texts, { timeout: 20_000 }).toEqual(['Hi Anna.']);
      expect(queried.some((pk) => pk.endsWith('#NOTES#-'))).toBe(true);
      expect(queried.filter((pk) => pk.includes('+48221234599'))).toEqual([]);
    } finally {
      dynamoDocumentClient().middlewareStack.remove('queriesWhileRinging');
    }
  });

  it("synthesizes a greeting without the call's variables once for the agent's calls", async () => {
    const { service, fakes } = await start({ earlyConnections: true });
    const greeting = 'Hello, Smile clinic here.';
    const first = await agentRunRef(900_005, greeting);
    // Another run of the same agent.
    const second = first.replace(/\.900005$/, '.900006');
    definitionOf.set(second, definitionOf.get(first)!);
    expect((await ask(service.port, await request(first))).body.status).toBe('preparing');
    await expect.poll(() => fakes.elevenlabs.texts).toEqual([greeting]);
    expect((await ask(service.port, await request(second))).body.status).toBe('preparing');
    expect(service.preparedCalls).toBe(2);
    // A call of another agent with the same words has its own.
    const other = await agentRunRef(900_007, greeting);
    expect((await ask(service.port, await request(other))).body.status).toBe('preparing');
    await expect.poll(() => fakes.elevenlabs.texts).toEqual([greeting, greeting]);
  });

  it('prepares no more calls than the task holds, and none when early connections are off', async () => {
    const full = await start({ earlyConnections: true, maxCalls: 1 });
    const [first, second] = [await agentRunRef(900_002), await agentRunRef(900_003)];
    expect((await ask(full.service.port, await request(first))).body.status).toBe('preparing');
    expect((await ask(full.service.port, await request(second))).body.status).toBe('full');
    await full.service.close();
    await full.fakes.stop();

    const off = await start();
    expect(await ask(off.service.port, await request(first))).toEqual({ status: 202, body: { status: 'off' } });
    expect(off.service.preparedCalls).toBe(0);
    expect(off.fakes.deepgram.connections).toHaveLength(0);
  });

  it('refuses a request without a prepare credential for the run, or malformed', async () => {
    const { service } = await start({ earlyConnections: true });
    const runRef = `${org.organizationId}.1.900004`;
    const forged = { ...(await request(runRef)), token: 'forged' };
    expect((await ask(service.port, forged)).status).toBe(401);
    expect((await ask(service.port, await request(runRef, 'control'))).status).toBe(401);
    expect((await ask(service.port, { run_ref: runRef })).status).toBe(400);
    const { definition_id: _version, ...withoutVersion } = await request(runRef);
    expect((await ask(service.port, withoutVersion)).status).toBe(400);
    expect(service.preparedCalls).toBe(0);
  });
});
