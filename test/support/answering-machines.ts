import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { apiClient, newOrganization, needsLocalStack, type TestOrganization } from './api.ts';
import { answeringMachine } from '../../local/carrier/callee-directory.ts';
import { daytimeNumber } from './phone-numbers.ts';
import { telnyxAccount, useTelnyx } from './telnyx.ts';
import { eventually } from './webhook-receiver.ts';

/**
 * Asynchronous answering-machine detection on both providers, through the local stack: the stream
 * opens at once whoever answers, the verdict comes where the provider sends it (Twilio's
 * asyncAmdStatusCallback, Telnyx's call webhooks), and the agent's choice on a machine is carried
 * out (its voicemail message after the beep, or a hang-up). Who answers is the local callee
 * directory's choice, by the dialed number: `…9` a machine with a beep, `…59` one without, `…56`
 * a person detection cannot classify, other answered numbers a person.
 */
const api = apiClient();

/** A daytime number ending in `suffix` (the callee directory reads its last digits). */
const endingIn = (suffix: string) => daytimeNumber(Number(suffix.at(-1))).slice(0, -suffix.length) + suffix;

interface Run {
  status: string;
  duration_seconds: number;
  logs: { message: string }[];
}

type Provider = 'twilio' | 'telnyx';

/** What the provider's text-to-speech said on calls (Twilio `<Say>`, Telnyx `speak`). */
async function spoken(provider: Provider): Promise<{ to: string; text: string; completed: boolean }[]> {
  const origin = provider === 'twilio' ? inject('telephonyApiUrl') : inject('telnyxOrigin');
  return (await (await fetch(`${origin}/_simulator/spoken`)).json()) as {
    to: string;
    text: string;
    completed: boolean;
  }[];
}

