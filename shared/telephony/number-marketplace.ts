import { NUMBER_TYPES, type NumberType } from '../domain/number-pricing.ts';
import { ProviderError, type AvailableNumber } from './adapter.ts';
import { platformAccount } from './accounts.ts';
import { requiredSetting } from '../config/settings.ts';

/**
 * The number marketplace: the platform account's provider sells the numbers (Twilio
 * AvailablePhoneNumbers and IncomingPhoneNumbers, Telnyx available numbers and number orders);
 * regulated numbers (Polish mobiles) wait for the provider's regulatory bundle approval.
 */
export type { AvailableNumber };

/** A number the provider no longer offers (bought meanwhile): Twilio 21422 / HTTP 400, Telnyx 409/422. */
export const isUnavailable = (error: unknown): boolean =>
  error instanceof ProviderError && [400, 404, 409, 422].includes(error.status ?? 0);

export async function searchNumbers(country: string, type?: NumberType): Promise<AvailableNumber[]> {
  const { adapter } = await platformAccount();
  const lists = await Promise.all(
    (type ? [type] : NUMBER_TYPES).map((each) => adapter.numbers.searchNumbers(country, each)),
  );
  return lists.flat();
}

function webhookUrl(provider: string, path: 'voice' | 'messages'): string {
  return `${requiredSetting('PUBLIC_BASE_URL').replace(/\/$/, '')}/telephony/${provider}/${path}`;
}

/** Buys a number whose incoming calls ring this API's voice webhook, and whose texts reach its messaging webhook. */
export async function buyNumber(e164: string, regulatoryBundleId?: string) {
  const { adapter } = await platformAccount();
  return adapter.numbers.buyNumber(e164, {
    voiceUrl: webhookUrl(adapter.provider, 'voice'),
    messagingUrl: webhookUrl(adapter.provider, 'messages'),
    regulatoryBundleId,
  });
}

export const releaseNumber = async (providerNumberId: string) =>
  (await platformAccount()).adapter.numbers.releaseNumber(providerNumberId);

export const submitRegulatoryBundle = async (request: {
  country: string;
  type: NumberType;
  endUser: Record<string, unknown>;
  email: string;
}) => {
  const { adapter } = await platformAccount();
  // A provider without regulatory review through its API (Telnyx: requirement groups in its portal).
  if (!adapter.regulatoryReview)
    throw new ProviderError(
      `Regulated numbers on a ${adapter.provider} account need their regulatory requirements prepared in the provider's portal; buy them there`,
    );
  return adapter.regulatoryReview.submitRegulatoryBundle(request);
};
