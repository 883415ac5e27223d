import { addMonth, inPln, needsRegulatoryReview, priceOf, type NumberType } from '../domain/number-pricing.ts';
import { BadRequestError, ConflictError, NotFoundError } from '../domain/errors.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import { parsePhoneNumber } from '../domain/phone-numbers.ts';
import { RequestValidationError } from '../http/validation-error.ts';
import * as agentsRepository from '../repositories/agents.ts';
import { nextId } from '../repositories/counters.ts';
import * as repository from '../repositories/numbers.ts';
import { getOrganization } from '../repositories/organizations.ts';
import { getAgent } from './agents.ts';
import { requiredSetting } from '../config/settings.ts';
import { emitNumberReviewed } from '../events/webhook-events.ts';
import { logger } from '../observability/logger.ts';
import type { BoughtNumber } from '../telephony/adapter.ts';
import type { EndUserData } from '../domain/regulatory-review.ts';
import * as documents from './number-documents.ts';
import { documentForReview } from './number-documents.ts';

/**
 * The platform account and its number marketplace load with the first request that reaches the
 * provider: the provider SDKs behind them (Twilio's is over 3 MB bundled) are a chunk of their own
 * instead of part of every cold start of the functions using this service (calls, campaigns).
 */
const telephonyAccounts = () => import('../telephony/accounts.ts');
const numberMarketplace = () => import('../telephony/number-marketplace.ts');

/** The price the setup screen compares with the balance. */
const MOBILE_PRICE_COUNTRY = 'PL';

async function agentNames(orgId: number, ids: number[]): Promise<Map<number, string>> {
  const unique = [...new Set(ids)];
  const agents = await Promise.all(unique.map((id) => agentsRepository.getAgent(orgId, id)));
  return new Map(unique.map((id, index) => [id, agents[index]?.name ?? '']));
}

async function present(numbers: repository.NumberRecord[], orgId: number) {
  const outbound = await repository.listOutboundNumbers(orgId);
  const names = await agentNames(orgId, [
    ...numbers.flatMap((number) => (number.workflow_id ? [number.workflow_id] : [])),
    ...outbound.map((entry) => entry.workflow_id),
  ]);
  return numbers.map(
    ({
      renews_at: _renews,
      end_user_id: _endUserId,
      consent: _consent,
      end_user: _endUser,
      number_type: _type,
      review_reference: _review,
      early_review_news: _earlyNews,
      ...number
    }) => ({
      ...number,
      workflow_name: number.workflow_id ? (names.get(number.workflow_id) ?? '') : null,
      outbound_workflows: outbound
        .filter((entry) => entry.phone_number_id === number.id)
        .map((entry) => ({ workflow_id: entry.workflow_id, workflow_name: names.get(entry.workflow_id) ?? '' })),
      monthly_cost_pln: inPln(number.monthly_cost_usd),
    }),
  );
}

const one = async (orgId: number, number: repository.NumberRecord) => (await present([number], orgId))[0]!;

export async function searchMarketplace(query: { country_code: string; number_type?: NumberType }) {
  const marketplace = await numberMarketplace();
  const offered = await marketplace.searchNumbers(query.country_code, query.number_type);
  // A regulated number is bought at the provider only once approved: the provider still offers
  // numbers held pending here, which no one else may buy.
  const held = await repository.claimedNumbers(offered.map((number) => number.phone_number));
  const numbers = offered.filter((number) => !held.has(number.phone_number));
  return {
    items: numbers.flatMap((number) => {
      const price = priceOf(number.country_code, number.number_type);
      if (price === undefined) return [];
      return [
        {
          ...number,
          monthly_cost_usd: price,
          monthly_cost_pln: inPln(price),
          requires_regulatory_review: needsRegulatoryReview(number.phone_number),
        },
      ];
    }),
  };
}

const invalid = (loc: ['body', ...(string | number)[]], message: string, input: unknown) =>
  new RequestValidationError([
    { type: 'value_error', loc, msg: `Value error, ${message}`, input, ctx: { error: message } },
  ]);

