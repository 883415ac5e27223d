import { callRoutes } from '../../shared/api/routes/calls.ts';
import { ForbiddenError } from '../../shared/domain/errors.ts';
import { createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { requestBaseUrl } from '../../shared/http/base-url.ts';
import { noContent } from '../../shared/http/response.ts';
import { recordProviderStatus } from '../../shared/services/provider-status.ts';
import { callbackSignatureValid } from '../../shared/telephony/provider.ts';

/** The telephony provider's status callbacks; authenticated by their signature, not an API key. */
export const handler = createApiHandler([
  operation(callRoutes.telephonyStatus, async ({ body }, { event }) => {
    const url = `${requestBaseUrl(event)}${callRoutes.telephonyStatus.path}`;
    const signature = event.headers?.['X-Telephony-Signature'] ?? event.headers?.['x-telephony-signature'];
    const rawBody = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64').toString('utf8') : (event.body ?? '');
    if (!callbackSignatureValid(process.env.TELEPHONY_WEBHOOK_SECRET ?? '', url, rawBody, signature)) {
      throw new ForbiddenError('Invalid telephony callback signature');
    }
    await recordProviderStatus(body);
    return noContent();
  }),
]);
