/**
 * The end of a call's media stream: a transfer carried out at the provider once its handoff phrase
 * has played, and what the call produced saved (its recording and transcript to S3, its latency)
 * before its run is completed, after its `call.started` event (call-answer.ts).
 */
import type { CallPipeline } from './call/call-pipeline.ts';
import type { LogFn, SessionResult } from './call/call-types.ts';
import { decodeMulaw } from './audio/mulaw.ts';
import { encodeWav } from './audio/wav.ts';
import { afterTakeBack, withHandoff } from './call-take-back.ts';
import { callStartedEvents } from './call-answer.ts';
import { formatTranscriptFile } from '../../shared/domain/transcripts.ts';
import { parseRunRef, type RunRef } from '../../shared/domain/run-ref.ts';
import type { RunRecord } from '../../shared/domain/run.ts';
import { CHAT_MODE } from '../../shared/domain/browser-sessions.ts';
import { speechToSpeechUsd } from '../../shared/domain/speech-to-speech-cost.ts';
import {
  presignedRunFileUrl,
  putRunFile,
  putRunFileFromDisk,
  runFileKeys,
} from '../../shared/repositories/run-files.ts';
import { getRun } from '../../shared/repositories/runs-read.ts';
import { completeCall } from '../../shared/services/call-completion.ts';
import { recordCallLatency } from '../../shared/services/call-latency.ts';
import { hangUpAtProvider } from '../../shared/services/provider-hangup.ts';
import { handOff, transferAtProvider } from '../../shared/services/call-transfer.ts';

/** How long the provider may take to fetch a warm transfer's message audio. */
const WHISPER_LINK_SECONDS = 15 * 60;

/**
 * Carries out the transfer the session asked for, once its handoff phrase has played (the
 * transport calls this before closing the stream). A warm message for a provider that plays audio
 * is spoken by the agent's own voice, saved with the run's files and given as a signed link.
 */
export async function transferCall(session: CallPipeline, run: RunRecord, log: LogFn): Promise<void> {
  const intent = session.transferIntent;
  const callId = run.provider_call_id ?? session.callSid;
  if (!intent || !callId) return;
  const key = runFileKeys({ organizationId: run.organization_id, agentId: run.workflow_id, runId: run.id }).whisper;
  const whisperAudio = async (text: string) => {
    await putRunFile(key, encodeWav(decodeMulaw(await session.synthesize(text)), 8000), 'audio/wav');
    return presignedRunFileUrl(key, 'audio/wav', WHISPER_LINK_SECONDS);
  };
  const started = await transferAtProvider(run, callId, intent, whisperAudio);
  if (!started) log('warn', 'transfer not started: the run has ended or is transferred already', { runId: run.id });
}

/**
 * The call's latency on the run and in its agent's histograms, before the run ends (so a run seen
 * ended has it, unless a provider's report ended it first). Measurements never hold up the ending:
 * a failure is logged.
 */
async function saveLatency(ref: RunRef, result: SessionResult, log: LogFn): Promise<void> {
  try {
    await recordCallLatency(ref, result.endedAt, result.latency);
  } catch (error) {
    log('error', 'latency not recorded', { runRef: result.runRef, error: String(error) });
  }
}

/**
 * Saves what the call produced and ends its run (exactly once, whatever else reports it); `run` is
 * what the stream's admission wrote.
 */
export async function saveCall(result: SessionResult, run: RunRecord, log: LogFn): Promise<void> {
  try {
    const ref: RunRef | undefined = result.runRef ? parseRunRef(result.runRef) : undefined;
    if (!ref) return;
    // The run's ending (and its call.completed) comes after its call.started, which the greeting did not wait for.
    await callStartedEvents.sent(run);
    const keys = runFileKeys(ref);
    const callId = run.provider_call_id ?? result.callSid;
    // A chat has a transcript and no recording.
    const recording = run.mode !== CHAT_MODE ? result.recording : null;
    // Given back to the agent after a transfer: both parts make the run's files and context.
    const whole = run.transfer?.resumed_at
      ? await afterTakeBack(await withHandoff(ref, run.transfer, log), result)
      : undefined;
    const saveFiles = () =>
      Promise.all([
        whole?.recording
          ? putRunFile(keys.recording, whole.recording, 'audio/wav')
          : recording && !whole
            ? putRunFileFromDisk(keys.recording, recording.path, recording.bytes, 'audio/wav')
            : undefined,
        putRunFile(
          keys.transcript,
          whole?.transcript ?? formatTranscriptFile(result.fragments),
          'text/plain; charset=utf-8',
        ),
      ]);
    const recordingKey = (whole ? whole.recording : recording) ? keys.recording : null;
    // The realtime engine's model, priced: a call given back adds the first part's (kept on its handoff).
    const modelUsd =
      (result.speechToSpeech ? speechToSpeechUsd(result.speechToSpeech) : 0) + (whole?.speechToSpeechUsd ?? 0);
    // Handed to a person: the call goes on at the provider; the run ends with the transfer's outcome.
    const transferring = result.transfer
      ? (await getRun(ref.organizationId, ref.agentId, ref.runId))?.transfer
      : undefined;
    if (transferring) {
      await Promise.all([saveFiles(), saveLatency(ref, result, log)]);
      await handOff(ref, {
        recording_key: recordingKey,
        transcript_key: keys.transcript,
        gathered_context: result.gathered,
        agent_ended_at: result.endedAt,
        ...(result.flow ? { flow: result.flow } : {}),
        ...(modelUsd ? { speech_to_speech_usd: modelUsd } : {}),
      });
      return;
    }
    // Files S3 did not take (after the retries) are left out: the run still ends, never stays in progress.
    const filesSaved = saveFiles().then(
      () => true,
      (error: unknown) => {
        log('error', "the call's recording and transcript could not be saved", { error: String(error) });
        return false;
      },
    );
    const [, saved] = await Promise.all([
      result.agentEnded && callId
        ? hangUpAtProvider(ref, callId, 'the agent ended the call, and the end of its media stream does not end it', {
            onlyWhereTheStreamKeepsTheCall: true,
          })
        : undefined,
      filesSaved,
      saveLatency(ref, result, log),
    ]);
    await completeCall(
      {
        ref,
        outcome: result.failure ? 'failed' : 'completed',
        endedAt: result.endedAt,
        gatheredContext: whole?.gathered ?? result.gathered,
        flow: whole ? whole.flow : result.flow,
        ...(recordingKey && saved ? { recordingKey } : {}),
        ...(saved ? { transcriptKey: keys.transcript } : {}),
        ...(result.failure ? { reason: `Call failed: ${result.failure}` } : {}),
        ...(modelUsd ? { speechToSpeechUsd: modelUsd } : {}),
      },
      run,
    );
  } finally {
    // The local copy goes, uploaded or not: a task's disk holds only the calls in progress.
    await result.recording?.dispose();
  }
}
