import { buildCallPlan, type CallInput } from '../../media/src/agent/call-plan.ts';
import { loadElevenLabs, platformProviders } from '../../media/src/agent/providers.ts';
import type { PreparedCall } from '../../media/src/call/call-types.ts';
import type { ToolRecord } from '../../shared/repositories/agent-resources.ts';
import {
  startFakeVoiceProviders,
  type FakeVoiceOptions,
  type FakeVoiceProviders,
} from '../../local/fakes/voice-providers.ts';

// The ElevenLabs SDK loads with this module, as the media service loads it before it takes calls
// (media/src/main.ts): its load (about 1.4 s of CPU, 10-20 s on a loaded machine) must not run
// inside a test's call, where it starves the in-process fakes while the call's speech-to-text
// stream opens under the SDK's 5 s connection timeout (the call then fails), nor count against a
// test's time limit (a module's import has none).
await loadElevenLabs();

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
