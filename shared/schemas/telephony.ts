import * as z from 'zod';
import './common.ts';

/** The provider's status callback (see shared/telephony/provider.ts). */
export const TelephonyStatusCallback = z.object({
  call_id: z.string().min(1),
  status: z.enum(['answered', 'completed', 'busy', 'no-answer', 'voicemail', 'failed']),
  custom_parameters: z.object({ run_ref: z.string() }),
  timestamp: z.string(),
});

export const DownloadTokenParam = z.object({
  token: z.string().max(2048).openapi({ description: 'The signed token of the link.' }),
});
