import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, needsLocalStack, newOrganization, type TestOrganization } from './api.ts';
import { daytimeNumber } from './phone-numbers.ts';
import { telnyxAccount, useTelnyx } from './telnyx.ts';
import { eventually } from './webhook-receiver.ts';

/**
 * Transfer to a person end to end, through the local Twilio (`<Dial>` with a whisper URL and an
 * action) and the local Telnyx (Call Control `transfer`, a new leg's events, `audio_url`): the
 * caller (a number ending in 341 asks for a person) is handed on cold or warm; a busy, unanswered
 * or machine destination leaves the caller told and the call ended; the control API transfers too.
 */
const api = apiClient();
type Provider = 'twilio' | 'telnyx';

interface Transfer {
  to: string;
  status: string;
  whisper_heard: string | null;
  digits_sent: string | null;
  bridged_ms: number;
}

const origin = (provider: Provider) => (provider === 'twilio' ? inject('telephonyApiUrl') : inject('telnyxOrigin'));
const simulator = async <T>(provider: Provider, what: 'transfers' | 'spoken') =>
  (await (await fetch(`${origin(provider)}/_simulator/${what}`)).json()) as T[];

/** Destinations by the local callee directory: the last digit says who answers. */
const DESTINATION = {
  person: '+442071230412',
  warmPerson: '+442071230422',
  supervised: '+442071230432',
  busy: '+442071230457',
  busyAgain: '+442071230467',
  noAnswer: '+442071230458',
  machine: '+442071230459',
};
const FAILED_PHRASE = "I'm sorry, nobody could take your call right now. Please try again later. Goodbye.";

