/** Page arithmetic shared by every list endpoint (`page` from 1, `limit` per page). */
export interface PageRequest {
  page: number;
  limit: number;
}

export interface PageInfo {
  page: number;
  limit: number;
  total_count: number;
  total_pages: number;
}

/** Items to skip before the requested page. */
export const pageOffset = ({ page, limit }: PageRequest): number => (page - 1) * limit;

/** An empty list has zero pages; a page past the last is valid and empty. */
export const totalPages = (totalCount: number, limit: number): number => Math.ceil(totalCount / limit);

export function pageInfo(request: PageRequest, totalCount: number): PageInfo {
  return {
    page: request.page,
    limit: request.limit,
    total_count: totalCount,
    total_pages: totalPages(totalCount, request.limit),
  };
}

/**
 * One page of a list held whole in memory (a catalogue, a provider's search answer, a list capped
 * per organization): the same envelope as the lists paged in DynamoDB.
 */
export function pageOfItems<T>(items: readonly T[], request: PageRequest): { items: T[] } & PageInfo {
  const offset = pageOffset(request);
  return { items: items.slice(offset, offset + request.limit), ...pageInfo(request, items.length) };
}
