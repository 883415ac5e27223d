import { callerTextTurn } from '../../../shared/domain/text-messages.ts';
import type { Brain } from './brain.ts';
import type { PreparedCall } from './call-types.ts';
import type { Handoff } from './handoff.ts';
import type { LiveCommand } from './live-tap.ts';
import type { Speaker } from './reply.ts';
import type { CallTexts } from './call-texts.ts';

/**
 * The words of the control API's commands (a `say`, a transfer's phrase, an `end`'s goodbye), said
 * in the order the commands came: each waits for the words of earlier commands, so a command's
 * words never cut an earlier one's (an `end` with a goodbye sent right after a `say` once had its
 * goodbye cut by the say's words, which waited for the answer in progress and then started over it).
 */
export class CommandWords {
  private last: Promise<void> = Promise.resolve();
  private waiting = 0;

  /** `failed`: a command's words could not be said (the transfer's summary, say, failed). */
  constructor(private readonly failed: (error: unknown) => void) {}

  /** Whether words of a command are still to be said. */
  get pending(): boolean {
    return this.waiting > 0;
  }

  /** Says `words` (resolving once they are said) after the words of earlier commands. */
  inTurn(words: () => Promise<void>): void {
    this.waiting += 1;
    this.last = this.last
      .then(words)
      .catch(this.failed)
      .finally(() => (this.waiting -= 1));
  }
}

/** What a command of the control API acts on: the call's parts, and how the call ends. */
export interface ControlTarget {
  call: PreparedCall;
  brain: Brain;
  handoff: Handoff;
  speaker: Speaker;
  texts: CallTexts;
  words: CommandWords;
  /** Neither ending nor ended. */
  live(): boolean;
  /** Ended, or hung up: nothing more is said. */
  ended(): boolean;
  /** The call is ending: nothing new starts. */
  closing(): void;
  /** The brain answers the conversation so far. */
  answer(): void;
  /** How many answers the brain has begun (the caller's turns', a command's). */
  answersBegun(): number;
  /** The caller is saying words or keying an entry whose turn has not ended. */
  callerTurnUnderWay(): boolean;
  /** The caller did something: the silence prompt starts over. */
  heard(): void;
  /** Cuts the agent off and says the goodbye, then hangs up. */
  goodbye(text: string): void;
  /** Ends the call at once, cutting the agent off. */
  endNow(): void;
}

/**
 * Applies a command of the control API to a live call (checked live by the caller); the reason it
 * cannot be, otherwise. A sentence to say or an answer asked for waits for the agent's answer in
 * progress (answers never overlap); ending cuts it off, unless words of earlier commands are still
 * to be said: then its goodbye follows them. A text is sent at once (its refusal, such as a number
 * on the Do-not-call list, is the reason).
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
      target.words.inTurn(async () => {
        await speaker.idle();
        if (target.ended()) return;
        speaker.say(command.text, command.end_call === true);
        await speaker.idle();
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
      target.words.inTurn(async () => {
        await speaker.idle();
        if (target.ended()) return;
        await target.handoff.prepare(destination, 'the control API', '');
        speaker.say(call.plan.phrases.transferring, true);
        await speaker.idle();
      });
      break;
    }
    case 'end': {
      const goodbye = command.say;
      if (!goodbye) target.endNow();
      else if (!target.words.pending) target.goodbye(goodbye);
      else {
        // A `say` accepted before is said first (after the answer it waits for), then the goodbye.
        target.closing();
        target.words.inTurn(async () => {
          if (!target.ended()) speaker.say(goodbye, true);
        });
      }
      break;
    }
    case 'send_sms': {
      const outcome = await target.texts.send(command, 'api');
      if (!outcome.sent) return outcome.reason;
      break;
    }
    case 'caller_text': {
      // As if the caller said it: a turn of theirs, which the agent answers once it has finished what
      // it is saying, unless an answer begun since saw it (the caller's next words, whose end answers
      // them and the text together). A caller who texts and waits, silent, gets an answer.
      target.texts.received(command.from, command.body);
      target.brain.hearCaller(callerTextTurn(command.body));
      target.heard();
      const begun = target.answersBegun();
      afterAnswer(() => {
        if (target.answersBegun() === begun && !target.callerTurnUnderWay()) target.answer();
      });
      break;
    }
  }
  return null;
}
