import type twilio from 'twilio';
import { twilioBundleVerdict, twilioRegulationItems, twilioReviewName } from '../domain/regulatory-review.ts';
import { ProviderError, type CallbackRequest, type RegulatoryDocument, type RegulatoryReview } from './adapter.ts';
import type { TwilioCredentials } from './twilio.ts';
import { formParams } from './webhook-fields.ts';

/** Where Twilio takes a SupportingDocument's file (its Regulatory Compliance upload host). */
const TWILIO_UPLOAD_ORIGIN = 'https://numbers-upload.twilio.com';

/**
 * Creates a SupportingDocument with its file: Twilio takes the file only as multipart at its
 * upload host (numbers-upload.twilio.com, `File`, `FriendlyName`, `Type`, `Attributes`), which the
 * SDK's form-encoded client cannot send; the same Basic auth, rebased like the SDK's requests.
 */
async function uploadSupportingDocument(
  credentials: TwilioCredentials,
  apiOrigin: string | undefined,
  request: { friendlyName: string; type: string; attributes: Record<string, string>; document: RegulatoryDocument },
): Promise<string> {
  const url = new URL('/v2/RegulatoryCompliance/SupportingDocuments', TWILIO_UPLOAD_ORIGIN);
  if (apiOrigin) {
    const target = new URL(apiOrigin);
    url.protocol = target.protocol;
    url.host = target.host;
  }
  const form = new FormData();
  form.set('FriendlyName', request.friendlyName);
  form.set('Type', request.type);
  form.set('Attributes', JSON.stringify(request.attributes));
  form.set(
    'File',
    new Blob([new Uint8Array(request.document.data)], { type: request.document.contentType }),
    request.document.fileName,
  );
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${credentials.account_sid}:${credentials.auth_token}`).toString('base64')}`,
    },
    body: form,
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await response.json().catch(() => ({}))) as { sid?: string; message?: string };
  if (!response.ok || !body.sid)
    throw new ProviderError(
      `Twilio refused the supporting document: ${body.message ?? `HTTP ${response.status}`}`,
      response.status,
    );
  return body.sid;
}

/**
 * Twilio's Regulatory Compliance for a regulated number: a Bundle with its StatusCallback, an
 * EndUser and a SupportingDocument (with the file) under the regulation's attribute names, assigned
 * and submitted for review; the bundle's status is its verdict.
 */
export function twilioRegulatoryReview(
  client: twilio.Twilio,
  credentials: TwilioCredentials,
  apiOrigin: string | undefined,
  rethrow: (error: unknown, what: string) => never,
): RegulatoryReview {
  return {
    async submitForReview({ country, type, endUser, endUserId, document, email, statusCallbackUrl }) {
      const compliance = client.numbers.v2.regulatoryCompliance;
      const items = twilioRegulationItems(endUser);
      try {
        const bundle = await compliance.bundles.create({
          friendlyName: twilioReviewName(endUserId, `${country} ${type} ${endUser.name}`),
          email,
          statusCallback: statusCallbackUrl,
          isoCountry: country,
          numberType: type === 'toll_free' ? 'toll free' : type,
          endUserType: items.endUserType,
        });
        const subscriber = await compliance.endUsers.create({
          friendlyName: twilioReviewName(endUserId, endUser.name),
          type: items.endUserType,
          attributes: items.endUserAttributes,
        });
        const supporting = await uploadSupportingDocument(credentials, apiOrigin, {
          friendlyName: `${items.documentType} ${endUser.name}`.slice(0, 64),
          type: items.documentType,
          attributes: items.documentAttributes,
          document,
        });
        for (const objectSid of [subscriber.sid, supporting])
          await compliance.bundles(bundle.sid).itemAssignments.create({ objectSid });
        await compliance.bundles(bundle.sid).update({ status: 'pending-review' });
        return { reference: bundle.sid };
      } catch (error) {
        if (error instanceof ProviderError) throw error;
        rethrow(error, 'regulatory bundle');
      }
    },

    async reviewStatus(bundleSid) {
      try {
        const bundle = await client.numbers.v2.regulatoryCompliance.bundles(bundleSid).fetch();
        return twilioBundleVerdict(bundle.status);
      } catch (error) {
        rethrow(error, 'regulatory bundle');
      }
    },

    // The bundle's StatusCallback: BundleSid, Status and, when rejected, FailureReason (form-encoded, signed).
    parseReviewCallback({ rawBody }: CallbackRequest) {
      const params = formParams(rawBody);
      if (!params.BundleSid) return undefined;
      return { reference: params.BundleSid, reason: params.FailureReason || undefined };
    },
  };
}
