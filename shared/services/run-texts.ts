/**
 * A run's texts as the API and its events show them: apart from the sending rules
 * (text-messages.ts), so that reading them (a run's page, its end, its analysis and outbox) does
 * not bundle what sends one (calling hours, phone-number data, Do-not-call).
 */
import type { RunSmsRecord } from '../domain/text-messages.ts';
import type { RunRecord, RunSmsView } from '../domain/run.ts';
import { listRunSms } from '../repositories/run-sms.ts';

/** A text as the API and the webhooks show it. */
export const smsView = ({ provider_message_id: _id, ...view }: RunSmsRecord): RunSmsView => view;

/** The run with its texts (they are items of their own): what its `call.completed` carries. */
export async function withRunSms(run: RunRecord): Promise<RunRecord> {
  const ref = { organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id };
  return { ...run, sms: run.sms_count ? (await listRunSms(ref)).map(smsView) : [] };
}
