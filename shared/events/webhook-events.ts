import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { eventBridge } from '../aws/clients.ts';
import { logger } from '../observability/logger.ts';
import type { CampaignRecord } from '../domain/campaign-records.ts';
import type { NumberRecord } from '../repositories/numbers.ts';
import type { RunRecord } from '../domain/run.ts';
import type { Memory } from '../schemas/memories.ts';
import type { WebhookEvent } from '../schemas/webhook-events.ts';
import { EVENT_BUS_NAME, EVENT_SOURCE } from './names.ts';
import { optionalSetting } from '../config/settings.ts';

/**
 * Producers of the webhook events other than `call.completed` (which has its own outbox in
 * call-completion). Each is one call at the place where the state changes; the bus rules carry
 * the event to the webhook fan-out. These notifications are best effort: a failure to publish is
 * logged and never fails the state change that caused it.
 */
async function publish(event: WebhookEvent): Promise<void> {
  try {
    await putEvent(event);
  } catch (error) {
    logger.warn('Event not published', { eventType: event.type, error: (error as Error).message });
  }
}

/** Puts one event on the bus; throws when the bus did not take it. */
async function putEvent(event: WebhookEvent): Promise<void> {
  const result = await eventBridge().send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: optionalSetting('EVENT_BUS_NAME') ?? EVENT_BUS_NAME,
          Source: EVENT_SOURCE,
          DetailType: event.type,
          Detail: JSON.stringify(event),
        },
      ],
    }),
  );
  if (result.FailedEntryCount) throw new Error(result.Entries?.[0]?.ErrorMessage ?? 'rejected');
}

/** `call.started`: the callee answered (the media stream started) at `answeredAt`; never for a test conversation. */
export async function emitCallStarted(run: RunRecord, answeredAt = new Date().toISOString()): Promise<void> {
  if (run.test) return;
  await publish({
    type: 'call.started',
    timestamp: answeredAt,
    data: {
      organization_id: run.organization_id,
      workflow_id: run.workflow_id,
      workflow_run_id: run.id,
      workflow_run_name: run.name,
      phone_number: run.phone_number,
      created_at: run.created_at,
      initial_context: run.initial_context,
      campaign_id: run.campaign?.campaign_id ?? null,
      answered_at: answeredAt,
    },
  });
}

/**
 * `campaign.paused` / `campaign.completed` for a campaign that has just entered that state: pass
 * the result of the state transition (undefined when it did not happen, then nothing is sent).
 */
export async function emitCampaignState(campaign: CampaignRecord | undefined, now = new Date()): Promise<void> {
  if (!campaign || (campaign.state !== 'paused' && campaign.state !== 'completed')) return;
  const common = {
    organization_id: campaign.organization_id,
    campaign_id: campaign.id,
    name: campaign.name,
    workflow_id: campaign.workflow_id,
    total_rows: campaign.total_rows,
    processed_rows: campaign.processed_rows,
    failed_rows: campaign.failed_rows,
    started_at: campaign.started_at,
    completed_at: campaign.completed_at,
  };
  await publish(
    campaign.state === 'completed'
      ? {
          type: 'campaign.completed',
          timestamp: campaign.completed_at ?? now.toISOString(),
          data: { ...common, state: 'completed' },
        }
      : { type: 'campaign.paused', timestamp: now.toISOString(), data: { ...common, state: 'paused' } },
  );
}

/** `test_run.completed`: an agent test run finished or was cancelled (each at most once: its state transition). */
export async function emitTestRunCompleted(
  data: Extract<WebhookEvent, { type: 'test_run.completed' }>['data'],
): Promise<void> {
  await publish({ type: 'test_run.completed', timestamp: data.completed_at, data });
}

/** `sms.received`: the caller's text, recorded on the run it replies to (during the call, or after it). */
export async function emitSmsReceived(data: Extract<WebhookEvent, { type: 'sms.received' }>['data']): Promise<void> {
  await publish({ type: 'sms.received', timestamp: data.sms.timestamp, data });
}

/**
 * `number.approved` / `number.rejected` for a number that has just left `pending` through its
 * regulatory review: pass the number as the review left it.
 */
export async function emitNumberReviewed(
  number: NumberRecord,
  reviewedBy: 'provider' | 'operator',
  now = new Date(),
): Promise<void> {
  if (number.status !== 'active' && number.status !== 'rejected') return;
  const common = {
    organization_id: number.organization_id,
    number_id: number.id,
    phone_number: number.phone_number,
    end_user_id: number.end_user_id,
    reviewed_by: reviewedBy,
    reviewed_at: now.toISOString(),
  };
  await publish(
    number.status === 'active'
      ? { type: 'number.approved', timestamp: now.toISOString(), data: { ...common, status: 'active', reason: null } }
      : {
          type: 'number.rejected',
          timestamp: now.toISOString(),
          data: { ...common, status: 'rejected', reason: number.order_status_reason ?? null },
        },
  );
}

/** `memory.created`: a note or task of an agent was written (once: its creation). */
export async function emitMemoryCreated(
  organizationId: number,
  memory: Memory,
  createdBy: 'api' | 'agent' | 'assistant',
  runId: number | null = null,
): Promise<void> {
  await publish({
    type: 'memory.created',
    timestamp: memory.created_at,
    data: { organization_id: organizationId, memory, created_by: createdBy, workflow_run_id: runId },
  });
}

/**
 * `task.due`: an open task reached its `due_at`. Unlike the notifications above it throws when the
 * bus refuses it: the task's due entry is the outbox, kept until the event is on the bus (the
 * fan-out's key makes a repeated one a single delivery).
 */
export async function emitTaskDue(organizationId: number, memory: Memory, callRequested: boolean): Promise<void> {
  await putEvent({
    type: 'task.due',
    timestamp: memory.due_at ?? new Date().toISOString(),
    data: { organization_id: organizationId, memory, call_requested: callRequested },
  });
}