/**
 * Buys a number. The first month is charged in the same DynamoDB transaction that creates the
 * number (never one without the other); then the provider is asked for it, and a refusal undoes
 * both. Polish mobile numbers need consent and the subscriber's data and start `pending`.
 */
export async function purchaseNumber(
  orgId: number,
  request: {
    phone_number: string;
    country_code: string;
    number_type: NumberType;
    end_user_id?: number | null;
    consent: boolean;
    end_user?: EndUserData;
    friendly_name?: string;
  },
) {
  const parsed = parsePhoneNumber(request.phone_number)!;
  if (parsed.country !== request.country_code)
    throw invalid(
      ['body', 'country_code'],
      `${request.phone_number} is a number of ${parsed.country}, not ${request.country_code}`,
      request.country_code,
    );
  const review = needsRegulatoryReview(parsed.e164);
  if (review && !request.consent)
    throw invalid(
      ['body', 'consent'],
      "Polish mobile numbers need the subscriber's consent (consent: true)",
      request.consent,
    );
  if (review) {
    // The subscriber must be identified only where a regulator reviews the number.
    const missing = (['end_user_id', 'end_user'] as const).filter((field) => request[field] == null);
    if (missing.length)
      throw new RequestValidationError(
        missing.map((field) => ({ type: 'missing', loc: ['body', field], msg: 'Field required', input: null })),
      );
  }
  const price = priceOf(request.country_code, request.number_type);
  if (price === undefined)
    throw new BadRequestError(`No ${request.number_type} numbers are sold in ${request.country_code}`);
  // The document scan is read before anything is written: an unknown one is a 422, nothing charged.
  const document = review ? await documentForReview(orgId, request.end_user!) : undefined;

  const now = new Date().toISOString();
  const marketplace = await numberMarketplace();
  // What the number can do as the provider lists it for sale (a landline: voice only); its purchase
  // answer says again where the provider's does (Twilio's IncomingPhoneNumber; Telnyx's order does not).
  const offered = (await marketplace.searchNumbers(request.country_code, request.number_type)).find(
    (each) => each.phone_number === parsed.e164,
  );
  const number: repository.NumberRecord = {
    id: await nextId('phoneNumber'),
    organization_id: orgId,
    phone_number: parsed.e164,
    provider: (await (await telephonyAccounts()).platformAccount()).adapter.provider,
    status: review ? 'pending' : 'active',
    country_code: request.country_code,
    number_type: request.number_type,
    // Not offered any more (sold meanwhile: the purchase fails), or not listed: what every search asks for.
    capabilities: offered?.capabilities ?? ['voice'],
    friendly_name: request.friendly_name ?? parsed.e164,
    workflow_id: null,
    monthly_cost_usd: price,
    provider_number_id: null,
    purchased_at: now,
    assigned_at: null,
    created_at: now,
    order_id: await nextId('numberOrder'),
    order_status: review ? 'in_review' : 'completed',
    order_status_reason: review ? "Awaiting the provider's regulatory review of the subscriber's data" : null,
    // The month paid for: from the purchase, or for a regulated number from its approval.
    outbound_commitment_until: review ? null : addMonth(new Date(now)).toISOString(),
    // Pending numbers are not billed again until approved.
    renews_at: review ? null : addMonth(new Date(now)).toISOString(),
    end_user_id: request.end_user_id ?? null,
    consent: request.consent,
    end_user: request.end_user ?? null,
  };
  const created = await repository.insertPurchasedNumber(number);
  if (created === 'insufficient_balance') {
    const balance = (await getOrganization(orgId))?.balance_usd ?? 0;
    throw new BadRequestError(
      `Balance ${balance.toFixed(2)} USD is below the first month's price of ${price.toFixed(2)} USD`,
    );
  }
  if (created === 'taken') throw new ConflictError(`${parsed.e164} is not available`);
  try {
    if (!review) {
      const ordered = await bought(number, await marketplace.buyNumber(parsed.e164));
      await repository.putNumber(ordered);
      return one(orgId, ordered);
    }
    // A regulated number goes to the provider's review; the provider's verdict (reviewNumber) makes it active.
    const { reference } = await marketplace.submitForReview({
      organizationId: orgId,
      numberId: number.id,
      e164: parsed.e164,
      country: request.country_code,
      type: request.number_type,
      endUser: request.end_user!,
      endUserId: request.end_user_id!,
      document: document!,
      email: regulatoryEmail(),
    });
    await recordReview(number, reference);
  } catch (error) {
    await repository.cancelPurchase(number, new Date().toISOString());
    if (!review && marketplace.isUnavailable(error)) throw new ConflictError(`${parsed.e164} is not available`);
    throw error;
  }
  return one(orgId, (await repository.getNumber(orgId, number.id)) ?? number);
}

