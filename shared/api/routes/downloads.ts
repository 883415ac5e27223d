import { ErrorResponse } from '../../schemas/common.ts';
import { DownloadTokenParam } from '../../schemas/downloads.ts';
import { defineRoute } from '../route.ts';

/** Apart from the conversation routes, so the downloads function bundles none of their schemas. */
export const downloadRoutes = {
  download: defineRoute({
    operationId: 'downloadFile',
    method: 'GET',
    path: '/downloads/{token}',
    group: 'downloads',
    public: true,
    summary: 'Follow a signed download link',
    description:
      'The link itself is the credential: no API key. Redirects (302) to the file for a minute; 403 when the link is expired or altered, 404 when the file was deleted.',
    tags: ['Conversations'],
    request: { params: DownloadTokenParam },
    responses: {
      302: { description: 'Redirect to the file' },
      403: { description: 'Expired or invalid link', schema: ErrorResponse },
      404: { description: 'File deleted', schema: ErrorResponse },
    },
  }),
};
