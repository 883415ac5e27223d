/**
 * Texts during a call: what the agent's `send_sms` tool and the control API's `send_sms` command
 * ask for, made into a message (a template filled in, or free text where allowed) and sent through
 * the prepared call's sender (shared/services/text-messages.ts: the platform's rules, the run's
 * record, the provider). A text sent is an event in the transcript.
 */
import {
  renderSmsTemplate,
  SMS_REFUSALS,
  type SmsRefusal,
  type SmsSender,
} from '../../../shared/domain/text-messages.ts';
import type { RunSmsView } from '../../../shared/domain/run.ts';
import type { SmsOutcome } from '../../../shared/services/text-messages.ts';
import type { LogFn, PreparedCall } from './call-types.ts';

export type TextOutcome = { sent: true; sms: RunSmsView } | { sent: false; refusal: SmsRefusal; reason: string };

const refused = (refusal: SmsRefusal, reason = SMS_REFUSALS[refusal]): TextOutcome => ({
  sent: false,
  refusal,
  reason,
});

export class CallTexts {
  constructor(
    private readonly call: PreparedCall,
    private readonly effects: {
      /** What the agent gathered so far (`{{gathered_context.<key>}}`). */
      gathered: Record<string, unknown>;
      /** An event in the transcript, at the current time (the agent's, unless `role` says the caller's). */
      transcriptEvent(text: string, role?: 'assistant' | 'user'): void;
      log?: LogFn;
    },
  ) {}

  /** Sends `template` (by name) or `text`; free text from the agent only where the agent allows it. */
  async send(request: { template?: unknown; text?: unknown }, sentBy: SmsSender): Promise<TextOutcome> {
    const plan = this.call.plan.sms;
    if (!plan || !this.call.sendSms) return refused('disabled');
    let body: string;
    if (request.template !== undefined && request.template !== null && request.template !== '') {
      const template = plan.templates.find((each) => each.name === request.template);
      if (!template)
        return refused(
          'template_unknown',
          `${SMS_REFUSALS.template_unknown} Templates: ${plan.templates.map((each) => each.name).join(', ') || '(none)'}`,
        );
      body = renderSmsTemplate(template.body, { initial: this.call.plan.variables, gathered: this.effects.gathered });
    } else {
      if (sentBy === 'agent' && !plan.allowFreeText) return refused('free_text_not_allowed');
      body = typeof request.text === 'string' ? request.text : '';
    }
    body = body.trim().slice(0, 640);
    if (!body) return refused('empty');
    let outcome: SmsOutcome;
    try {
      outcome = await this.call.sendSms({ body, sentBy });
    } catch (error) {
      // A text that could not be sent (the table, the provider's account) does not end the call.
      this.effects.log?.('error', 'a text message could not be sent', { error: String(error) });
      return refused('unavailable');
    }
    if (!outcome.sent) return refused(outcome.refusal, outcome.reason);
    const { provider_message_id: _id, ...sms } = outcome.sms;
    this.effects.transcriptEvent(`[text message to ${sms.to}: ${body}]`);
    return { sent: true, sms };
  }

  /** A text from the caller (recorded on the run already): an event of the caller's in the transcript. */
  received(from: string, body: string): void {
    this.effects.transcriptEvent(`[text message from ${from}: ${body}]`, 'user');
  }
}
