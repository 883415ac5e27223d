import * as z from 'zod';
import './common.ts';
import { documentedInt, nonNegativeInt } from './bounds.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const PaginationQuery = z.object({
  page: documentedInt(z.int().gte(1)).default(1).openapi({ description: 'Page number, from 1.' }),
  limit: documentedInt(z.int().gte(1).lte(MAX_PAGE_SIZE))
    .default(DEFAULT_PAGE_SIZE)
    .openapi({ description: `Items per page (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).` }),
});

/** The envelope of every paginated list. */
export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item).max(MAX_PAGE_SIZE),
      page: documentedInt(z.int().gte(1)),
      limit: documentedInt(z.int().gte(1).lte(MAX_PAGE_SIZE)),
      total_count: nonNegativeInt(),
      total_pages: nonNegativeInt(),
    })
    .openapi(name);
}
