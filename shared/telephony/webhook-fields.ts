/**
 * What a provider's webhook says before its signature is checked (it names the account to check
 * it with). No provider SDK here: the callback function loads an SDK only for the account it needs.
 */

/** The form fields of a Twilio webhook (application/x-www-form-urlencoded). */
export function formParams(rawBody: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(rawBody));
}

/** The called number of a Telnyx voice webhook (`call.initiated`). */
export function telnyxCalledNumber(rawBody: string): string | undefined {
  try {
    const to = (JSON.parse(rawBody) as { data?: { payload?: { to?: unknown } } }).data?.payload?.to;
    return typeof to === 'string' ? to : undefined;
  } catch {
    return undefined;
  }
}

/** The number a Telnyx `message.received` was sent to (its first recipient). */
export function telnyxMessageRecipient(rawBody: string): string | undefined {
  try {
    const to = (JSON.parse(rawBody) as { data?: { payload?: { to?: { phone_number?: unknown }[] } } }).data?.payload
      ?.to?.[0]?.phone_number;
    return typeof to === 'string' ? to : undefined;
  } catch {
    return undefined;
  }
}
