import * as z from 'zod';
import './common.ts';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

export const PaginationQuery = z.object({
  page: z.int().gte(1).default(1).openapi({ description: 'Page number, from 1.' }),
  limit: z
    .int()
    .gte(1)
    .lte(MAX_PAGE_SIZE)
    .default(DEFAULT_PAGE_SIZE)
    .openapi({ description: `Items per page (default ${DEFAULT_PAGE_SIZE}, at most ${MAX_PAGE_SIZE}).` }),
});

/** The envelope of every paginated list. */
export function pageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      items: z.array(item),
      page: z.int(),
      limit: z.int(),
      total_count: z.int(),
      total_pages: z.int(),
    })
    .openapi(name);
}
