import { randomBytes } from 'node:crypto';
import { decideCallingHours } from '../domain/calling-hours.ts';
import { phoneNumberTimeZones } from '../domain/phone-numbers.ts';
import { formatRunRef, RUN_QUERY_PARAMETER, type RunRef } from '../domain/run-ref.ts';
import {
  newSmsId,
  SMS_PER_MINUTE_PER_ORGANIZATION,
  SMS_REFUSALS,
  smsCost,
  smsRefusal,
  type RunSmsRecord,
  type SmsRefusal,
  type SmsSender,
} from '../domain/text-messages.ts';
import { requiredSetting } from '../config/settings.ts';
import { logger } from '../observability/logger.ts';
import { findNumberByE164 } from '../repositories/numbers.ts';
import { appendRunLog } from '../repositories/run-logs.ts';
import { applySmsStatus, putRunSms, recordSmsAccepted, takeSmsSlot } from '../repositories/run-sms.ts';
import { ProviderError, type MessageStatusEvent } from '../telephony/adapter.ts';
import { isBlocked } from './do-not-call.ts';

/** Query parameter of a text's status callback naming the text (beside the run). */
export const SMS_QUERY_PARAMETER = 'sms';

/** Where the provider reports a text's progress: signed, the run and the text in its query. */
export const messageStatusUrl = (provider: string, runRef: string, smsId: string): string =>
  `${requiredSetting('PUBLIC_BASE_URL').replace(/\/$/, '')}/telephony/${provider}/messages?${RUN_QUERY_PARAMETER}=${encodeURIComponent(runRef)}&${SMS_QUERY_PARAMETER}=${encodeURIComponent(smsId)}`;

export interface SmsRequest {
  ref: RunRef;
  to: string;
  /** The sending number (the agent's, or a messaging-capable number of the organization); null: the account's caller id. */
  from: string | null;
  body: string;
  sentBy: SmsSender;
  /** The agent's settings for this call: whether texts are on, and how many it may send. */
  enabled: boolean;
  sentThisCall: number;
  maxPerCall: number;
}

export type SmsOutcome =
  { sent: true; sms: RunSmsRecord } | { sent: false; refusal: SmsRefusal; reason: string; sms?: RunSmsRecord };

const refused = (refusal: SmsRefusal, sms?: RunSmsRecord): SmsOutcome => ({
  sent: false,
  refusal,
  reason: SMS_REFUSALS[refusal],
  ...(sms ? { sms } : {}),
});

/** The provider's refusal of a new text, in the platform's words. */
const providerRefusal = (error: ProviderError): SmsRefusal | null => error.refusal ?? null;

/**
 * Sends a text during a live call, from the run (the agent's `send_sms`, the control API's
 * command): the rules first (the agent's settings, the Do-not-call list, the calling-hours rule in
 * the destination's zones, the sending number's `sms` capability where the platform knows it, the
 * organization's rate), then the text is recorded `queued` on the run with its log line, then the
 * provider is asked. A refusal is logged on the run and told in words the model can repeat; a
 * provider's refusal leaves the text on the run `failed`, with the reason.
 */