/** The suite on one provider: each provider has a file of its own, so the two run on two workers at once. */
export function describeTransfers(provider: Provider): void {
  describe.skipIf(needsLocalStack)(`transfer to a person on ${provider}`, () => {
    let org: TestOrganization;
    let offset = 0;

    beforeAll(async () => {
      org = await newOrganization(`Transfers ${provider}`, 8);
      if (provider === 'telnyx') {
        const callerId = '+442079460581';
        expect((await useTelnyx(org, await telnyxAccount([callerId]), callerId)).status).toBe(200);
      }
    });

    async function transferAgent(destination: Record<string, unknown>, timeoutSeconds = 30, onFailure = 'end') {
      const created = await api.request('POST', '/agents', {
        key: org.key,
        body: {
          name: 'Front line',
          workflow_definition: {
            greeting: 'Hi, Smile clinic here.',
            steps: ['How can I help you today?', 'Anything else?', 'Is that all?'],
            closing: 'Bye.',
          },
          workflow_configurations: {
            silence_timeout_seconds: 10,
            transfer: {
              destinations: [{ name: 'front_desk', description: 'A person at the front desk.', ...destination }],
              timeout_seconds: timeoutSeconds,
              on_failure: onFailure,
            },
          },
        },
      });
      expect(created.status).toBe(201);
      return created.body as { id: number; public_id: string };
    }

    /** Places a call to a caller who asks for a person (…341), and gives its run once it has ended. */
    async function transferredCall(agent: { public_id: string }, caller = true) {
      offset += 1;
      const number = caller ? daytimeNumber(1, offset).replace(/\d{3}$/, '341') : daytimeNumber(2, offset);
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: number },
      });
      expect(placed.status).toBe(200);
      const runId = placed.body.workflow_run_id as number;
      return { runId, number, ended: () => endedRun(agent, runId) };
    }

    const endedRun = (agent: { public_id: string }, runId: number) =>
      eventually(
        async () => {
          const run = await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key });
          return run.body.status !== 'in_progress' ? run.body : undefined;
        },
        60_000,
        250,
      );

    /** The simulator's record of the transfer to `address` (each test dials a destination of its own). */
    const transferTo = async (address: string) =>
      eventually(async () => (await simulator<Transfer>(provider, 'transfers')).find((t) => t.to === address));

    // Concurrent: each waits on calls in real time, and each has a destination of its own.
    it.concurrent(
      'cold: hands the caller to the person; the run ends with the transferred call, both legs billed',
      async () => {
        const agent = await transferAgent({ address: DESTINATION.person, extension: 'ww12' });
        const call = await transferredCall(agent);
        const run = await call.ended();
        expect(run.status).toBe('completed');
        expect(run.gathered_context).toMatchObject({
          call_disposition: 'transferred',
          transfer: { destination: 'front_desk', address: DESTINATION.person, mode: 'cold', outcome: 'completed' },
        });
        expect(run.gathered_context.transfer.leg_seconds).toBeGreaterThanOrEqual(1);
        // Two telephony legs under a minute each; the platform's time is the agent's part.
        expect(run.cost).toEqual({ currency: 'USD', telephony_usd: 0.028, platform_usd: 0.05, total_usd: 0.078 });
        const transfer = await transferTo(DESTINATION.person);
        expect(transfer).toMatchObject({ whisper_heard: null, digits_sent: 'ww12' });
        expect(transfer.bridged_ms).toBeGreaterThanOrEqual(1_500);
        const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}/transcript`, {
          key: org.key,
        });
        const lines = transcript.body.segments.map(
          ({ role, text }: { role: string; text: string }) => `${role}: ${text}`,
        );
        expect(lines.slice(-2)).toEqual([
          'user: Can I talk to a person, please?',
          'assistant: Please hold while I transfer your call.',
        ]);
        const messages = run.logs.map((log: { message: string }) => log.message);
        expect(messages).toEqual(
          expect.arrayContaining([
            'Transfer to front_desk asked for by the agent: Can I talk to a person, please?',
            `Transferring to front_desk (${DESTINATION.person}, cold)`,
            expect.stringMatching(/^Transfer answered; the transferred call lasted \d+ s$/),
            'Call ended after the transfer to front_desk: completed',
          ]),
        );
        // Nothing left running at the provider: the caller's call ended with the transfer.
        if (provider === 'telnyx') expect(messages.join('\n')).not.toMatch(/Hung up at telnyx/);
      },
      90_000,
    );

    it.concurrent(
      'warm: the person first hears a summary of the call the model wrote',
      async () => {
        const agent = await transferAgent({ address: DESTINATION.warmPerson, mode: 'warm' });
        const run = await (await transferredCall(agent)).ended();
        expect(run.gathered_context.transfer).toMatchObject({ mode: 'warm', outcome: 'completed' });
        const transfer = await transferTo(DESTINATION.warmPerson);
        // Twilio says the text from its whisper callback; Telnyx plays the agent's voice from `audio_url`.
        expect(transfer.whisper_heard).toBe(
          'Handing over a caller who said: Hello, who is this? / Can I talk to a person, please?',
        );
        expect(transfer.bridged_ms).toBeGreaterThanOrEqual(1_500);
      },
      90_000,
    );

    it.concurrent.each([
      ['a busy destination', { address: DESTINATION.busy }, 'busy', 30],
      ['a destination that rings out (5 s)', { address: DESTINATION.noAnswer }, 'no_answer', 5],
      [
        'a machine on a warm transfer',
        { address: DESTINATION.machine, mode: 'warm', message: 'A caller for you.' },
        'voicemail',
        30,
      ],
    ] as const)(
      '%s: the caller is told, and the call ends',
      async (_name, destination, outcome, timeoutSeconds) => {
        const agent = await transferAgent(destination, timeoutSeconds);
        const call = await transferredCall(agent);
        const run = await call.ended();
        expect(run.status).toBe('completed');
        expect(run.gathered_context).toMatchObject({ call_disposition: 'transfer_failed', transfer: { outcome } });
        expect(run.cost.telephony_usd).toBe(0.014);
        await eventually(async () =>
          (await simulator<{ to: string; text: string; completed: boolean }>(provider, 'spoken')).find(
            (said) => said.to === call.number && said.text === FAILED_PHRASE && said.completed,
          ),
        );
      },
      90_000,
    );

    it.concurrent(
      'not taken, with on_failure continue: the agent takes the call back and finishes it',
      async () => {
        const agent = await transferAgent({ address: DESTINATION.busyAgain }, 30, 'continue');
        const call = await transferredCall(agent);
        const run = await call.ended();
        expect(run.status).toBe('completed');
        expect(run.gathered_context).toMatchObject({
          call_disposition: 'transfer_failed',
          transfer: { destination: 'front_desk', outcome: 'busy', taken_back: true },
        });
        const messages = run.logs.map((log: { message: string }) => log.message);
        expect(messages).toEqual(expect.arrayContaining(['Transfer not taken: busy', 'The agent takes the call back']));
        // One transcript across the transfer: the handoff, then the agent again, to its goodbye.
        const transcript = await api.request('GET', `/agents/${agent.public_id}/conversations/${run.id}/transcript`, {
          key: org.key,
        });
        const lines = transcript.body.segments.map(
          ({ role, text }: { role: string; text: string }) => `${role}: ${text}`,
        );
        expect(lines).toEqual([
          'assistant: Hi, Smile clinic here.',
          'user: Hello, who is this?',
          'assistant: How can I help you today?',
          'user: Can I talk to a person, please?',
          // The handoff phrase, then (a new stream) the agent again: one speaker, one segment.
          'assistant: Please hold while I transfer your call. Anything else?',
          'user: Hello, who is this?',
          'assistant: Is that all?',
          'user: Can I talk to a person, please?',
          'assistant: Bye.',
        ]);
        const wav = await fetch(run.recording_download_url).then((answer) => answer.arrayBuffer());
        // Both parts recorded: several seconds of 8 kHz 16-bit audio.
        expect(wav.byteLength).toBeGreaterThan(8_000 * 2 * 6);
      },
      90_000,
    );

    it.concurrent(
      'through the control API: a supervisor hands a live call on; an unknown destination is a 409',
      async () => {
        const agent = await transferAgent({ address: DESTINATION.supervised });
        const call = await transferredCall(agent, false);
        const path = `/agents/${agent.public_id}/conversations/${call.runId}/control`;
        await eventually(
          async () => {
            const listen = await api.request('POST', `/agents/${agent.public_id}/conversations/${call.runId}/listen`, {
              key: org.key,
            });
            return listen.status === 200 ? true : undefined;
          },
          20_000,
          100,
        );
        const unknown = await api.request('POST', path, {
          key: org.key,
          body: { type: 'transfer', destination: 'billing' },
        });
        expect(unknown.status).toBe(409);
        expect(unknown.body.detail).toBe('The command was not applied: no transfer destination named billing');
        const transferred = await api.request('POST', path, {
          key: org.key,
          body: { type: 'transfer', destination: 'front_desk' },
        });
        expect(transferred.status).toBe(200);
        const run = await call.ended();
        expect(run.gathered_context).toMatchObject({
          call_disposition: 'transferred',
          transfer: { outcome: 'completed' },
        });
        expect(run.logs.map((log: { message: string }) => log.message)).toContain(
          'Transfer to front_desk asked for by the control API',
        );
      },
      90_000,
    );
  });
}
