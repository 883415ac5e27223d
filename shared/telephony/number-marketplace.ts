import { NUMBER_TYPES, type NumberType } from '../domain/number-pricing.ts';
import { telnyxCustomerReference } from '../domain/regulatory-review.ts';
import { ProviderError, type AvailableNumber, type RegulatoryReview } from './adapter.ts';
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

function webhookUrl(provider: string, path: 'voice' | 'messages' | 'status'): string {
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

/** The platform account's regulatory review; every provider the platform runs on has one. */
async function review() {
  const { adapter } = await platformAccount();
  if (!adapter.regulatoryReview)
    throw new ProviderError(`Regulated numbers cannot be bought on a ${adapter.provider} account through its API`);
  return { provider: adapter.provider, review: adapter.regulatoryReview };
}

/** Where the provider reports on the review (Twilio's bundle StatusCallback, signed, naming the number). */
export function reviewCallbackUrl(provider: string, numberRef: string): string {
  return `${webhookUrl(provider, 'status')}?${NUMBER_QUERY_PARAMETER}=${numberRef}`;
}

/** The query parameter of the review callback naming the number: `<organization>.<number>`. */
export const NUMBER_QUERY_PARAMETER = 'number';

/** `<organization>.<number>` of the review callback's query, or undefined. */
export function parseNumberRef(value: string | null): { organizationId: number; numberId: number } | undefined {
  const match = /^(\d{1,12})\.(\d{1,12})$/.exec(value ?? '');
  return match ? { organizationId: Number(match[1]), numberId: Number(match[2]) } : undefined;
}

export async function submitForReview(
  request: Omit<Parameters<RegulatoryReview['submitForReview']>[0], 'statusCallbackUrl' | 'customerReference'> & {
    organizationId: number;
    numberId: number;
  },
) {
  const { provider, review: regulatory } = await review();
  const numberRef = `${request.organizationId}.${request.numberId}`;
  return regulatory.submitForReview({
    ...request,
    statusCallbackUrl: reviewCallbackUrl(provider, numberRef),
    customerReference: telnyxCustomerReference(request.organizationId, request.numberId, request.endUserId),
  });
}

export const reviewStatus = async (reference: string) => (await review()).review.reviewStatus(reference);
