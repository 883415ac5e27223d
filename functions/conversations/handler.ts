import { conversationRoutes } from '../../shared/api/routes/conversations.ts';
import { callerOf, createApiHandler, operation } from '../../shared/http/api-handler.ts';
import { requestBaseUrl } from '../../shared/http/base-url.ts';
import { noContent, ok } from '../../shared/http/response.ts';
import * as conversations from '../../shared/services/conversations.ts';
import * as liveCalls from '../../shared/services/live-call-api.ts';
import { draftTestFromConversation } from '../../shared/services/test-drafts.ts';

export const handler = createApiHandler([
  operation(conversationRoutes.createConversation, async ({ params, body }, context) =>
    ok(await conversations.createConversation(callerOf(context).organizationId, params.agent_id, body)),
  ),
  operation(conversationRoutes.listConversations, async ({ params, query }, context) =>
    ok(await conversations.listConversations(callerOf(context).organizationId, params.agent_id, query)),
  ),
  operation(conversationRoutes.getConversation, async ({ params }, context) =>
    ok(
      await conversations.getConversation(
        callerOf(context).organizationId,
        params.agent_id,
        params.conversation_id,
        requestBaseUrl(context.event),
      ),
    ),
  ),
  operation(conversationRoutes.deleteConversation, async ({ params }, context) => {
    await conversations.deleteConversation(callerOf(context).organizationId, params.agent_id, params.conversation_id);
    return noContent();
  }),
  operation(conversationRoutes.draftTestFromConversation, async ({ params }, context) =>
    ok(await draftTestFromConversation(callerOf(context).organizationId, params.agent_id, params.conversation_id)),
  ),
  operation(conversationRoutes.getTranscript, async ({ params }, context) =>
    ok(
      await conversations.getTranscript(
        callerOf(context).organizationId,
        params.agent_id,
        params.conversation_id,
        requestBaseUrl(context.event),
      ),
    ),
  ),
  operation(conversationRoutes.getRecording, async ({ params, query }, context) =>
    ok(
      await conversations.getRecording(
        callerOf(context).organizationId,
        params.agent_id,
        params.conversation_id,
        query.expires_in,
        requestBaseUrl(context.event),
      ),
    ),
  ),
  operation(conversationRoutes.listenToConversation, async ({ params }, context) =>
    ok(await liveCalls.listenToConversation(callerOf(context).organizationId, params.agent_id, params.conversation_id)),
  ),
  operation(conversationRoutes.controlConversation, async ({ params, body }, context) =>
    ok(
      await liveCalls.controlConversation(
        callerOf(context).organizationId,
        params.agent_id,
        params.conversation_id,
        body,
      ),
    ),
  ),
]);