/** The suite on one provider: each provider has a file of its own, so the two run on two workers at once. */
export function describeAnsweringMachines(provider: Provider): void {
  describe.skipIf(needsLocalStack)(`answering machines on ${provider}`, () => {
    let org: TestOrganization;
    const message = `Hello, this is North Clinic (${randomUUID().slice(0, 8)}). Please call us back.`;
    let leaver: { public_id: string; voicemail_message: string | null };
    let hanger: { public_id: string; voicemail_message: string | null };

    beforeAll(async () => {
      org = await newOrganization(`AMD ${provider}`, 8);
      if (provider === 'telnyx') {
        const callerId = '+442079460571';
        const configured = await useTelnyx(org, await telnyxAccount([callerId]), callerId);
        expect(configured.status).toBe(200);
      }
      // A conversation long enough for detection's `unknown`, which comes when it gives up.
      const definition = {
        greeting:
          'Hello, this is North Clinic calling about your appointment tomorrow morning; we would like to confirm a few details with you.',
        steps: ['Can you come tomorrow at ten?', 'Shall we send you a reminder by text message the day before?'],
        closing: 'Thank you, goodbye.',
      };
      const created = await api.request('POST', '/agents', {
        key: org.key,
        body: { name: 'Leaves messages', workflow_definition: definition, voicemail_message: message },
      });
      expect(created.status).toBe(201);
      leaver = created.body;
      expect(leaver.voicemail_message).toBe(message);
      hanger = (
        await api.request('POST', '/agents', {
          key: org.key,
          body: { name: 'Hangs up', workflow_definition: definition },
        })
      ).body;
      expect(hanger.voicemail_message).toBeNull();
    });

    const call = async (agent: { public_id: string }, to: string) => {
      const placed = await api.request('POST', `/agents/${agent.public_id}/calls`, {
        key: org.key,
        body: { phone_number: to, initial_context: {} },
      });
      expect(placed.status).toBe(200);
      return placed.body.workflow_run_id as number;
    };
    const read = async (agent: { public_id: string }, runId: number) =>
      (await api.request('GET', `/agents/${agent.public_id}/conversations/${runId}`, { key: org.key })).body as Run;
    const finished = (agent: { public_id: string }, runId: number) =>
      eventually(async () => {
        const run = await read(agent, runId);
        return run.status !== 'in_progress' ? run : undefined;
      }, 40_000);
    const messages = (run: Run) => run.logs.map((log) => log.message);

    it('a machine with a beep: the agent greets at once, the message is left after the beep, the run ends voicemail', async () => {
      const to = endingIn('9');
      const runId = await call(leaver, to);
      const run = await finished(leaver, runId);
      expect(run.status).toBe('voicemail');
      // The stream opened for the machine (the call was answered and billed from then): the
      // machine's greeting was heard (talking over the agent's own greeting), and the agent spoke.
      // The greeting lasts 4.5 s on the line, which runs linePace times faster than real time.
      expect(run.duration_seconds).toBeGreaterThanOrEqual(
        Math.floor(answeringMachine(true).greetingMs / inject('linePace') / 1000),
      );
      const transcript = JSON.stringify(
        (await api.request('GET', `/agents/${leaver.public_id}/conversations/${runId}/transcript`, { key: org.key }))
          .body,
      );
      expect(transcript).toContain("you've reached Anna");
      expect(transcript).toContain('"role":"assistant"');
      const logs = messages(run);
      expect(logs).toContain(
        provider === 'twilio'
          ? 'Answering-machine detection: machine_end_beep (beep)'
          : 'Answering-machine detection: machine',
      );
      if (provider === 'telnyx') expect(logs).not.toContain('Answering-machine detection: beep_detected (beep)');
      expect(logs).toContain(`Leaving the voicemail message: ${message}`);
      expect(logs.at(-1)).toMatch(/^Call ended: voicemail \(an answering machine answered/);
      // The provider spoke the whole message, then the call was hung up.
      const said = await eventually(
        async () => (await spoken(provider)).find((entry) => entry.text === message && entry.to === to),
        20_000,
      );
      expect(said.completed).toBe(true);
    }, 60_000);

    it('a machine without a beep: the message is left once the greeting is over', async () => {
      const to = endingIn('59');
      const runId = await call(leaver, to);
      const run = await finished(leaver, runId);
      expect(run.status).toBe('voicemail');
      expect(messages(run)).toContain(
        provider === 'twilio'
          ? 'Answering-machine detection: machine_end_silence'
          : 'Answering-machine detection: machine',
      );
      expect(messages(run)).toContain(`Leaving the voicemail message: ${message}`);
      await eventually(async () => (await spoken(provider)).find((entry) => entry.text === message && entry.to === to));
    }, 60_000);

    it('a machine, for an agent without a voicemail message: hung up as soon as it is recognised', async () => {
      const runId = await call(hanger, endingIn('59'));
      const run = await finished(hanger, runId);
      expect(run.status).toBe('voicemail');
      expect(messages(run)).toContain('Answering machine: hanging up');
      expect(messages(run).some((log) => log.startsWith('Leaving the voicemail message'))).toBe(false);
    }, 60_000);

    it.each([
      ['a person', '1', provider === 'twilio' ? 'human' : 'human'],
      ['a person detection cannot classify', '56', provider === 'twilio' ? 'unknown' : 'not_sure'],
    ])(
      '%s: the conversation goes on and ends completed',
      async (_name, suffix, detail) => {
        const runId = await call(leaver, endingIn(suffix));
        // The verdict comes while the conversation goes on; then the call is ended through the API.
        await eventually(async () => {
          const run = await read(leaver, runId);
          expect(run.status).toBe('in_progress');
          return messages(run).includes(`Answering-machine detection: ${detail}`) ? run : undefined;
        }, 20_000);
        const ended = await api.request('POST', `/agents/${leaver.public_id}/conversations/${runId}/end`, {
          key: org.key,
        });
        expect(ended.status).toBe(202);
        const run = await finished(leaver, runId);
        expect(run.status).toBe('completed');
        expect(messages(run).some((log) => log.startsWith('Leaving the voicemail message'))).toBe(false);
      },
      60_000,
    );
  });
}
