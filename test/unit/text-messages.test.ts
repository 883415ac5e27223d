import { describe, expect, it } from 'vitest';
import { callCost } from '../../shared/domain/call-outcome.ts';
import {
  renderSmsTemplate,
  smsCost,
  smsRefusal,
  smsTotals,
  statusesBefore,
  historyInOrder,
  type SmsSendFacts,
  type SmsStatus,
} from '../../shared/domain/text-messages.ts';

const allowed: SmsSendFacts = {
  enabled: true,
  sentThisCall: 0,
  maxPerCall: 2,
  onDoNotCall: false,
  insideCallingHours: true,
  senderCapabilities: ['voice', 'sms'],
};

describe('smsRefusal', () => {
  it.each<[string, Partial<SmsSendFacts>, ReturnType<typeof smsRefusal>]>([
    ['allowed', {}, null],
    [
      'a sender the platform does not know (the default caller id): the provider decides',
      { senderCapabilities: null },
      null,
    ],
    ['texts off', { enabled: false }, 'disabled'],
    ["the call's cap reached", { sentThisCall: 2 }, 'cap_reached'],
    ['one below the cap', { sentThisCall: 1 }, null],
    ['Do-not-call', { onDoNotCall: true }, 'do_not_call'],
    ['outside calling hours', { insideCallingHours: false }, 'calling_hours'],
    ['a voice-only number', { senderCapabilities: ['voice'] }, 'sender_cannot_text'],
    // The order: settings first, then the destination, then the sender.
    ['off and on Do-not-call: off', { enabled: false, onDoNotCall: true }, 'disabled'],
    ['Do-not-call at night: Do-not-call', { onDoNotCall: true, insideCallingHours: false }, 'do_not_call'],
  ])('%s', (_name, facts, refusal) => {
    expect(smsRefusal({ ...allowed, ...facts })).toBe(refusal);
  });
});

describe('statusesBefore: a report moves a text only forward', () => {
  it.each([
    ['queued', []],
    ['sent', ['queued']],
    ['delivered', ['queued', 'sent']],
    ['undelivered', ['queued', 'sent']],
    ['failed', ['queued', 'sent']],
  ] as const)('%s replaces %j', (status, before) => {
    expect(statusesBefore(status)).toEqual(before);
  });
});

describe('historyInOrder: by step, then by time within a step', () => {
  const at = (status: SmsStatus, second: number) => ({
    status,
    timestamp: `2026-11-26T10:00:0${second}.000Z`,
    error_code: null,
  });
  it.each([
    ['in order', [at('queued', 0), at('sent', 1), at('delivered', 2)], ['queued', 'sent', 'delivered']],
    ['a late sent', [at('queued', 0), at('delivered', 2), at('sent', 1)], ['queued', 'sent', 'delivered']],
    ["the provider's clock behind the platform's", [at('queued', 5), at('sent', 1)], ['queued', 'sent']],
    [
      'undelivered after sent',
      [at('queued', 0), at('undelivered', 3), at('sent', 2)],
      ['queued', 'sent', 'undelivered'],
    ],
  ] as const)('%s', (_name, history, statuses) => {
    expect(historyInOrder(history).map((change) => change.status)).toEqual(statuses);
  });
});

describe('renderSmsTemplate', () => {
  const context = { initial: { name: 'Anna', slot: { day: 'Friday' } }, gathered: { email: 'anna@example.com' } };
  it.each([
    ['Hi {{initial_context.name}}', 'Hi Anna'],
    ['Hi {{ initial_context.name }}, we wrote to {{gathered_context.email}}', 'Hi Anna, we wrote to anna@example.com'],
    ['{{initial_context.slot}}', '{"day":"Friday"}'],
    ['{{initial_context.missing}}!', '!'],
    ['{{gathered_context.name}}', ''],
    ['{{other.name}} stays', '{{other.name}} stays'],
  ])('%s → %s', (template, text) => {
    expect(renderSmsTemplate(template, context)).toBe(text);
  });
});

describe('billing of texts', () => {
  it('counts outbound texts only, their segments and cost', () => {
    expect(
      smsTotals([
        { direction: 'outbound', segments: 1, cost_usd: smsCost(1) },
        { direction: 'outbound', segments: 3, cost_usd: smsCost(3) },
        { direction: 'inbound', segments: 2, cost_usd: 0 },
      ]),
    ).toEqual({ sms_messages: 2, sms_segments: 4, sms_usd: 0.0316 });
  });

  it("adds the texts to the call's cost, as a part of their own only when there were any", () => {
    expect(callCost(61, true, { smsUsd: 0.0158 })).toEqual({
      currency: 'USD',
      telephony_usd: 0.028,
      platform_usd: 0.1,
      sms_usd: 0.0158,
      total_usd: 0.1438,
    });
    expect(callCost(61, true, { smsUsd: 0 })).not.toHaveProperty('sms_usd');
  });
});
