/**
 * A text from a phone to one of an organization's numbers (the provider's verified messaging
 * webhook): the reply of the caller's latest call with the organization (text-lines.ts), when it
 * was to the number that call used and came within a day of its answer. During the call it is
 * recorded on the run, passed to the media task holding the call (the agent takes it as a turn of
 * the caller's, and it is an event of the transcript), and sent as `sms.received`; after the call
 * it is recorded on the run and sent as `sms.received`. A text that belongs to no call is not
 * kept: the platform has no place for a text outside a run, and keeping numbers and words beyond
 * the reach of a run's deletion would defeat it; the provider keeps its own record.
 */
import { createHash } from 'node:crypto';
import { formatRunRef, type RunRef } from '../domain/run-ref.ts';
import type { RunRecord } from '../domain/run.ts';
import { receivedSms, type RunSmsRecord } from '../domain/text-messages.ts';
import { emitSmsReceived } from '../events/webhook-events.ts';
import { logger } from '../observability/logger.ts';
import { putLateRunSms, putRunSms } from '../repositories/run-sms.ts';
import { getRun } from '../repositories/runs-read.ts';
import { findTextLine } from '../repositories/text-lines.ts';
import type { InboundMessage } from '../telephony/adapter.ts';
import { postToLiveCall } from './live-call-api.ts';
import { smsView } from './run-texts.ts';

/** What became of a text: the reply of a live call, of an ended one, a repeat of one recorded, or no call's. */
export type ReceivedText = 'during_call' | 'after_call' | 'repeated' | 'no_call';

/** A received text's id on the run, from the provider's id of it: a repeated webhook names the same text. */
export const receivedSmsId = (providerMessageId: string): string =>
  `sms_r${createHash('sha256').update(providerMessageId).digest('hex').slice(0, 24)}`;

/**
 * Records `message`, a text to the organization `orgId`'s number, on the call it replies to.
 * `callerId`: the number the organization's calls show when their run names none (its account's).
 */
export async function receiveText(
  orgId: number,
  callerId: string | null,
  message: InboundMessage,
  now = new Date(),
): Promise<ReceivedText> {
  const line = await findTextLine(orgId, message.from, now);
  const run = line && (await getRun(orgId, line.ref.agentId, line.ref.runId));
  // The text must be to the number the call used (the agent's), not another of the organization's.
  if (!line || !run || (run.from_number ?? callerId) !== message.to) {
    logger.info('A text belongs to no call: not kept', { organizationId: orgId, messageId: message.messageId });
    return 'no_call';
  }
  const { ref } = line;
  const sms = receivedSms(message, receivedSmsId(message.messageId), now.toISOString());
  const logLine = (when: string) => ({
    timestamp: sms.timestamp,
    level: 'INFO',
    message: `Text message ${sms.id} from ${sms.from} ${when}: ${sms.body}`,
  });
  const duringCall = run.status === 'in_progress' && (await putRunSms(ref, sms, logLine('during the call')));
  if (!duringCall && !(await putLateRunSms(ref, sms, logLine('after the call')))) return 'repeated';
  if (duringCall) await passToAgent(ref, run, sms);
  await emitSmsReceived({
    organization_id: orgId,
    workflow_id: ref.agentId,
    workflow_run_id: ref.runId,
    during_call: duringCall,
    sms: smsView(sms),
  });
  return duringCall ? 'during_call' : 'after_call';
}

/**
 * Hands the text to the media task holding the call. A call not streaming yet, handed to a
 * person, or ending has the text on its run only (and the reason in the service's log).
 */
async function passToAgent(ref: RunRef, run: RunRecord, sms: RunSmsRecord): Promise<void> {
  if (!run.media_host || (run.transfer && !run.transfer.resumed_at)) return;
  try {
    const answer = await postToLiveCall(formatRunRef(ref), {
      type: 'caller_text',
      sms_id: sms.id,
      from: sms.from,
      body: sms.body,
    });
    if (answer.status >= 200 && answer.status < 300) return;
    logger.info('The call did not take the caller’s text', {
      smsId: sms.id,
      status: answer.status,
      detail: answer.detail,
    });
  } catch (error) {
    logger.warn('The caller’s text could not reach the call', { smsId: sms.id, error: String(error) });
  }
}
