/**
 * Bounds of a chat session's user messages, checked where their frames arrive
 * (websocket-server.ts): a rate (a token bucket: a burst, then a steady pace) and sizes (the text
 * of user messages merged into one turn before the agent answers, and the whole session's). Every
 * message starts a model turn and stays in the conversation, so a client sending without bound
 * would cost the model without bound. Pure: the caller gives the time.
 */

export interface ChatLimits {
  /** Messages accepted at once after a quiet spell (the bucket's size). */
  burst: number;
  /** Messages a minute, sustained (the bucket's refill). */
  messagesPerMinute: number;
  /** Characters of consecutive user messages the agent has not answered yet (one turn of the transcript). */
  maxSegmentChars: number;
  /** Characters of all the session's user messages. */
  maxSessionChars: number;
}

/**
 * A person types a message every few seconds and pastes a few at most: 10 at once, then one every
 * 2 s; 3 full messages (4,000 characters each) in one turn; 100,000 characters in a session (a
 * long support chat is a tenth of it).
 */
export const CHAT_LIMITS: ChatLimits = {
  burst: 10,
  messagesPerMinute: 30,
  maxSegmentChars: 12_000,
  maxSessionChars: 100_000,
};

/** Why a message was refused: the client is told (`detail`) and the session closed (`closeCode`: 4000 + HTTP status). */
export interface ChatRefusal {
  detail: string;
  closeCode: number;
  reason: string;
}

export class ChatAllowance {
  private tokens: number;
  private refilledAtMs: number;
  private segmentChars = 0;
  private sessionChars = 0;

  constructor(
    private readonly limits: ChatLimits,
    nowMs: number,
  ) {
    this.tokens = limits.burst;
    this.refilledAtMs = nowMs;
  }

  /** A user message of `chars` characters at `nowMs`: null when accepted (and counted), else why not. */
  message(chars: number, nowMs: number): ChatRefusal | null {
    const { burst, messagesPerMinute, maxSegmentChars, maxSessionChars } = this.limits;
    const elapsed = Math.max(0, nowMs - this.refilledAtMs);
    this.tokens = Math.min(burst, this.tokens + (elapsed * messagesPerMinute) / 60_000);
    this.refilledAtMs = nowMs;
    if (this.tokens < 1)
      return {
        detail: `Too many messages: at most ${burst} at once, then ${messagesPerMinute} a minute`,
        closeCode: 4429,
        reason: 'too many messages',
      };
    if (this.segmentChars + chars > maxSegmentChars)
      return {
        detail: `Too much text before the agent answers: at most ${maxSegmentChars} characters in a row`,
        closeCode: 4413,
        reason: 'too much text in one turn',
      };
    if (this.sessionChars + chars > maxSessionChars)
      return {
        detail: `The conversation is too long: at most ${maxSessionChars} characters of messages in a session`,
        closeCode: 4413,
        reason: 'conversation too long',
      };
    this.tokens -= 1;
    this.segmentChars += chars;
    this.sessionChars += chars;
    return null;
  }

  /** The agent answered (a transcript line of its own): the next user message starts a new turn. */
  agentAnswered(): void {
    this.segmentChars = 0;
  }
}
