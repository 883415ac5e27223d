/**
 * Transfers of a live call to a person (the agent's `transfer_call`, the control API's `transfer`).
 * The media task starts one once the agent's handoff phrase has played: the run notes the
 * transfer and the provider dials the destination (transferAtProvider). The run then stays in
 * progress until two things are known, in either order: what the agent's part left (its recording,
 * transcript and gathered context, saved by the media task: handOff) and the transfer's outcome
 * (from the provider's callbacks: Twilio's whisper and dial action, Telnyx's events of the new leg).
 * With both, it ends `completed` at the transferred call's end: disposition `transferred` (or
 * `transfer_failed`), `gathered_context.transfer`, both legs in the cost.
 */
import type { TransferIntent } from '../schemas/call-transfer.ts';
import { formatRunRef, parseRunRef, RUN_QUERY_PARAMETER, type RunRef } from '../domain/run-ref.ts';
import { logger } from '../observability/logger.ts';
import type { RunRecord, TransferOutcome, TransferState } from '../domain/run.ts';
import { getRun } from '../repositories/runs-read.ts';
import { beginTransfer, noteTransfer } from '../repositories/runs-transfer.ts';
import type {
  InboundResponse,
  ProviderCallStatus,
  TelephonyAdapter,
  StreamTarget,
  TransferCallbacks,
  TransferLegEvent,
  TransferStep,
} from '../telephony/adapter.ts';
import { completeCall } from './call-completion.ts';
import { requiredSetting } from '../config/settings.ts';
import { purposeRef } from '../domain/live-call-access.ts';
import { mintStreamToken } from '../telephony/stream-token.ts';

const refOf = (run: RunRecord): RunRef => ({
  organizationId: run.organization_id,
  agentId: run.workflow_id,
  runId: run.id,
});

/** A provider callback endpoint of this API, for the run (PUBLIC_BASE_URL ends with /api/v1). */
function callbackUrl(provider: 'twilio' | 'telnyx', path: 'status' | 'transfer', runRef: string): string {
  return `${requiredSetting('PUBLIC_BASE_URL').replace(/\/$/, '')}/telephony/${provider}/${path}?${RUN_QUERY_PARAMETER}=${encodeURIComponent(runRef)}`;
}

/** Where the provider reports a transfer's steps: Twilio's own endpoint; Telnyx's events go to the status webhook. */
export const transferCallbackUrl = (provider: 'twilio' | 'telnyx', runRef: string): string =>
  callbackUrl(provider, provider === 'twilio' ? 'transfer' : 'status', runRef);

/** A stream credential good while a provider reconnects a call. */
const RESUME_TOKEN_SECONDS = 15 * 60;

/** Where the caller's media goes when the agent takes the call back: the media service, with a `resume` credential. */
async function takeBackTarget(provider: 'twilio' | 'telnyx', runRef: string): Promise<StreamTarget> {
  return {
    streamUrl: requiredSetting('MEDIA_STREAM_URL'),
    runRef,
    streamToken: await mintStreamToken(purposeRef('resume', runRef), RESUME_TOKEN_SECONDS),
    statusCallbackUrl: callbackUrl(provider, 'status', runRef),
  };
}

/** A transfer whose outcome ends the run: taken, or not taken by an agent that does not take the call back. */
const ends = (transfer: TransferState | null | undefined): boolean =>
  Boolean(transfer?.outcome) && (transfer!.outcome === 'completed' || !transfer!.continue_on_failure);

/**
 * Starts the transfer at the provider (the media task, its handoff phrase played). `whisperAudio`
 * makes the warm message's audio for a provider that plays a URL (Telnyx). False when the run
 * cannot be transferred (ended, or transferred already); a provider refusing the transfer is
 * the transfer's outcome (`failed`: the caller is told, the call hung up).
 */
