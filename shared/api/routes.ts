import type { Route } from './route.ts';
import { agentRoutes } from './routes/agents.ts';
import { definitionRoutes } from './routes/definitions.ts';
import { callRoutes } from './routes/calls.ts';
import { conversationRoutes } from './routes/conversations.ts';
import { downloadRoutes } from './routes/downloads.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { campaignRoutes } from './routes/campaigns.ts';
import { integrationRoutes } from './routes/integrations.ts';
import { triggerRoutes } from './routes/triggers.ts';
import { doNotCallRoutes } from './routes/do-not-call.ts';
import { docsRoutes } from './routes/docs.ts';
import { numberRoutes } from './routes/numbers.ts';
import { telephonyConfigRoutes } from './routes/telephony-configs.ts';
import { agentTemplateRoutes } from './routes/agent-templates.ts';
import { memoryRoutes } from './routes/memories.ts';
import { usageRoutes } from './routes/usage.ts';
import { campaignReportRoutes } from './routes/campaign-reports.ts';
import { knowledgeRoutes, toolRoutes } from './routes/agent-resources.ts';
import { apiKeyRoutes } from './routes/api-keys.ts';
import { agentTestRoutes } from './routes/agent-tests.ts';

export {
  agentRoutes,
  definitionRoutes,
  callRoutes,
  conversationRoutes,
  downloadRoutes,
  webhookRoutes,
  campaignRoutes,
  integrationRoutes,
  triggerRoutes,
  doNotCallRoutes,
  docsRoutes,
  numberRoutes,
  telephonyConfigRoutes,
  agentTemplateRoutes,
  memoryRoutes,
  usageRoutes,
  campaignReportRoutes,
  knowledgeRoutes,
  toolRoutes,
  apiKeyRoutes,
  agentTestRoutes,
};

/** The route table: every endpoint of the API, one file per domain in `routes/`. */
export const ROUTES: Route[] = [
  ...Object.values(agentRoutes),
  ...Object.values(definitionRoutes),
  ...Object.values(callRoutes),
  ...Object.values(conversationRoutes),
  ...Object.values(downloadRoutes),
  ...Object.values(campaignRoutes),
  ...Object.values(integrationRoutes),
  ...Object.values(triggerRoutes),
  ...Object.values(webhookRoutes),
  ...Object.values(doNotCallRoutes),
  ...Object.values(numberRoutes),
  ...Object.values(telephonyConfigRoutes),
  ...Object.values(agentTemplateRoutes),
  ...Object.values(memoryRoutes),
  ...Object.values(usageRoutes),
  ...Object.values(campaignReportRoutes),
  ...Object.values(knowledgeRoutes),
  ...Object.values(toolRoutes),
  ...Object.values(agentTestRoutes),
  ...Object.values(apiKeyRoutes),
  ...Object.values(docsRoutes),
] as Route[];
