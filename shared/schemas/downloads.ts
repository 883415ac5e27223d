import * as z from 'zod';
import './common.ts';

export const DownloadTokenParam = z.object({
  token: z.string().max(2048).openapi({ description: 'The signed token of the link.' }),
});