export async function sendRunSms(request: SmsRequest, now = new Date()): Promise<SmsOutcome> {
  const { ref, to } = request;
  const { accountOf } = await import('../telephony/accounts.ts');
  const { adapter, callerId } = await accountOf(ref.organizationId);
  const from = request.from ?? callerId;
  if (!from) return logRefusal(ref, to, 'sender_cannot_text', now);
  const [onDoNotCall, zones, sender] = await Promise.all([
    isBlocked(ref.organizationId, to),
    phoneNumberTimeZones(to),
    findNumberByE164(from),
  ]);
  const refusal = smsRefusal({
    enabled: request.enabled,
    sentThisCall: request.sentThisCall,
    maxPerCall: request.maxPerCall,
    onDoNotCall,
    insideCallingHours: decideCallingHours(now, zones).allowed,
    senderCapabilities: sender?.organization_id === ref.organizationId ? sender.capabilities : null,
  });
  if (refusal) return logRefusal(ref, to, refusal, now);
  if (!(await takeSmsSlot(ref.organizationId, now, SMS_PER_MINUTE_PER_ORGANIZATION)))
    return logRefusal(ref, to, 'rate_limited', now);

  if (!adapter.messaging) return logRefusal(ref, to, 'sender_cannot_text', now);
  const timestamp = now.toISOString();
  const sms: RunSmsRecord = {
    id: newSmsId(now.getTime(), randomBytes(4).toString('hex')),
    direction: 'outbound',
    timestamp,
    from,
    to,
    body: request.body,
    status: 'queued',
    status_history: [{ status: 'queued', timestamp, error_code: null }],
    error_code: null,
    error_reason: null,
    segments: 0,
    cost_usd: 0,
    sent_by: request.sentBy,
    provider_message_id: null,
  };
  const line = {
    timestamp,
    level: 'INFO',
    message: `Text message ${sms.id} to ${to} (${request.sentBy === 'agent' ? 'by the agent' : 'by the API'}): ${request.body}`,
  };
  if (!(await putRunSms(ref, sms, line))) return refused('call_not_live');
  try {
    const accepted = await adapter.messaging.send({
      to,
      from,
      body: request.body,
      statusCallbackUrl: messageStatusUrl(adapter.provider, formatRunRef(ref), sms.id),
    });
    const costUsd = smsCost(accepted.segments);
    await recordSmsAccepted(ref, sms.id, {
      providerMessageId: accepted.messageId,
      segments: accepted.segments,
      costUsd,
    });
    return {
      sent: true,
      sms: { ...sms, provider_message_id: accepted.messageId, segments: accepted.segments, cost_usd: costUsd },
    };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    const why = providerRefusal(error);
    const failedAt = new Date().toISOString();
    await applySmsStatus(ref, sms.id, {
      status: 'failed',
      timestamp: failedAt,
      errorCode: error.status ? String(error.status) : null,
      errorReason: why ?? 'provider_error',
      providerMessageId: null,
    });
    await appendRunLog(ref, {
      timestamp: failedAt,
      level: 'WARN',
      message: `Text message ${sms.id} failed: ${error.message}`,
    });
    const failed: RunSmsRecord = {
      ...sms,
      status: 'failed',
      error_code: error.status ? String(error.status) : null,
      error_reason: why ?? 'provider_error',
    };
    return why
      ? refused(why, failed)
      : {
          sent: false,
          refusal: 'invalid_destination',
          reason: `The provider did not take the message: ${error.message}`,
          sms: failed,
        };
  }
}

async function logRefusal(ref: RunRef, to: string, refusal: SmsRefusal, now: Date): Promise<SmsOutcome> {
  await appendRunLog(ref, {
    timestamp: now.toISOString(),
    level: 'WARN',
    message: `Text message to ${to} not sent: ${SMS_REFUSALS[refusal]}`,
  });
  return refused(refusal);
}

/**
 * A text's progress from its verified status callback: applied only if it moves the text on and
 * names the provider's id of this text; logged on the run while the call is live.
 */
export async function recordSmsStatus(ref: RunRef, smsId: string, event: MessageStatusEvent): Promise<boolean> {
  const applied = await applySmsStatus(ref, smsId, {
    status: event.status,
    timestamp: event.timestamp,
    errorCode: event.errorCode,
    errorReason: event.errorReason,
    providerMessageId: event.messageId,
  });
  if (!applied) return false;
  const detail = event.errorCode ? ` (${event.errorCode}: ${event.errorReason})` : '';
  await appendRunLog(ref, {
    timestamp: event.timestamp,
    level: event.status === 'undelivered' || event.status === 'failed' ? 'WARN' : 'INFO',
    message: `Text message ${smsId}: ${event.status}${detail}`,
  }).catch((error: unknown) =>
    logger.warn('A text status could not be logged on the run', { smsId, error: String(error) }),
  );
  return true;
}
