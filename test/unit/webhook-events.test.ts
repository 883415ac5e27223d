import { Webhook as StandardWebhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import {
  sampleEvent,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from '../../shared/schemas/webhook-events.ts';
import { FUNCTION_GROUPS } from '../../shared/api/function-groups.ts';
import { deliveriesOf } from '../../shared/services/webhook-fanout.ts';
import { type CallCompletedDetail, type CallCompletedPayload, endedCallOf } from '../../shared/events/call-events.ts';
import { signatureHeader } from '../../shared/services/webhooks.ts';

const completed = (status: string, analysis?: 'pending' | 'failed' | null) =>
  ({
    ...sampleEvent('call.completed', 3),
    data: {
      ...sampleEvent('call.completed', 3).data,
      status,
      ...(analysis === undefined
        ? {}
        : {
            analysis: analysis && {
              ...(sampleEvent('call.completed').data as { analysis: object }).analysis,
              status: analysis,
            },
          }),
    },
  }) as WebhookEvent;

describe('event catalogue', () => {
  it.each(WEBHOOK_EVENT_TYPES)('the %s sample matches its payload schema', (type) => {
    expect(WEBHOOK_EVENTS[type].parse(sampleEvent(type, 9))).toMatchObject({ type, data: { organization_id: 9 } });
  });
});

describe('deliveriesOf', () => {
  it.each([
    ['a completed call', completed('completed'), [['call.completed', '3-1001']]],
    ['a busy call', completed('busy'), [['call.completed', '3-1001']]],
    [
      'a failed call: also call.failed',
      completed('failed'),
      [
        ['call.completed', '3-1001'],
        ['call.failed', 'call.failed-3-1001'],
      ],
    ],
    ['an answered call', sampleEvent('call.started', 3), [['call.started', 'call.started-3-1001']]],
    ['a call without analysis', completed('completed', null), [['call.completed', '3-1001']]],
    ['a call whose analysis is pending: none yet (call.analyzed sends them)', completed('completed', 'pending'), []],
    ['a failed call whose analysis is pending', completed('failed', 'pending'), []],
    [
      'a failed call whose analysis failed',
      completed('failed', 'failed'),
      [
        ['call.completed', '3-1001'],
        ['call.failed', 'call.failed-3-1001'],
      ],
    ],
    [
      'a completed campaign',
      sampleEvent('campaign.completed', 3),
      [['campaign.completed', `campaign.completed-3-7-${Date.parse('2026-11-23T10:15:42.000Z')}`]],
    ],
    [
      'a paused campaign',
      sampleEvent('campaign.paused', 3),
      [['campaign.paused', `campaign.paused-3-7-${Date.parse('2026-11-23T10:15:42.000Z')}`]],
    ],
    [
      'a finished test run, once per run',
      sampleEvent('test_run.completed', 3),
      [['test_run.completed', 'test_run.completed-3-31']],
    ],
    [
      "a caller's text, once per text (deleted with its run)",
      sampleEvent('sms.received', 3),
      [['sms.received', 'sms.received-3-1001-sms_r3f9c1a27be4d5a06c8e1f2b9']],
    ],
    [
      'an approved number, once per number',
      sampleEvent('number.approved', 3),
      [['number.approved', 'number.approved-3-12']],
    ],
    [
      'a rejected number, once per number',
      sampleEvent('number.rejected', 3),
      [['number.rejected', 'number.rejected-3-12']],
    ],
    [
      'a memory written, once per memory (it outlives the call it came from)',
      sampleEvent('memory.created', 3),
      [['memory.created', 'memory.created-3-mem_Ab3dE6gH9jK2mN5p']],
    ],
    [
      'a task come due, once per due_at it was given',
      sampleEvent('task.due', 3),
      [['task.due', `task.due-3-mem_Ab3dE6gH9jK2mN5p-${Date.parse('2026-11-24T09:00:00.000Z')}`]],
    ],
  ] as const)('%s', (_name, event, expected) => {
    const deliveries = deliveriesOf(event as WebhookEvent);
    expect(deliveries.map((delivery) => [delivery.event.type, delivery.eventKey])).toEqual(expected);
    for (const delivery of deliveries)
      expect(delivery.run).toEqual(
        /^(call|sms)\./.test(delivery.event.type) ? { organizationId: 3, agentId: 42, runId: 1001 } : null,
      );
  });

  it("delivers the payload only, not the campaign origin the bus carries for the campaign's outcome", () => {
    const origin = { campaign_id: 7, row: 12, attempt: 2, timezone: 'Europe/Warsaw' };
    const detail: CallCompletedDetail = { ...(completed('failed') as CallCompletedPayload), campaign_origin: origin };
    const deliveries = deliveriesOf(detail as WebhookEvent);
    expect(deliveries).toHaveLength(2);
    for (const delivery of deliveries)
      expect(Object.keys(delivery.event).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(endedCallOf(detail)).toEqual({
      id: 1001,
      organization_id: 3,
      workflow_id: detail.data.workflow_id,
      status: 'failed',
      phone_number: detail.data.phone_number,
      created_at: detail.data.created_at,
      ended_at: detail.data.ended_at,
      gathered_context: detail.data.gathered_context,
      analysis: detail.data.analysis,
      campaign: origin,
    });
    expect(endedCallOf({ ...detail, campaign_origin: null })).toBeUndefined();
  });

  it('is deterministic: the same event gives the same keys', () => {
    expect(deliveriesOf(completed('failed')).map((d) => d.eventKey)).toEqual(
      deliveriesOf(completed('failed')).map((d) => d.eventKey),
    );
  });
});

describe('signatureHeader', () => {
  const body = JSON.stringify(sampleEvent('call.completed'));
  const at = new Date();
  const headers = (signature: string) => ({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': signature,
  });
  const [oldSecret, newSecret, other] = [
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD',
    'whsec_dGhpcyBpcyBhbm90aGVyIHNlY3JldCE=',
  ];

  it('signs once per secret, space-separated; receivers holding either secret verify', () => {
    const signature = signatureHeader([newSecret, oldSecret], 'msg_1', at, body);
    expect(signature.split(' ')).toHaveLength(2);
    expect(signature.split(' ').every((part) => part.startsWith('v1,'))).toBe(true);
    expect(new StandardWebhook(oldSecret).verify(body, headers(signature))).toBeTruthy();
    expect(new StandardWebhook(newSecret).verify(body, headers(signature))).toBeTruthy();
    expect(() => new StandardWebhook(other).verify(body, headers(signature))).toThrow();
  });
});

describe('access of the functions that publish, sign or redeliver', () => {
  it.each([
    ['campaigns', 'eventBus'],
    ['campaignEngine', 'eventBus'],
    ['webhooks', 'encryption'],
    ['webhooks', 'stateMachines'],
    ['webhookDelivery', 'encryption'],
    ['webhookFanout', 'stateMachines'],
  ] as const)('%s has %s', (group, access) => {
    expect((FUNCTION_GROUPS[group].access as Record<string, unknown>)[access]).toBe(true);
  });
});
