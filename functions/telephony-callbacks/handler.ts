import type { APIGatewayProxyEvent } from 'aws-lambda';
import { callRoutes } from '../../shared/api/routes/calls.ts';
import { ForbiddenError, NotFoundError } from '../../shared/domain/errors.ts';
import { parseRunRef, RUN_QUERY_PARAMETER } from '../../shared/domain/run-ref.ts';
import { createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { requestBaseUrl } from '../../shared/http/base-url.ts';
import { noContent } from '../../shared/http/response.ts';
import { logger } from '../../shared/observability/logger.ts';
import { findNumberByE164 } from '../../shared/repositories/numbers.ts';
import { connectIncomingCall, NOT_IN_SERVICE } from '../../shared/services/call-control.ts';
import { applyProviderReview } from '../../shared/services/numbers.ts';
import { NUMBER_QUERY_PARAMETER, parseNumberRef } from '../../shared/telephony/number-marketplace.ts';
import { recordProviderStatus } from '../../shared/services/provider-status.ts';
import { transferStep } from '../../shared/services/call-transfer.ts';
import { receiveText } from '../../shared/services/inbound-texts.ts';
import { recordSmsStatus, SMS_QUERY_PARAMETER } from '../../shared/services/text-messages.ts';
import type { CallbackRequest, TelephonyAdapter } from '../../shared/telephony/adapter.ts';
import { accountOf, platformAccount } from '../../shared/telephony/accounts.ts';
import { formParams, telnyxCalledNumber, telnyxMessageRecipient } from '../../shared/telephony/webhook-fields.ts';

/** The request as the provider signed it: the public URL it called (with its query), headers, raw body. */
function callbackRequest(event: APIGatewayProxyEvent, path: string): CallbackRequest {
  const query = new URLSearchParams();
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {}))
    for (const value of values ?? []) query.append(name, value);
  const search = query.size ? `?${query}` : '';
  const headers = Object.fromEntries(
    Object.entries(event.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const rawBody = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
  return { url: `${requestBaseUrl(event)}${path}${search}`, headers, rawBody };
}

async function verified(adapter: TelephonyAdapter, provider: string, request: CallbackRequest): Promise<void> {
  if (adapter.provider !== provider || !(await adapter.callbacks.verifyCallback(request))) {
    logger.warn('Refused a telephony callback with an invalid signature', { provider, url: request.url });
    throw new ForbiddenError('Invalid telephony callback signature');
  }
}

/** A review's news: the number named in the signed URL (Twilio), else by the ordered number (Telnyx). */
async function numberReviewNews(request: CallbackRequest, news: { reference: string; e164?: string; reason?: string }) {
  const named = parseNumberRef(new URL(request.url).searchParams.get(NUMBER_QUERY_PARAMETER));
  const number = named
    ? { organization_id: named.organizationId, id: named.numberId }
    : news.e164
      ? await findNumberByE164(news.e164)
      : undefined;
  if (number) await applyProviderReview(number, news.reference, news.reason);
}

/** The provider's status callbacks and voice webhooks; authenticated by their signature, not an API key. */
export const handler = createApiHandler([
  operation(callRoutes.telephonyStatus, async ({ params }, { event }) => {
    const request = callbackRequest(event, `/telephony/${params.provider}/status`);
    // The run in the signed URL names the organization, hence the account whose key must have signed it.
    const runRef = new URL(request.url).searchParams.get(RUN_QUERY_PARAMETER);
    const ref = runRef ? parseRunRef(runRef) : undefined;
    const account = ref ? await accountOf(ref.organizationId) : await platformAccount();
    await verified(account.adapter, params.provider, request);
    // No run: perhaps a regulated number's review (bought on the platform's account, whose key signed it).
    const review = ref ? undefined : account.adapter.regulatoryReview?.parseReviewCallback(request);
    if (review) {
      await numberReviewNews(request, review);
      return noContent();
    }
    const status = account.adapter.callbacks.parseStatus(request);
    if (status) await recordProviderStatus(status, account.adapter);
    return noContent();
  }),
  operation(callRoutes.telephonyTransfer, async ({ params }, { event }) => {
    const request = callbackRequest(event, `/telephony/${params.provider}/transfer`);
    const runRef = new URL(request.url).searchParams.get(RUN_QUERY_PARAMETER);
    const ref = runRef ? parseRunRef(runRef) : undefined;
    if (!ref) throw new NotFoundError('No transfer for this request');
    const account = await accountOf(ref.organizationId);
    await verified(account.adapter, params.provider, request);
    // Only a provider with transfer callbacks of their own (Twilio) calls here; Telnyx reports transfers as call events.
    const steps = account.adapter.transferCallbacks;
    const step = steps?.parseTransferStep(request);
    if (!steps || !step) throw new NotFoundError('No transfer step in this request');
    const response = await transferStep(step, account.adapter.provider, steps);
    return { status: 200, rawBody: response.body, headers: { 'Content-Type': response.contentType } };
  }),
  operation(callRoutes.telephonyMessages, async ({ params }, { event }) => {
    const request = callbackRequest(event, `/telephony/${params.provider}/messages`);
    const query = new URL(request.url).searchParams;
    const runRef = query.get(RUN_QUERY_PARAMETER);
    const ref = runRef ? parseRunRef(runRef) : undefined;
    const smsId = query.get(SMS_QUERY_PARAMETER);
    if (ref && smsId) {
      // A sent text's status: the run in the signed URL names the account whose key must have signed it.
      const account = await accountOf(ref.organizationId);
      await verified(account.adapter, params.provider, request);
      const status = account.adapter.messaging?.parseMessageStatus(request);
      if (status) await recordSmsStatus(ref, smsId, status);
      return noContent();
    }
    // A text to one of the platform's numbers: the called number names its organization's account.
    const to = params.provider === 'twilio' ? formParams(request.rawBody).To : telnyxMessageRecipient(request.rawBody);
    const number = to ? await findNumberByE164(to) : undefined;
    const account = number ? await accountOf(number.organization_id) : await platformAccount();
    await verified(account.adapter, params.provider, request);
    // A reply to a call (during it, or within a day): on its run; any other text is not kept (no auto-reply).
    const message = account.adapter.messaging?.parseInboundMessage(request);
    if (number && message) await receiveText(number.organization_id, account.callerId, message);
    return noContent();
  }),
  operation(callRoutes.telephonyVoice, async ({ params }, { event }) => {
    const request = callbackRequest(event, `/telephony/${params.provider}/voice`);
    // The called number names its organization, hence the account whose key must have signed it.
    const to = params.provider === 'twilio' ? formParams(request.rawBody).To : telnyxCalledNumber(request.rawBody);
    const number = to ? await findNumberByE164(to) : undefined;
    const account = number ? await accountOf(number.organization_id) : await platformAccount();
    await verified(account.adapter, params.provider, request);
    const call = account.adapter.callbacks.parseInbound(request);
    const response = call
      ? await connectIncomingCall(call, account.adapter)
      : await account.adapter.calls.answerInbound(NOT_IN_SERVICE);
    return { status: 200, rawBody: response.body, headers: { 'Content-Type': response.contentType } };
  }),
]);
