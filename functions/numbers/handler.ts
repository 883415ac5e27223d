import { numberRoutes } from '../../shared/api/routes/numbers.ts';
import { telephonyConfigRoutes } from '../../shared/api/routes/telephony-configs.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { parseMultipart } from '../../shared/http/multipart.ts';
import { created, noContent, ok } from '../../shared/http/response.ts';
import { MAX_DOCUMENT_BYTES } from '../../shared/domain/regulatory-review.ts';
import * as numberDocuments from '../../shared/services/number-documents.ts';
import * as numbers from '../../shared/services/numbers.ts';
import { pageOfItems } from '../../shared/domain/pagination.ts';
import * as telephonyConfigs from '../../shared/services/telephony-configs.ts';

export const handler = createApiHandler([
  operation(numberRoutes.uploadDocument, async (_input, context) => {
    const { files } = await parseMultipart(context.event, MAX_DOCUMENT_BYTES);
    return created(
      await numberDocuments.uploadDocument(
        callerOf(context).organizationId,
        files.find((file) => file.fieldName === 'file'),
      ),
    );
  }),
  operation(numberRoutes.deleteDocument, async ({ params }, context) => {
    await numberDocuments.deleteDocument(callerOf(context).organizationId, params.number_document_id);
    return noContent();
  }),
  operation(numberRoutes.marketplace, async ({ query }) =>
    ok(pageOfItems((await numbers.searchMarketplace(query)).items, query)),
  ),
  operation(numberRoutes.purchase, async ({ body }, context) =>
    ok(await numbers.purchaseNumber(callerOf(context).organizationId, body)),
  ),
  operation(numberRoutes.list, async ({ query }, context) =>
    ok(await numbers.listNumbers(callerOf(context).organizationId, query)),
  ),
  operation(numberRoutes.setup, async (_input, context) =>
    ok(await numbers.numberSetup(callerOf(context).organizationId)),
  ),
  operation(numberRoutes.assign, async ({ body }, context) =>
    ok(await numbers.assignNumber(callerOf(context).organizationId, body)),
  ),
  operation(numberRoutes.get, async ({ params }, context) =>
    ok(await numbers.getNumber(callerOf(context).organizationId, params.phone_number_id)),
  ),
  operation(numberRoutes.outboundAgents, async ({ query }, context) =>
    ok(pageOfItems((await numbers.outboundAgents(callerOf(context).organizationId)).items, query)),
  ),
  operation(numberRoutes.outboundNumber, async ({ params, body }, context) =>
    ok(await numbers.setOutboundNumber(callerOf(context).organizationId, params.agent_id, body.phone_number_id)),
  ),
  operation(telephonyConfigRoutes.put, async ({ body }, context) =>
    ok(await telephonyConfigs.putTelephonyConfig(callerOf(context).organizationId, body)),
  ),
  operation(telephonyConfigRoutes.get, async (_input, context) =>
    ok(await telephonyConfigs.getTelephonyConfig(callerOf(context).organizationId)),
  ),
  operation(telephonyConfigRoutes.delete, async (_input, context) => {
    await telephonyConfigs.deleteTelephonyConfig(callerOf(context).organizationId);
    return noContent();
  }),
]);
