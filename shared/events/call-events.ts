import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { eventBridge } from '../aws/clients.ts';
import type { RunRecord } from '../repositories/runs.ts';
import { CALL_COMPLETED, EVENT_BUS_NAME, EVENT_SOURCE } from './names.ts';

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
      campaign_id: run.campaign?.campaign_id ?? null,
    },
  };
}

export type CallCompletedPayload = ReturnType<typeof callCompletedPayload>;

/** Puts `call.completed` on the application's event bus; the webhook rule picks it up. */
export async function publishCallCompleted(run: RunRecord): Promise<void> {
  const result = await eventBridge().send(
    new PutEventsCommand({
      Entries: [
        {
          EventBusName: process.env.EVENT_BUS_NAME ?? EVENT_BUS_NAME,
          Source: EVENT_SOURCE,
          DetailType: CALL_COMPLETED,
          Detail: JSON.stringify(callCompletedPayload(run)),
        },
      ],
    }),
  );
  if (result.FailedEntryCount) throw new Error(`call.completed was not accepted: ${result.Entries?.[0]?.ErrorMessage}`);
}
