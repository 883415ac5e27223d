/**
 * The brain of a call decides what the agent says next. Today's is the prompt and its tool loop
 * (prompt-brain.ts); a flow brain (a scripted graph) or a speech-to-speech model (a brain that
 * also listens and speaks) implement the same interface. It writes an answer through `Answer`;
 * reply.ts owns the answer's speech, and what of it the caller really heard.
 */
import type { ChatMessage } from '../agent/interfaces.ts';
import type { FlowPathStep } from '../../../shared/domain/flows.ts';
import type { SpeechToSpeechUsage } from '../../../shared/domain/speech-to-speech-cost.ts';

/** Audio already in the call's format (8 kHz mu-law), instead of text-to-speech of the text. */
export type AnswerAudio = () => AsyncIterable<Uint8Array>;

export interface SayOptions {
  interruptible: boolean;
  /**
   * The words of `audio` when they are known only once it has played (a speech-to-speech model's
   * transcript of its own speech): they replace `text` in the transcript and the history.
   */
  words?: () => string;
}

/** One answer of the agent, as its brain writes it. */
export interface Answer {
  /** Aborted when the answer is cut off (a barge-in, the call ending, a failure). */
  readonly signal: AbortSignal;
  /** Something of the answer is queued to be said already. */
  readonly saidAnything: boolean;
  /** The answer ends the call once said. */
  readonly hangingUp: boolean;
  /**
   * Says `text` after what the answer already queued (spoken, or written in a chat). Words not
   * `interruptible` (a flow step's disclosure) are not cut by the caller's (reply.ts).
   */
  say(text: string, audio?: AnswerAudio, options?: SayOptions): void;
  /** The words the answer ends with (after any tool calls), for the conversation's history. */
  finalWords(text: string): void;
  /** Hang up once the answer has played. */
  hangUp(): void;
  /**
   * An answer begun before the caller's turn surely ended (early-answer.ts): resolves true once it
   * has, false if the caller went on. Tools wait for it; the rest of the answer is held till then.
   */
  readonly turnSettled?: Promise<boolean>;
}

/**
 * `answer` as another part hands it on: the same answer, its state read through, but for the
 * methods `overrides` replace (a flow step marking its words, an early answer holding them).
 */
export function wrapAnswer(
  answer: Answer,
  overrides: Partial<Pick<Answer, 'say' | 'finalWords' | 'hangUp' | 'turnSettled'>>,
): Answer {
  return {
    get signal() {
      return answer.signal;
    },
    get saidAnything() {
      return answer.saidAnything;
    },
    get hangingUp() {
      return answer.hangingUp;
    },
    turnSettled: overrides.turnSettled ?? answer.turnSettled,
    say: overrides.say ?? ((text, audio, options) => answer.say(text, audio, options)),
    finalWords: overrides.finalWords ?? ((text) => answer.finalWords(text)),
    hangUp: overrides.hangUp ?? (() => answer.hangUp()),
  };
}

/** An answer's message in the conversation: what the caller heard, amended if a barge-in cuts it later. */
export interface HeardMessage {
  content: string;
}

export interface Brain {
  /** The caller's turn (their words, or the keys they pressed), into the conversation. */
  hearCaller(text: string): void;
  /**
   * Takes back the caller's turn heard last (an early answer thrown away: the caller went on). A
   * brain without it gets no early answers (a flow moves on a turn it hears).
   */
  retractCaller?(text: string): void;
  /** Guidance from outside the conversation (a supervisor's message), into the context. */
  addNote(content: string): void;
  /** A call taken back after a transfer nobody took: the conversation so far, then what happened. */
  restore(history: ChatMessage[], note: string): void;
  /** Answers the conversation so far; `userText` is the caller's turn it answers, if any. */
  answer(answer: Answer, userText: string | null): Promise<void>;
  /** What the caller heard of an answer, into the conversation. */
  heardAgent(text: string): HeardMessage;
  /** A summary of the call for a person taking it over (a warm transfer). */
  summary(): Promise<string>;
  /** What the agent says now may be cut by the caller (false in a flow's step that is not interruptible). */
  interruptible(): boolean;
  /** The call's path through its flow (flow-brain.ts); null without one. */
  flowPath(): FlowPathStep[] | null;
  /** A speech-to-speech model's tokens so far (realtime-brain.ts, or the one a flow steers); null for the cascade. */
  usage(): SpeechToSpeechUsage | null;
}