/**
 * Records the review's reference on the pending number (only the review's fields, so a decision
 * made meanwhile stands). A provider that decided and called back before that found no reference
 * to match and left word (applyProviderReview): the review is then looked at once, now.
 */
async function recordReview(number: repository.NumberRecord, reference: string): Promise<void> {
  const recorded = await repository.recordReviewReference(number, reference);
  if (!recorded?.newsCameFirst) return;
  try {
    await applyProviderReview(number, reference);
  } catch (error) {
    // The schedule's look decides it later; the purchase itself went through.
    logger.warn('Regulatory review not looked at after its early news', {
      organizationId: number.organization_id,
      numberId: number.id,
      error: String(error),
    });
  }
}

/** The number as bought: the provider's id of it, and its capabilities where the provider's answer reports them. */
const bought = (number: repository.NumberRecord, answer: BoughtNumber): repository.NumberRecord => ({
  ...number,
  provider_number_id: answer.providerNumberId,
  capabilities: answer.capabilities ?? number.capabilities,
});

/** Where the provider sends news of regulatory reviews (Twilio requires one per bundle). */
const regulatoryEmail = (): string => requiredSetting('TELEPHONY_REGULATORY_EMAIL');

async function findNumber(orgId: number, numberId: number) {
  const number = await repository.getNumber(orgId, numberId);
  if (!number) throw new NotFoundError('Phone number not found');
  return number;
}

export const getNumber = async (orgId: number, numberId: number) => one(orgId, await findNumber(orgId, numberId));

export async function listNumbers(orgId: number, page: PageRequest) {
  const { items, totalCount } = await repository.listNumbers(orgId, pageOffset(page), page.limit);
  return { items: await present(items, orgId), ...pageInfo(page, totalCount) };
}

/** Routes the number's incoming calls to an agent (pending numbers may be assigned; they carry no traffic yet). */
export async function assignNumber(orgId: number, request: { phone_number_id: number; workflow_id: number }) {
  const agent = await getAgent(orgId, String(request.workflow_id));
  const assigned = await repository.assignNumber(orgId, request.phone_number_id, agent.id, new Date().toISOString());
  if (!assigned) throw new NotFoundError('Phone number not found');
  return one(orgId, assigned);
}

export async function setOutboundNumber(orgId: number, agentRef: string, numberId: number | null) {
  const agent = await getAgent(orgId, agentRef);
  const number = numberId === null ? null : await findNumber(orgId, numberId);
  await repository.setOutboundNumber(orgId, agent.id, number?.id ?? null);
  return {
    workflow_id: agent.id,
    workflow_name: agent.name,
    phone_number_id: number?.id ?? null,
    phone_number: number?.phone_number ?? null,
  };
}

export async function outboundAgents(orgId: number) {
  const outbound = await repository.listOutboundNumbers(orgId);
  const names = await agentNames(
    orgId,
    outbound.map((entry) => entry.workflow_id),
  );
  const numbers = await Promise.all(outbound.map((entry) => repository.getNumber(orgId, entry.phone_number_id)));
  return {
    items: outbound.map((entry, index) => ({
      workflow_id: entry.workflow_id,
      workflow_name: names.get(entry.workflow_id) ?? '',
      phone_number_id: entry.phone_number_id,
      phone_number: numbers[index]?.phone_number ?? null,
    })),
  };
}

