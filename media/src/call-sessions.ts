/**
 * Connects the media stream of a call to the platform: loads the agent and the run when the stream
 * starts (marking the call answered), and when it ends saves the WAV recording and the transcript
 * to S3 and reports completion. Speech and model providers are injected (local: scripted).
 */
import type { ConversationState, LanguageModel, SpeechToText, TextToSpeech } from './agent/interfaces.ts';
import { MediaSession, type LogFn, type SessionResult } from './streams/media-session.ts';
import { formatTranscriptFile } from '../../shared/domain/transcripts.ts';
import { parseRunRef, type RunRef } from '../../shared/domain/run-ref.ts';
import { emitCallStarted } from '../../shared/events/webhook-events.ts';
import * as agents from '../../shared/repositories/agents.ts';
import { putRunFile, runFileKeys } from '../../shared/repositories/run-files.ts';
import * as runs from '../../shared/repositories/runs.ts';
import { completeCall } from '../../shared/services/call-completion.ts';

export interface CallProviders {
  stt: SpeechToText;
  llm: LanguageModel;
  tts: TextToSpeech;
}

type CallState = Omit<ConversationState, 'turns'>;

/** The agent and run behind a stream; the call counts as answered from here. */
async function loadCall(runRefText: string | null): Promise<CallState> {
  const ref = runRefText ? parseRunRef(runRefText) : undefined;
  if (!ref) throw new Error(`Media stream without a valid run_ref: ${runRefText}`);
  const [run, agent] = await Promise.all([runs.getRun(ref.organizationId, ref.agentId, ref.runId), agents.getAgent(ref.organizationId, ref.agentId)]);
  if (!run || !agent) throw new Error(`No run or agent for ${runRefText}`);
  await runs.updateActiveRun(ref, { answered_at: new Date().toISOString() }, { timestamp: new Date().toISOString(), level: 'INFO', message: 'Call answered' });
  await emitCallStarted(run);
  return {
    agentName: agent.name,
    workflowDefinition: agent.workflow_definition,
    initialContext: run.initial_context,
    dispositionCodes: agent.call_disposition_codes,
  };
}

/**
 * A session whose language model first waits for the call's state: the stream's `start` event
 * names the run, so the state is loaded lazily on the opening turn.
 */
export function createCallSession(providers: CallProviders, send: (message: object) => void, log: LogFn): MediaSession {
  const state: CallState = { agentName: '', workflowDefinition: {}, initialContext: {}, dispositionCodes: {} };
  let loaded: Promise<void> | undefined;
  const session: MediaSession = new MediaSession({
    ...providers,
    state,
    send,
    log,
    llm: {
      nextTurn: async (current, userText) => {
        loaded ??= loadCall(session.runRef).then((call) => void Object.assign(state, call));
        await loaded;
        return providers.llm.nextTurn({ ...current, ...state }, userText);
      },
    },
  });
  return session;
}

/** Saves what the call produced and ends its run (exactly once, whatever else reports it). */
export async function saveCall(result: SessionResult): Promise<void> {
  const ref: RunRef | undefined = result.runRef ? parseRunRef(result.runRef) : undefined;
  if (!ref) return;
  const keys = runFileKeys(ref);
  await Promise.all([
    putRunFile(keys.recording, result.wav, 'audio/wav'),
    putRunFile(keys.transcript, formatTranscriptFile(result.fragments), 'text/plain; charset=utf-8'),
  ]);
  await completeCall({
    ref,
    outcome: 'completed',
    endedAt: result.endedAt,
    gatheredContext: result.gathered,
    recordingKey: keys.recording,
    transcriptKey: keys.transcript,
  });
}
