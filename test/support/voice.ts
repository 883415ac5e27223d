import { buildCallPlan, type CallInput } from '../../media/src/agent/call-plan.ts';
import { platformProviders } from '../../media/src/agent/providers.ts';
import type { PreparedCall } from '../../media/src/call/call-types.ts';
import type { ToolRecord } from '../../shared/repositories/agent-resources.ts';
import {
  startFakeVoiceProviders,
  type FakeVoiceOptions,
  type FakeVoiceProviders,
} from '../../local/fakes/voice-providers.ts';

// The ElevenLabs SDK is not loaded here (about 1.7 s of CPU in each test file): a call's sentences go
// over ElevenLabs' WebSocket (elevenlabs-multi-stream.ts), and the SDK's HTTP stream speaks only what no
// call owns (greetings kept for many calls, a warm transfer's message), which no file using this calls.

/** An agent's HTTP tool, as stored: a clinic's free slots on a day (answered by the local tool endpoint). */
export const availabilityTool = (createdAt: string): ToolRecord => ({
  id: 'tool_1',
  workflow_id: 1,
  name: 'check_availability',
  description: 'Free slots on a day',
  method: 'GET',
  url: 'https://clinic.example/slots',
  header_names: [],
  headers_ciphertext: null,
  parameters: { type: 'object', properties: { day: { type: 'string' } }, required: ['day'] },
  created_at: createdAt,
});

export const callInput = (overrides: Partial<CallInput> = {}): CallInput => ({
  agentName: 'Ann',
  workflowDefinition: {},
  workflowConfigurations: {},
  templateContextVariables: {},
  initialContext: {},
  dispositionCodes: { confirmed: 'Visit confirmed', declined: 'Not interested' },
  passages: [],
  tools: [],
  memories: [],
  ...overrides,
});

/** The local provider fakes and a `prepare` that gives a session the call `input` with the real clients pointed at them. */
export async function voiceFakes(
  options: FakeVoiceOptions = {},
): Promise<FakeVoiceProviders & { prepare: (input: CallInput) => () => Promise<PreparedCall>; runLogs: string[] }> {
  const fakes = await startFakeVoiceProviders(options);
  const platform = platformProviders(fakes.settings, fakes.readKeys);
  const providers = { stt: await platform.stt(), llm: await platform.llm(), tts: await platform.tts() };
  const runLogs: string[] = [];
  return {
    ...fakes,
    runLogs,
    prepare: (input) => async () => ({
      plan: buildCallPlan(input),
      providers,
      organizationId: 1,
      toolFetch: fakes.tools.fetch,
      runLog: (_level, message) => void runLogs.push(message),
    }),
  };
}
