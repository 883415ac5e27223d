/** Names shared by the event producers, the rules and the CDK stack. */
export const EVENT_BUS_NAME = 'voice-agent-platform';
export const EVENT_SOURCE = 'voice-agent-platform.calls';
export const CALL_COMPLETED = 'call.completed';
