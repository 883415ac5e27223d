import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { eventBridge } from '../aws/clients.ts';
import type { CampaignOrigin, EndedCall, RunRecord } from '../domain/run.ts';
import { CALL_ANALYZED, CALL_COMPLETED, EVENT_BUS_NAME, EVENT_SOURCE } from './names.ts';
import { optionalSetting } from '../config/settings.ts';

/**
 * The `call.completed` payload, as webhooks deliver it (Standard Webhooks' `{type, timestamp, data}`).
 * `recording_url`/`transcript_url` are storage keys, as in the Run; links are fetched with the API.
 */
export function callCompletedPayload(run: RunRecord) {
  return {
    type: CALL_COMPLETED,
    timestamp: run.ended_at ?? new Date().toISOString(),
    data: {
      organization_id: run.organization_id,
      workflow_id: run.workflow_id,
      workflow_run_id: run.id,
      workflow_run_name: run.name,
      status: run.status,
      phone_number: run.phone_number,
      created_at: run.created_at,
      ended_at: run.ended_at,
      duration_seconds: run.duration_seconds,
      initial_context: run.initial_context,
      gathered_context: run.gathered_context,
      call_disposition: (run.gathered_context.call_disposition as string | undefined) ?? null,
      recording_url: run.recording_key,
      transcript_url: run.transcript_key,
      cost: run.cost,
      sms: run.sms ?? [],
      campaign_id: run.campaign?.campaign_id ?? null,
      analysis: run.analysis ?? null,
    },
  };
}

export type CallCompletedPayload = ReturnType<typeof callCompletedPayload>;

/**
 * `call.completed` as it travels on the bus: the webhook payload, and for a campaign call its
 * origin (contact, attempt, time zone), so the campaign's outcome needs no read of the run.
 */
export type CallCompletedDetail = CallCompletedPayload & { campaign_origin?: CampaignOrigin | null };

/** The ended call a `call.completed` describes, as the campaign outcome reads it. */
export function endedCallOf(detail: CallCompletedDetail): EndedCall | undefined {
  const { data, campaign_origin: origin } = detail;
  if (!origin) return undefined;
  return {
    id: data.workflow_run_id,
    organization_id: data.organization_id,
    workflow_id: data.workflow_id,
    status: data.status,
    phone_number: data.phone_number,
    created_at: data.created_at,
    ended_at: data.ended_at,
    gathered_context: data.gathered_context,
    campaign: origin,
    analysis: data.analysis,
  };
}

/**
 * Puts `call.completed` on the application's event bus: the webhook, campaign and analysis rules
 * pick it up. A run whose analysis is pending has its webhooks sent with `call.analyzed`.
 */
export const publishCallCompleted = (run: RunRecord): Promise<void> => publishRunEvent(CALL_COMPLETED, run);

/** Puts `call.analyzed` on the bus once the run's analysis is recorded: its `call.completed` webhooks go now. */
export const publishCallAnalyzed = (run: RunRecord): Promise<void> => publishRunEvent(CALL_ANALYZED, run);

async function publishRunEvent(detailType: string, run: RunRecord): Promise<void> {
  const result = await eventBridge().send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: optionalSetting('EVENT_BUS_NAME') ?? EVENT_BUS_NAME,
          Source: EVENT_SOURCE,
          DetailType: detailType,
          Detail: JSON.stringify({
            ...callCompletedPayload(run),
            campaign_origin: run.campaign ?? null,
          } satisfies CallCompletedDetail),
        },
      ],
    }),
  );
  if (result.FailedEntryCount) throw new Error(`${detailType} was not accepted: ${result.Entries?.[0]?.ErrorMessage}`);
}
