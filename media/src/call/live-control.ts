import { callerTextTurn } from '../../../shared/domain/text-messages.ts';
import type { Brain } from './brain.ts';
import type { PreparedCall } from './call-types.ts';
import type { Handoff } from './handoff.ts';
import type { LiveCommand } from './live-tap.ts';
import type { Speaker } from './reply.ts';
import type { CallTexts } from './call-texts.ts';

/** What a command of the control API acts on: the call's parts, and how the call ends. */
export interface ControlTarget {
  call: PreparedCall;
  brain: Brain;
  handoff: Handoff;
  speaker: Speaker;
  texts: CallTexts;
  /** Neither ending nor ended. */
  live(): boolean;
  ended(): boolean;
  /** The call is ending: nothing new starts. */
  closing(): void;
  /** The brain answers the conversation so far. */
  answer(): void;
  goodbye(text: string): void;
  /** Ends the call at once, cutting the agent off. */
  endNow(): void;
}

/**
 * Applies a command of the control API to a live call (checked live by the caller); the reason it
 * cannot be, otherwise. A sentence to say or an answer asked for waits for the agent's answer in
 * progress (answers never overlap); ending cuts it off. A text is sent at once (its refusal, such
 * as a number on the Do-not-call list, is the reason).
 */
export async function applyCommand(command: LiveCommand, target: ControlTarget): Promise<string | null> {
  const { call, speaker } = target;
  const afterAnswer = (then: () => void) =>
    void speaker.idle().then(() => {
      if (target.live()) then();
    });
  switch (command.type) {
    case 'say':
      if (command.end_call) target.closing();
      void speaker.idle().then(() => {
        if (!target.ended()) speaker.say(command.text, command.end_call === true);
      });
      break;
    case 'add_message':
      target.brain.addNote(command.content);
      if (command.respond) afterAnswer(() => target.answer());
      break;
    case 'transfer': {
      const destination = target.handoff.destination(command.destination);
      if (!destination)
        return call.plan.transfer
          ? `no transfer destination named ${command.destination}`
          : 'this call has no transfer destinations (or is not a phone call)';
      target.closing();
      void speaker.idle().then(async () => {
        if (target.ended()) return;
        await target.handoff.prepare(destination, 'the control API', '');
        speaker.say(call.plan.phrases.transferring, true);
      });
      break;
    }
    case 'end':
      if (command.say) target.goodbye(command.say);
      else target.endNow();
      break;
    case 'send_sms': {
      const outcome = await target.texts.send(command, 'api');
      if (!outcome.sent) return outcome.reason;
      break;
    }
    case 'caller_text':
      // As if the caller said it: a turn of theirs in the conversation, which the agent's next answer sees.
      target.texts.received(command.from, command.body);
      target.brain.hearCaller(callerTextTurn(command.body));
      break;
  }
  return null;
}