export async function numberSetup(orgId: number) {
  const [organization, numberCount, agents] = await Promise.all([
    getOrganization(orgId),
    repository.countNumbers(orgId),
    agentsRepository.countAgents(orgId, ['active', 'archived']),
  ]);
  const plan = organization?.plan ?? 'free';
  const balance = organization?.balance_usd ?? 0;
  const mobilePrice = priceOf(MOBILE_PRICE_COUNTRY, 'mobile')!;
  return {
    show_phone_number_step: plan === 'paid' && numberCount === 0,
    plan,
    phone_number_count: numberCount,
    agent_count: agents,
    balance_usd: balance,
    mobile_number_price_usd: mobilePrice,
    can_afford_mobile_number: balance >= mobilePrice,
  };
}

/**
 * Regulatory review of a pending number: approved numbers are bought (unless the provider's
 * approval already did: Telnyx's order), go live and renew monthly; rejected ones are refunded and
 * their document erased; either way `number.approved` / `number.rejected` goes to the
 * organization's webhooks. `reviewedBy: 'operator'` is the operator CLI's override of the
 * provider's review, logged as such.
 */
export async function reviewNumber(
  orgId: number,
  numberId: number,
  decision: 'approve' | 'reject',
  reason?: string,
  reviewedBy: 'provider' | 'operator' = 'operator',
  boughtByProvider?: BoughtNumber,
) {
  const number = await findNumber(orgId, numberId);
  if (number.status !== 'pending') throw new ConflictError(`Number ${numberId} is ${number.status}, not pending`);
  const provided = boughtByProvider ?? (decision === 'approve' ? await approvedAtProvider(number) : undefined);
  // The provider approved the bundle: the number can now be bought with it (Telnyx's order already did).
  const purchase = provided
    ? bought(number, provided)
    : decision === 'approve' && !number.provider_number_id
      ? bought(
          number,
          await (await numberMarketplace()).buyNumber(number.phone_number, number.review_reference ?? undefined),
        )
      : number;
  const paidUntil = addMonth(new Date()).toISOString();
  const reviewed =
    decision === 'approve'
      ? await repository.changeNumberStatus(orgId, numberId, 'pending', 'active', {
          renews_at: paidUntil,
          outbound_commitment_until: paidUntil,
          order_status: 'completed',
          order_status_reason: null,
          provider_number_id: purchase.provider_number_id,
          capabilities: purchase.capabilities,
        })
      : await repository.rejectPendingNumber(
          number,
          reason ?? 'Rejected in regulatory review',
          new Date().toISOString(),
        );
  if (!reviewed) throw new ConflictError(`Number ${numberId} was reviewed meanwhile`);
  const current = (await repository.getNumber(orgId, numberId))!;
  if (reviewedBy === 'operator')
    logger.info('Regulatory review overridden by the operator', {
      organizationId: orgId,
      numberId,
      decision,
      reason: current.order_status_reason,
    });
  // A rejected subscriber's document has no further use here: it is erased.
  const documentId = number.end_user?.document_id;
  if (decision === 'reject' && documentId !== undefined) await documents.eraseDocument(orgId, documentId);
  await emitNumberReviewed(current, reviewedBy);
  return one(orgId, current);
}

/**
 * An approval needs the provider's: the operator's override applies a provider's approval whose
 * news did not arrive, and cannot buy a number the provider has not approved (409 saying so).
 * What the approval already bought, if anything (Telnyx's completed order).
 */