export async function transferAtProvider(
  run: RunRecord,
  callId: string,
  intent: TransferIntent,
  whisperAudio: (text: string) => Promise<string>,
): Promise<boolean> {
  const ref = refOf(run);
  const runRef = formatRunRef(ref);
  const { destination } = intent;
  const now = new Date().toISOString();
  const started = await beginTransfer(
    ref,
    {
      destination: destination.name,
      address: destination.address,
      mode: destination.mode,
      requested_at: now,
      whisper: intent.whisper,
      failed_message: intent.failedMessage,
      continue_on_failure: intent.continueOnFailure,
    },
    {
      timestamp: now,
      level: 'INFO',
      message: `Transferring to ${destination.name} (${destination.address}, ${destination.mode})`,
    },
  );
  if (!started) return false;
  const { accountOf } = await import('../telephony/accounts.ts');
  const account = await accountOf(ref.organizationId);
  try {
    const from = run.from_number || account.callerId;
    if (!from) throw new Error('no caller id for the transfer leg');
    await account.adapter.calls.transfer(callId, {
      runRef,
      to: destination.address,
      from,
      ...(destination.extension ? { extension: destination.extension } : {}),
      timeoutSeconds: intent.timeoutSeconds,
      whisper: intent.whisper
        ? {
            text: intent.whisper,
            audioUrl: account.adapter.calls.whisperAs === 'audio' ? await whisperAudio(intent.whisper) : null,
          }
        : null,
      callbackUrl: transferCallbackUrl(account.adapter.provider, runRef),
    });
  } catch (error) {
    logger.error('The provider refused the transfer', { runRef, error: String(error) });
    await finishTransfer(
      ref,
      'failed',
      0,
      new Date().toISOString(),
      `the provider refused it: ${(error as Error).message}`,
    );
    await account.adapter.calls.sayAndHangUp(callId, intent.failedMessage).catch(() => {});
  }
  return true;
}

/** What the agent's part left (the media task, once its files are saved): with a known outcome, the run ends. */
export async function handOff(ref: RunRef, handoff: NonNullable<TransferState['handoff']>): Promise<void> {
  const run = await noteTransfer(ref, { handoff });
  if (run && ends(run.transfer)) await endTransferredRun(run);
}

const OUTCOMES: Partial<Record<ProviderCallStatus, TransferOutcome>> = {
  completed: 'completed',
  busy: 'busy',
  'no-answer': 'no_answer',
};

/** A Twilio transfer step: the whisper for the person answering, or the dial's outcome. */
export async function transferStep(
  step: TransferStep,
  provider: TelephonyAdapter['provider'],
  steps: TransferCallbacks,
): Promise<InboundResponse> {
  const ref = parseRunRef(step.runRef);
  const run = ref && (await getRun(ref.organizationId, ref.agentId, ref.runId));
  const transfer = run?.status === 'in_progress' ? run.transfer : undefined;
  if (!ref || !transfer) return steps.answerTransferStep(step, null);
  const now = new Date().toISOString();
  if (step.step === 'whisper') {
    // A machine answered a warm transfer: hung up on; the dial's outcome then says voicemail.
    await noteTransfer(ref, step.machine ? { machine: true } : { answered_at: now });
    return steps.answerTransferStep(step, step.machine || !transfer.whisper ? null : { say: transfer.whisper });
  }
  const outcome = transfer.machine ? 'voicemail' : (OUTCOMES[step.status] ?? 'failed');
  await finishTransfer(ref, outcome, outcome === 'completed' ? step.legSeconds : 0, now);
  if (outcome === 'completed') return steps.answerTransferStep(step, null);
  return steps.answerTransferStep(
    step,
    transfer.continue_on_failure
      ? { reconnect: await takeBackTarget(provider, step.runRef) }
      : { say: transfer.failed_message },
  );
}

