/** Names shared by the event producers, the rules and the CDK stack. */
export const EVENT_BUS_NAME = 'voice-agent-platform';
export const EVENT_SOURCE = 'voice-agent-platform.calls';
export const CALL_COMPLETED = 'call.completed';
/**
 * An ended run's post-call analysis is recorded (bus only): carries the `call.completed` payload
 * with its analysis, which the webhooks deliver as `call.completed`.
 */
export const CALL_ANALYZED = 'call.analyzed';
