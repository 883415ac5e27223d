import type { RunTest } from '../../../shared/domain/agent-tests.ts';
/** What a call's pipeline gives and needs at its edges (call-pipeline.ts), shared by its parts. */
import type { CallProviders, ChatMessage } from '../agent/interfaces.ts';
import type { CallPlan } from '../agent/call-plan.ts';
import type { RecordingFile } from '../audio/recorder.ts';
import type { TranscriptFragment } from '../../../shared/domain/transcripts.ts';
import type { TransferIntent } from '../../../shared/schemas/call-transfer.ts';
import type { CallLatency, LatencyTurn } from '../../../shared/domain/call-latency.ts';
import type { FlowPathStep } from '../../../shared/domain/flows.ts';
import type { SpeechToSpeechUsage } from '../../../shared/domain/speech-to-speech-cost.ts';
import type { SmsSender } from '../../../shared/domain/text-messages.ts';
import type { SmsOutcome } from '../../../shared/services/text-messages.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFn = (level: LogLevel, message: string, details?: Record<string, unknown>) => void;

export interface SessionResult {
  runRef: string | null;
  streamSid: string | null;
  callSid: string | null;
  startedAt: string;
  endedAt: string;
  /** Why the session ended: the provider's stop event, or the transport closing first. */
  reason: 'stop' | 'closed';
  /** Set when a provider failed and the call was ended because of it. */
  failure: string | null;
  /**
   * The agent ended the call (end_call, a goodbye, a failure) and the stream closed after its last
   * words; not when the provider stopped the stream (the callee hung up, a voicemail is left).
   */
  agentEnded: boolean;
  fragments: TranscriptFragment[];
  gathered: Record<string, unknown>;
  /** Both directions mixed, as a WAV file on local disk (its owner uploads and disposes of it); none for a chat. */
  recording: RecordingFile | null;
  durationMs: number;
  /** The call was handed to a person (its provider transfer carried out by the transport's owner). */
  transfer: TransferIntent | null;
  /** The run's `latency` (its first turns listed), and every turn's components for the agent's histograms. */
  latency: { call: CallLatency; turns: LatencyTurn[] };
  /** The path through the agent's conversation flow; null for a flat definition. */
  flow: FlowPathStep[] | null;
  /** The speech-to-speech model's tokens (the realtime engine); null for the cascade. */
  speechToSpeech: SpeechToSpeechUsage | null;
}

export interface HangUpInfo {
  /** Outbound audio still queued at the provider when the hang-up was decided. */
  playbackRemainingMs: number;
}

/** What a call needs, loaded when its stream starts (call-sessions.ts). */
export interface PreparedCall {
  plan: CallPlan;
  providers: CallProviders;
  /** The call's organization (its tools' headers are sealed to it). */
  organizationId: number;
  /** Replaces the SSRF-guarded fetch of the agent's HTTP tools (local stack and tests only). */
  toolFetch?: typeof fetch;
  /** A conversation an agent test runs: its HTTP tools answer from the test's mocks. */
  test?: Pick<RunTest, 'tool_mocks' | 'call_real_tools'>;
  /** A flow's variables fetched before the call (pre-call-fetch.ts): gathered from the start. */
  flowVariables?: Record<string, unknown>;
  /**
   * Sends a text from the run (the plan's `sms`: to the caller or its destination, from the call's
   * number), under the platform's rules and the call's cap; absent where the call cannot text.
   */
  sendSms?: (request: { body: string; sentBy: SmsSender }) => Promise<SmsOutcome>;
  /** Saves a note of the agent's (`save_note`), about the caller or not; absent: the call saves none. */
  saveNote?: (note: { content: string; topic: string; aboutCaller: boolean }) => Promise<void>;
  /** Appends to the run's logs (tool calls, knowledge used). */
  runLog?: (level: 'INFO' | 'WARN' | 'ERROR', message: string) => void;
  /**
   * The agent takes a call back after a transfer nobody took: the conversation so far, and what
   * it is told about the transfer, instead of a greeting.
   */
  resume?: { history: ChatMessage[]; note: string };
}

/** The call's time, in ms from its start (media-clock.ts). */
export interface CallClock {
  nowMs(): number;
}

export interface CallPipelineOptions {
  prepare: (runRef: string | null) => Promise<PreparedCall>;
  send: (message: object) => void;
  /** Epoch milliseconds; injectable so tests are deterministic. */
  clock?: () => number;
  log?: LogFn;
  onHangUp?: (info: HangUpInfo) => void;
  /** Wall-time bounds on the model, and the realtime engine's wait for words after the caller's voice (tests shorten them). */
  timing?: { fillerAfterMs?: number; modelAnswerLimitMs?: number; falseInterruptionMs?: number };
  /** Speech in and out (a phone call, browser voice), or text (a chat). Default `audio`. */
  transport?: 'audio' | 'text';
  /** Also send `transcript`, `tool_call` and `knowledge` frames (browser and chat sessions; not to a phone provider). */
  sessionEvents?: boolean;
}
