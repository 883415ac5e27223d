import { downloadRoutes } from '../../shared/api/routes/downloads.ts';
import { createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { resolveDownloadLink } from '../../shared/services/download-links.ts';

/** Public: the signed token is the credential. */
export const handler = createApiHandler([
  operation(downloadRoutes.download, async ({ params }) => ({
    status: 302,
    headers: {
      Location: await resolveDownloadLink(params.token),
      'Cache-Control': 'no-store',
      'Referrer-Policy': 'no-referrer',
    },
  })),
]);
