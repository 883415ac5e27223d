import { describe, expect, it } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import { CallTexts } from '../../media/src/call/call-texts.ts';
import type { PreparedCall } from '../../media/src/call/call-types.ts';
import type { SmsOutcome } from '../../shared/services/text-messages.ts';

/** The agent's and the control API's texts, over a sender that records what it was asked. */
function texts(sms: Record<string, unknown> | undefined, textable = true) {
  const sent: { body: string; sentBy: string }[] = [];
  const events: string[] = [];
  const plan = buildCallPlan({
    agentName: 'Ola',
    workflowDefinition: {},
    workflowConfigurations: sms ? { sms } : {},
    templateContextVariables: {},
    initialContext: { name: 'Anna' },
    dispositionCodes: {},
    passages: [],
    tools: [],
    memories: [],
    textable,
  });
  const call = {
    plan,
    providers: {} as never,
    organizationId: 1,
    sendSms: async ({ body, sentBy }: { body: string; sentBy: string }): Promise<SmsOutcome> => {
      sent.push({ body, sentBy });
      return body.includes('blocked')
        ? {
            sent: false,
            refusal: 'do_not_call',
            reason: 'The number is on the Do-not-call list: it gets no text messages.',
          }
        : {
            sent: true,
            sms: {
              id: 'sms_1',
              direction: 'outbound',
              timestamp: '2026-11-26T10:00:00.000Z',
              from: '+48221234500',
              to: '+48601234561',
              body,
              status: 'queued',
              status_history: [],
              error_code: null,
              error_reason: null,
              segments: 1,
              cost_usd: 0.0079,
              sent_by: 'agent',
              provider_message_id: 'SM1',
            },
          };
    },
  } as PreparedCall;
  const gathered: Record<string, unknown> = { slot: 'Friday 10:00' };
  return {
    plan,
    sent,
    events,
    texts: new CallTexts(call, { gathered, transcriptEvent: (text) => void events.push(text) }),
  };
}

const template = {
  name: 'confirmation',
  body: 'Hi {{initial_context.name}}, see you {{gathered_context.slot}}.',
  description: 'x',
};

describe('texts during a call', () => {
  it('offers send_sms only on a phone call whose agent enabled texts', () => {
    const names = (plan: ReturnType<typeof texts>['plan']) => plan.tools.map((tool) => tool.name);
    expect(names(texts({ templates: [template] }).plan)).toContain('send_sms');
    expect(names(texts({ templates: [template], enabled: false }).plan)).not.toContain('send_sms');
    expect(names(texts({ templates: [template] }, false).plan)).not.toContain('send_sms');
    expect(names(texts(undefined).plan)).not.toContain('send_sms');
  });

  it('fills a template from the call and what was gathered, and notes it in the transcript', async () => {
    const { texts: part, sent, events } = texts({ templates: [template] });
    const outcome = await part.send({ template: 'confirmation' }, 'agent');
    expect(outcome).toMatchObject({ sent: true, sms: { body: 'Hi Anna, see you Friday 10:00.' } });
    expect(outcome.sent && 'provider_message_id' in outcome.sms).toBe(false);
    expect(sent).toEqual([{ body: 'Hi Anna, see you Friday 10:00.', sentBy: 'agent' }]);
    expect(events).toEqual(['[text message to +48601234561: Hi Anna, see you Friday 10:00.]']);
  });

  it.each([
    ['an unknown template', { template: 'nope' }, 'agent', 'template_unknown'],
    ["the agent's free text where only templates are allowed", { text: 'Hi' }, 'agent', 'free_text_not_allowed'],
    ['an empty text', { text: '  ' }, 'api', 'empty'],
    ["the sender's refusal (Do-not-call), passed on", { text: 'blocked' }, 'api', 'do_not_call'],
  ] as const)('refuses %s with its reason', async (_name, request, sentBy, refusal) => {
    const outcome = await texts({ templates: [template] }).texts.send(request, sentBy);
    expect(outcome).toMatchObject({ sent: false, refusal });
    expect(outcome.sent ? '' : outcome.reason).not.toBe('');
  });

  it("sends the control API's free text whatever allow_free_text, and the agent's where it is allowed", async () => {
    expect((await texts({ templates: [template] }).texts.send({ text: 'Call us back' }, 'api')).sent).toBe(true);
    expect((await texts({ allow_free_text: true }).texts.send({ text: 'Call us back' }, 'agent')).sent).toBe(true);
  });

  it('refuses on a call without texts', async () => {
    expect(await texts(undefined).texts.send({ text: 'Hi' }, 'api')).toMatchObject({
      sent: false,
      refusal: 'disabled',
    });
  });
});
