import { addMonth } from '../domain/number-pricing.ts';
import { logger } from '../observability/logger.ts';
import * as repository from '../repositories/numbers.ts';

const BATCH = 100;

/**
 * Monthly renewal, run by the schedule: every active number whose month has ended is charged and
 * its `renews_at` moved a month on, in one transaction; a balance too low suspends the number.
 * Pending numbers are not in the renewal index, so they are never charged.
 */
export async function renewDueNumbers(now = new Date()): Promise<{ renewed: number; suspended: number }> {
  let renewed = 0;
  let suspended = 0;
  for (const number of await repository.dueRenewals(now.toISOString(), BATCH)) {
    const next = addMonth(new Date(number.renews_at!)).toISOString();
    if (await repository.renewNumber(number, next, now.toISOString())) {
      renewed += 1;
      continue;
    }
    await repository.changeNumberStatus(number.organization_id, number.id, 'active', 'suspended', {
      renews_at: null,
      order_status_reason: 'Renewal could not be charged: balance too low',
    });
    suspended += 1;
    logger.warn('Number suspended: renewal not covered by the balance', {
      organizationId: number.organization_id,
      numberId: number.id,
    });
  }
  return { renewed, suspended };
}
