import { agentTemplateRoutes } from '../../shared/api/routes/agent-templates.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { parseMultipart } from '../../shared/http/multipart.ts';
import { noContent, ok } from '../../shared/http/response.ts';
import * as authoring from '../../shared/services/agent-authoring.ts';
import * as speechKeys from '../../shared/services/speech-keys.ts';
import {
  extractDocumentText,
  MAX_SCRIPT_UPLOAD_BYTES,
  MAX_UPLOAD_BYTES,
} from '../../shared/services/text-extraction.ts';
import { pageOfItems } from '../../shared/domain/pagination.ts';

export const handler = createApiHandler([
  operation(agentTemplateRoutes.listTemplates, async ({ query }) =>
    ok(pageOfItems(authoring.listTemplates().items, query)),
  ),
  operation(agentTemplateRoutes.fromTemplate, async ({ body }, context) =>
    ok(await authoring.createFromTemplate(callerOf(context).organizationId, body)),
  ),
  operation(agentTemplateRoutes.translatePrompt, async ({ body }, context) =>
    ok(await authoring.translatePrompt(callerOf(context).organizationId, body)),
  ),
  operation(agentTemplateRoutes.getModelKey, async (_input, context) =>
    ok(await authoring.modelKeyStatus(callerOf(context).organizationId)),
  ),
  operation(agentTemplateRoutes.setModelKey, async ({ body }, context) =>
    ok(await authoring.setModelKey(callerOf(context).organizationId, body)),
  ),
  operation(agentTemplateRoutes.clearModelKey, async (_input, context) => {
    await authoring.clearModelKey(callerOf(context).organizationId);
    return noContent();
  }),
  operation(agentTemplateRoutes.listSpeechKeys, async ({ query }, context) =>
    ok(pageOfItems((await speechKeys.listSpeechKeys(callerOf(context).organizationId)).items, query)),
  ),
  operation(agentTemplateRoutes.setSpeechKey, async ({ params, body }, context) =>
    ok(await speechKeys.setSpeechKey(callerOf(context).organizationId, params.provider, body)),
  ),
  operation(agentTemplateRoutes.clearSpeechKey, async ({ params }, context) => {
    await speechKeys.clearSpeechKey(callerOf(context).organizationId, params.provider);
    return noContent();
  }),
  operation(agentTemplateRoutes.analyzeScript, async ({ body }, context) =>
    ok(await authoring.analyzeScript(callerOf(context).organizationId, body)),
  ),
  operation(agentTemplateRoutes.fromScript, async ({ body }, context) =>
    ok(await authoring.createFromScript(callerOf(context).organizationId, body)),
  ),
  operation(agentTemplateRoutes.extractText, async ({ query }, context) => {
    const { organizationId } = callerOf(context);
    const { files } = await parseMultipart(
      context.event,
      query.purpose === 'script' ? MAX_SCRIPT_UPLOAD_BYTES : MAX_UPLOAD_BYTES,
    );
    return ok(
      await extractDocumentText(
        organizationId,
        files.find((file) => file.fieldName === 'file'),
        query.purpose,
      ),
    );
  }),
]);
