import type { RunRef } from '../domain/run-ref.ts';
import type { WebhookEvent } from '../schemas/webhook-events.ts';

export interface EventDelivery {
  event: WebhookEvent;
  /** Stable per event, so a repeated fan-out of it creates nothing twice. */
  eventKey: string;
  /** The run the event is about: its delivery records are deleted with the run. */
  run: RunRef | null;
}

/**
 * What one event on the bus is delivered as. `call.completed` keeps its earlier key (one per run);
 * a failed call is also a `call.failed`, derived here so it rides on `call.completed`'s outbox.
 * Campaign events happen more than once per campaign (pause, resume, pause), so their key carries
 * the event's time.
 */
export function deliveriesOf(detail: WebhookEvent): EventDelivery[] {
  // The bus may carry more than the payload (a campaign call's origin, for its outcome): deliver the payload only.
  const event = { type: detail.type, timestamp: detail.timestamp, data: detail.data } as WebhookEvent;
  switch (event.type) {
    case 'call.started':
    case 'call.completed':
    case 'call.failed': {
      const { organization_id: org, workflow_id: agent, workflow_run_id: runId } = event.data;
      const run = { organizationId: org, agentId: agent, runId };
      // Its webhooks go with the analysis, once recorded (`call.analyzed`).
      if (event.type !== 'call.started' && event.data.analysis?.status === 'pending') return [];
      const own = {
        event,
        eventKey: event.type === 'call.completed' ? `${org}-${runId}` : `${event.type}-${org}-${runId}`,
        run,
      };
      if (event.type !== 'call.completed' || event.data.status !== 'failed') return [own];
      const failed: WebhookEvent = { ...event, type: 'call.failed', data: { ...event.data, status: 'failed' } };
      return [own, { event: failed, eventKey: `call.failed-${org}-${runId}`, run }];
    }
    case 'campaign.completed':
    case 'campaign.paused':
      return [
        {
          event,
          eventKey: `${event.type}-${event.data.organization_id}-${event.data.campaign_id}-${Date.parse(event.timestamp)}`,
          run: null,
        },
      ];
    case 'test_run.completed':
      return [{ event, eventKey: `${event.type}-${event.data.organization_id}-${event.data.test_run_id}`, run: null }];
    case 'sms.received': {
      const { organization_id: org, workflow_id: agent, workflow_run_id: runId, sms } = event.data;
      // One per text (its id comes from the provider's, so a repeated webhook is the same event); deleted with the run.
      return [
        {
          event,
          eventKey: `${event.type}-${org}-${runId}-${sms.id}`,
          run: { organizationId: org, agentId: agent, runId },
        },
      ];
    }
    // A number is reviewed once (it leaves `pending` for good): one delivery per number.
    case 'number.approved':
    case 'number.rejected':
      return [{ event, eventKey: `${event.type}-${event.data.organization_id}-${event.data.number_id}`, run: null }];
    // A memory is created once (its id); a task comes due once per due_at it is given, so a
    // due task published again (the scheduler's retry after a crash) is delivered once.
    case 'memory.created':
      return [{ event, eventKey: `${event.type}-${event.data.organization_id}-${event.data.memory.id}`, run: null }];
    case 'task.due': {
      const { organization_id: org, memory } = event.data;
      return [{ event, eventKey: `${event.type}-${org}-${memory.id}-${Date.parse(memory.due_at ?? '')}`, run: null }];
    }
  }
}
