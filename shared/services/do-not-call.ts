import { NotFoundError } from '../domain/errors.ts';
import { pageInfo, pageOffset, type PageRequest } from '../domain/pagination.ts';
import * as repository from '../repositories/do-not-call.ts';

/** Adds a normalised number; `created` is false when it was on the list already (the request is idempotent). */
export async function addNumber(
  orgId: number,
  e164: string,
): Promise<{ entry: repository.DoNotCallEntry; created: boolean }> {
  const entry = { phone_number: e164, created_at: new Date().toISOString() };
  if (await repository.addDoNotCall(orgId, entry)) return { entry, created: true };
  return { entry: (await repository.getDoNotCall(orgId, e164)) ?? entry, created: false };
}

export async function removeNumber(orgId: number, e164: string): Promise<void> {
  if (!(await repository.removeDoNotCall(orgId, e164)))
    throw new NotFoundError('Phone number is not on the do-not-call list');
}

export async function listNumbers(orgId: number, page: PageRequest) {
  const { items, totalCount } = await repository.listDoNotCall(orgId, pageOffset(page), page.limit);
  return { items, ...pageInfo(page, totalCount) };
}

export async function isBlocked(orgId: number, e164: string): Promise<boolean> {
  return (await repository.getDoNotCall(orgId, e164)) !== undefined;
}