async function approvedAtProvider(number: repository.NumberRecord): Promise<BoughtNumber | undefined> {
  if (!number.review_reference) return undefined;
  const verdict = await (await numberMarketplace()).reviewStatus(number.review_reference);
  if (verdict.decision !== 'approve')
    throw new ConflictError(
      `The provider has ${verdict.decision === 'reject' ? `rejected the review (${verdict.reason})` : 'not decided the review yet'}: number ${number.id} cannot be bought`,
    );
  return verdict.bought;
}

/**
 * The provider's word on a pending number's review (its signed callback, or a look): the
 * provider is asked for the review's status (the callback only says which review), and a decided
 * review moves the number. A number no longer pending, or a review still under way, changes nothing.
 */
export async function applyProviderReview(
  number: Pick<repository.NumberRecord, 'organization_id' | 'id'>,
  reference: string,
  callbackReason?: string,
): Promise<'approved' | 'rejected' | 'unchanged'> {
  const current = await repository.getNumber(number.organization_id, number.id);
  if (!current || current.status !== 'pending') return 'unchanged';
  if (current.review_reference !== reference) {
    if (current.review_reference) return 'unchanged';
    // News before the purchase recorded its review: word is left for the purchase to look, unless
    // the reference was recorded meanwhile, when the news applies as usual.
    if (await repository.noteEarlyReviewNews(current)) return 'unchanged';
    return applyProviderReview(number, reference, callbackReason);
  }
  const verdict = await (await numberMarketplace()).reviewStatus(reference);
  if (verdict.decision === 'pending') return 'unchanged';
  try {
    if (verdict.decision === 'approve')
      await reviewNumber(current.organization_id, current.id, 'approve', undefined, 'provider', verdict.bought);
    else
      await reviewNumber(
        current.organization_id,
        current.id,
        'reject',
        callbackReason?.slice(0, 500) || verdict.reason,
        'provider',
      );
  } catch (error) {
    // A repeated callback, or the operator deciding meanwhile: the first decision stands.
    if (error instanceof ConflictError) return 'unchanged';
    throw error;
  }
  return verdict.decision === 'approve' ? 'approved' : 'rejected';
}

/** A review younger than this is left to the provider's callback: the schedule is the safety net. */
export const REVIEW_POLL_AFTER_MS = 15 * 60_000;

/**
 * The schedule's look at the reviews still under way (a callback lost, or never configured: a
 * Telnyx account without its number-order webhook): each number in review for more than
 * REVIEW_POLL_AFTER_MS is decided by the provider's status as its callback would. One failing look
 * does not stop the others.
 */
export async function pollProviderReviews(
  now = new Date(),
  limit = 100,
): Promise<{ approved: number; rejected: number }> {
  const counts = { approved: 0, rejected: 0 };
  const before = new Date(now.getTime() - REVIEW_POLL_AFTER_MS).toISOString();
  for (const number of await repository.numbersInReview(before, limit)) {
    try {
      const outcome = await applyProviderReview(number, number.review_reference!);
      if (outcome !== 'unchanged') counts[outcome] += 1;
    } catch (error) {
      logger.warn('Regulatory review not looked at', {
        organizationId: number.organization_id,
        numberId: number.id,
        error: (error as Error).message,
      });
    }
  }
  return counts;
}

/**
 * Why a call may not use these numbers, if any: a pending or inactive number carries no traffic,
 * whether the agent dials from it or the call is to it.
 */
export async function callNumbersRefusal(
  orgId: number,
  agentId: number,
  to: string,
): Promise<{ from: string | null; refusal?: string }> {
  const outboundId = await repository.getOutboundNumberId(orgId, agentId);
  const outbound = outboundId === undefined ? undefined : await repository.getNumber(orgId, outboundId);
  if (outbound && outbound.status !== 'active')
    return {
      from: null,
      refusal: `The agent's outbound number ${outbound.phone_number} is ${outbound.status} and carries no traffic`,
    };
  const target = await repository.findOwnedNumber(orgId, to);
  if (target && target.status !== 'active')
    return { from: null, refusal: `${to} is one of your numbers and is ${target.status}: it carries no traffic` };
  return { from: outbound?.phone_number ?? null };
}
