import { Logger } from '@aws-lambda-powertools/logger';

/**
 * One structured JSON logger per execution environment. Service name and level come from
 * POWERTOOLS_SERVICE_NAME / POWERTOOLS_LOG_LEVEL, set per function by the stack. API keys are never
 * passed to it: the authorizer logs only the key id.
 */
export const logger = new Logger({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? 'voice-agent-api' });
