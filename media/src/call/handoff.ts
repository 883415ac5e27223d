/**
 * Handing the call to a person: the transfer the model or a supervisor asks for, noted with a warm
 * transfer's whisper, and carried out by the transport's owner once the handoff phrase has played
 * (call-saving.ts transferCall, shared/services/call-transfer.ts).
 */
import type { TransferDestination, TransferIntent } from '../../../shared/schemas/call-transfer.ts';
import type { Brain } from './brain.ts';
import type { LogFn, PreparedCall } from './call-types.ts';
import type { LiveEvent } from './live-tap.ts';
import { MODEL_ANSWER_LIMIT_MS } from './prompt-brain.ts';

export class Handoff {
  /** A transfer asked for, carried out once its handoff phrase has played. */
  intent: TransferIntent | null = null;

  constructor(
    private readonly call: PreparedCall,
    private readonly options: { brain: Brain; notify(event: LiveEvent): void; log: LogFn; runRef(): string | null },
  ) {}

  /** The call's destination named `name`, if it has one. */
  destination(name: unknown): TransferDestination | undefined {
    return this.call.plan.transfer?.destinations.find((item) => item.name === name);
  }

  /** Notes the transfer to carry out after the handoff phrase, with a warm transfer's whisper. */
  async prepare(destination: TransferDestination, by: string, reason: string): Promise<void> {
    const whisper = destination.mode === 'warm' ? (destination.message ?? (await this.options.brain.summary())) : null;
    const { plan } = this.call;
    this.intent = {
      destination,
      whisper,
      failedMessage: plan.phrases.transferFailed,
      timeoutSeconds: plan.transfer?.timeoutSeconds ?? 30,
      continueOnFailure: plan.transfer?.continueOnFailure ?? false,
    };
    this.call.runLog?.('INFO', `Transfer to ${destination.name} asked for by ${by}${reason ? `: ${reason}` : ''}`);
    this.options.log('info', 'transfer requested', {
      runRef: this.options.runRef(),
      destination: destination.name,
      by,
    });
    this.options.notify({ event: 'transfer', destination: destination.name, mode: destination.mode });
  }

  /** The agent's voice saying `text`, as 8 kHz mu-law (a warm transfer's message for a provider that plays audio). */
  async synthesize(text: string): Promise<Buffer> {
    const { providers, plan } = this.call;
    if (!providers.tts) throw new Error('no text-to-speech provider');
    const chunks: Uint8Array[] = [];
    const signal = AbortSignal.timeout(MODEL_ANSWER_LIMIT_MS);
    for await (const chunk of providers.tts.stream(
      text,
      { voice: plan.settings.voice, language: plan.settings.language },
      signal,
    ))
      chunks.push(chunk);
    return Buffer.concat(chunks);
  }
}