/** A Telnyx transfer leg's event: answered, a machine (hung up on), or over. */
export async function transferLeg(event: TransferLegEvent, adapter: TelephonyAdapter): Promise<void> {
  const ref = parseRunRef(event.runRef);
  if (!ref) return;
  if (event.transferLeg === 'answered') {
    await noteTransfer(ref, { answered_at: event.timestamp });
    return;
  }
  if (event.transferLeg === 'machine') {
    await noteTransfer(ref, { machine: true });
    await adapter.calls.hangUp(event.callId);
    return;
  }
  const run = await getRun(ref.organizationId, ref.agentId, ref.runId);
  const transfer = run?.status === 'in_progress' ? run.transfer : undefined;
  if (!run || !transfer || transfer.outcome) return;
  const answered = Boolean(transfer.answered_at) && !transfer.machine;
  const outcome = transfer.machine ? 'voicemail' : answered ? 'completed' : (OUTCOMES[event.status!] ?? 'failed');
  const legSeconds = answered
    ? Math.max(0, Math.round((Date.parse(event.timestamp) - Date.parse(transfer.answered_at!)) / 1000))
    : 0;
  await finishTransfer(ref, outcome, legSeconds, event.timestamp);
  // Nobody took it: the caller's call is still up, waiting; the agent takes it back, or they are
  // told and it is hung up.
  if (outcome === 'completed' || !run.provider_call_id) return;
  if (transfer.continue_on_failure)
    await adapter.calls.reconnectStream(run.provider_call_id, await takeBackTarget(adapter.provider, event.runRef));
  else await adapter.calls.sayAndHangUp(run.provider_call_id, transfer.failed_message);
}

/**
 * The caller's call ended while it was being transferred, or before the agent took it back (the
 * provider's final status): the run ends with what is known.
 */
export async function callerLeftTransfer(run: RunRecord, at: string): Promise<void> {
  const transfer = run.transfer;
  if (!transfer || transfer.resumed_at) return;
  const ref = refOf(run);
  // Bridged (Telnyx may report the caller's leg first): the transfer was taken; else abandoned.
  const taken = Boolean(transfer.answered_at) && !transfer.machine;
  const legSeconds = taken ? Math.max(0, Math.round((Date.parse(at) - Date.parse(transfer.answered_at!)) / 1000)) : 0;
  const noted = transfer.outcome
    ? await noteTransfer(ref, { continue_on_failure: false })
    : await noteTransfer(ref, {
        outcome: taken ? 'completed' : 'abandoned',
        leg_seconds: legSeconds,
        ended_at: at,
        continue_on_failure: false,
      });
  if (noted?.transfer?.handoff) await endTransferredRun(noted);
}

/** The transfer's outcome is known; with what the agent's part left, the run ends. */
async function finishTransfer(
  ref: RunRef,
  outcome: TransferOutcome,
  legSeconds: number,
  at: string,
  why?: string,
): Promise<void> {
  const run = await noteTransfer(
    ref,
    { outcome, leg_seconds: legSeconds, ended_at: at },
    {
      timestamp: at,
      level: outcome === 'completed' ? 'INFO' : 'WARN',
      message:
        outcome === 'completed'
          ? `Transfer answered; the transferred call lasted ${legSeconds} s`
          : `Transfer not taken: ${why ?? outcome}`,
    },
  );
  if (run?.transfer?.handoff && ends(run.transfer)) await endTransferredRun(run);
}

async function endTransferredRun(run: RunRecord): Promise<void> {
  const transfer = run.transfer!;
  const handoff = transfer.handoff!;
  const gathered: Record<string, unknown> = {
    ...handoff.gathered_context,
    transfer: {
      destination: transfer.destination,
      address: transfer.address,
      mode: transfer.mode,
      outcome: transfer.outcome,
      leg_seconds: transfer.leg_seconds ?? 0,
    },
  };
  gathered.call_disposition ??= transfer.outcome === 'completed' ? 'transferred' : 'transfer_failed';
  await completeCall(
    {
      ref: refOf(run),
      outcome: 'completed',
      endedAt: transfer.ended_at!,
      gatheredContext: gathered,
      ...(handoff.recording_key ? { recordingKey: handoff.recording_key } : {}),
      transcriptKey: handoff.transcript_key,
      flow: handoff.flow ?? null,
      reason: `Call ended after the transfer to ${transfer.destination}: ${transfer.outcome}`,
      agentEndedAt: handoff.agent_ended_at,
      transferLegSeconds: transfer.leg_seconds ?? 0,
      ...(handoff.speech_to_speech_usd ? { speechToSpeechUsd: handoff.speech_to_speech_usd } : {}),
    },
    run,
  );
}
