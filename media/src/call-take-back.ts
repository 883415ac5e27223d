/**
 * A call given back to the agent after a transfer nobody took (continue_on_failure): what the
 * agent knows when it takes the call back, and what the two parts leave together (one transcript,
 * one recording, the gathered context, the flow's path).
 */
import { readFile } from 'node:fs/promises';
import { setTimeout } from 'node:timers/promises';
import { WAV_HEADER_BYTES, wavHeader } from './audio/wav.ts';
import type { LogFn, PreparedCall, SessionResult } from './call/call-types.ts';
import { pathAfterTakeBack, type FlowPathStep } from '../../shared/domain/flows.ts';
import type { RunRef } from '../../shared/domain/run-ref.ts';
import type { TransferState } from '../../shared/domain/run.ts';
import { callerTextTurn, type RunSmsRecord } from '../../shared/domain/text-messages.ts';
import { formatTranscriptFile, mergeFragments, parseTranscriptFile } from '../../shared/domain/transcripts.ts';
import { readRunFile, readRunFileText } from '../../shared/repositories/run-files.ts';
import { getRun } from '../../shared/repositories/runs-read.ts';

/** How long a call given back waits for the first part's handoff to be written. */
const HANDOFF_WAIT_MS = 10_000;

/**
 * The transfer with the first part's handoff (its transcript, recording and gathered context),
 * which that part's session writes as it ends: a destination that refuses at once (busy) gives
 * the call back while it may still be writing, so the part given back waits for it, re-reading
 * the run (bounded: without it, the agent goes on without the earlier conversation, logged).
 */
export async function withHandoff(ref: RunRef, transfer: TransferState, log: LogFn): Promise<TransferState> {
  const deadline = Date.now() + HANDOFF_WAIT_MS;
  let current = transfer;
  while (!current.handoff && Date.now() < deadline) {
    await setTimeout(100);
    current = (await getRun(ref.organizationId, ref.agentId, ref.runId))?.transfer ?? current;
  }
  if (!current.handoff) log('warn', 'a call given back has no handoff of its first part', { runId: ref.runId });
  return current;
}

/**
 * The caller's texts the agent did not get: those received while the call was with the transfer,
 * from its request to the agent's new stream (before it the agent took them, after it the new
 * stream does), in the order they came.
 */
export const textsWhileTransferred = (transfer: TransferState, messages: readonly RunSmsRecord[]): string[] =>
  messages
    .filter(
      (message) =>
        message.direction === 'inbound' &&
        message.timestamp >= transfer.requested_at &&
        (!transfer.resumed_at || message.timestamp < transfer.resumed_at),
    )
    .map((message) => message.body);

/**
 * What the agent knows when it takes a call back: the conversation before the transfer, the texts
 * the caller sent meanwhile (turns of theirs, as during the call), and the transfer's outcome.
 */
export async function takeBack(
  transfer: TransferState,
  texts: readonly string[] = [],
): Promise<NonNullable<PreparedCall['resume']>> {
  const earlier = transfer.handoff ? await readRunFileText(transfer.handoff.transcript_key) : undefined;
  return {
    history: [
      ...mergeFragments(parseTranscriptFile(earlier ?? '')).map(({ role, text }) => ({ role, content: text })),
      ...texts.map((body) => ({ role: 'user' as const, content: callerTextTurn(body) })),
    ],
    note: `You tried to transfer the caller to ${transfer.destination}, and nobody took the call (${transfer.outcome}). Tell the caller, then go on helping them.`,
  };
}

/**
 * What a call given back to the agent leaves: the transcript, recording and gathered context of
 * both parts, around the transfer nobody took, and the first part's speech-to-speech price.
 */
export async function afterTakeBack(
  transfer: TransferState,
  result: SessionResult,
): Promise<{
  transcript: string;
  recording: Buffer | null;
  gathered: Record<string, unknown>;
  flow: FlowPathStep[] | null;
  /** The first part's speech-to-speech model, priced (the realtime engine; 0 for the cascade). */
  speechToSpeechUsd: number;
}> {
  const handoff = transfer.handoff;
  const [earlierTranscript, earlierRecording, laterRecording] = await Promise.all([
    handoff ? readRunFileText(handoff.transcript_key) : undefined,
    handoff?.recording_key ? readRunFile(handoff.recording_key) : undefined,
    result.recording ? readFile(result.recording.path) : undefined,
  ]);
  const data = (wav: Buffer | undefined) => (wav ? wav.subarray(WAV_HEADER_BYTES) : Buffer.alloc(0));
  const pcm = Buffer.concat([data(earlierRecording), data(laterRecording)]);
  const gathered: Record<string, unknown> = {
    ...handoff?.gathered_context,
    ...result.gathered,
    transfer: {
      destination: transfer.destination,
      address: transfer.address,
      mode: transfer.mode,
      outcome: transfer.outcome,
      leg_seconds: 0,
      taken_back: true,
    },
  };
  gathered.call_disposition ??= 'transfer_failed';
  return {
    transcript: (earlierTranscript ?? '') + formatTranscriptFile(result.fragments),
    recording: pcm.length ? Buffer.concat([wavHeader(pcm.length, 8000), pcm]) : null,
    gathered,
    flow: pathAfterTakeBack(handoff?.flow ?? null, result.flow, transfer),
    speechToSpeechUsd: handoff?.speech_to_speech_usd ?? 0,
  };
}
