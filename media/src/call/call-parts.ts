import { AgentTools } from './agent-tools.ts';
import { CallTexts } from './call-texts.ts';
import type { Brain } from './brain.ts';
import { CallClocks } from './call-clocks.ts';
import type { CallPipelineOptions, LogFn, PreparedCall } from './call-types.ts';
import { Handoff } from './handoff.ts';
import { Keypad } from './keypad.ts';
import type { LiveTap } from './live-tap.ts';
import { PromptBrain, type Steering } from './prompt-brain.ts';
import { FlowBrain } from './flow-brain.ts';
import { RealtimeBrain } from './realtime-brain.ts';
import type { LiveEvent } from './live-tap.ts';
import type { TransferDestination } from '../../../shared/schemas/call-transfer.ts';
import type { Speaker } from './reply.ts';
import type { LatencyTrace } from './turn-latency.ts';

/** The parts of a call's pipeline that work with the prepared call (its plan and providers). */
export interface CallParts {
  call: PreparedCall;
  brain: Brain;
  keypad: Keypad;
  clocks: CallClocks;
  handoff: Handoff;
  texts: CallTexts;
}

/** What the parts share with the rest of the pipeline (call-pipeline.ts). */
export interface CallPartsContext {
  chat: boolean;
  timing: CallPipelineOptions['timing'];
  /** What the model saves (`gathered_context`). */
  gathered: Record<string, unknown>;
  tap: LiveTap;
  speaker: Speaker;
  /** The call is ending: nothing new starts. */
  closing(): void;
  isEnded(): boolean;
  log: LogFn;
  runRef(): string | null;
  trace: LatencyTrace;
  /** Wall time, ISO 8601. */
  now(): string;
  /** The call's time (ms from its start). */
  nowMs(): number;
  /** An event in the transcript (a text sent), at the current time. */
  transcriptEvent(text: string, role?: 'assistant' | 'user'): void;
}

/**
 * Builds the parts for a prepared call: its brain (the flow brain for a flow, else the prompt and
 * its tools), keypad, clocks and handoff.
 */
export function assembleParts(call: PreparedCall, context: CallPartsContext): CallParts {
  const { tap, log, runRef } = context;
  const transfer = (destination: TransferDestination, reason: string) =>
    handoff.prepare(destination, 'the agent', reason);
  const texts = new CallTexts(call, { gathered: context.gathered, transcriptEvent: context.transcriptEvent, log });
  const options = {
    chat: context.chat,
    timing: context.timing,
    sessionEvent: (event: LiveEvent) => tap.sessionEvent(event),
    isEnded: context.isEnded,
    log,
    runRef,
    trace: context.trace,
    tools: new AgentTools(call, { gathered: context.gathered, closing: context.closing, transfer, texts, log, runRef }),
  };
  if (call.flowVariables) Object.assign(context.gathered, call.flowVariables);
  // The realtime engine's brain speaks itself; a flow steers it as it steers the prompt brain.
  const steered = (steering?: Steering) =>
    call.providers.realtime
      ? new RealtimeBrain(call, { ...options, speaker: context.speaker, nowMs: context.nowMs, steering })
      : new PromptBrain(call, { ...options, steering });
  const brain: Brain = call.plan.flow
    ? new FlowBrain(call, {
        ...options,
        gathered: context.gathered,
        variables: call.plan.variables,
        closing: context.closing,
        transfer,
        now: context.now,
        steered,
      })
    : steered();
  const handoff = new Handoff(call, { brain, notify: (event) => tap.notify(event), log, runRef });
  context.speaker.useVoice(call.providers.tts, {
    voice: call.plan.settings.voice,
    language: call.plan.settings.language,
  });
  context.speaker.allowInterruptions(call.plan.settings.turnTaking.interruptible);
  return {
    call,
    brain,
    handoff,
    keypad: new Keypad(call.plan.settings.keypad),
    clocks: new CallClocks(call.plan.settings, context.chat),
    texts,
  };
}
