/** The agent's reply's shapes: an answer's speech and what of it played, where it goes, and the speaker's settings. */
import type { CallRecorder } from '../audio/recorder.ts';
import type { TranscriptFragment } from '../../../shared/domain/transcripts.ts';
import type { HeardMessage } from './brain.ts';
import type { CallClock, LogFn } from './call-types.ts';
import type { LatencyTrace } from './turn-latency.ts';

export interface SpokenSegment {
  /** Its place in Reply.texts. */
  index: number;
  text: string;
  startMs: number;
  endMs: number;
}

/** One agent answer: its speech, what of it played, and how to stop it. */
export interface Reply {
  controller: AbortController;
  /** Every text queued for speech, in order (some may not have played, or not been spoken yet). */
  texts: string[];
  segments: SpokenSegment[];
  speech: Promise<void>;
  /** Cut off by the caller at this offset. */
  bargedInAtMs: number | null;
  hangUp: boolean;
  /** Texts not interruptible (answer.say's option) whose audio is not all sent yet. */
  holding: number;
  /** The words the answer ends with (after any tool calls), for the model's history. */
  finalText: string;
  /** Its transcript line and history message, once complete (a barge-in may still cut them). */
  fragment: TranscriptFragment | null;
  historyMessage: HeardMessage | null;
  done: Promise<void>;
}

/** Where the reply's output goes: the transport (and, for audio, the live tap). */
export interface ReplyOutput {
  /** A frame of the agent's audio (base64 mu-law), playing from `atMs`. */
  media(payload: string, atMs: number): void;
  mark(name: string): void;
  /** Empties the audio queued at the provider. */
  clear(): void;
  /** A chat's sentence. */
  text(text: string): void;
}

export interface ReplyEvents {
  /** The transcript line of what an answer said (only what played). */
  transcript(fragment: TranscriptFragment): void;
  /** A line that turned out not to have played at all (cut by a barge-in before its first word). */
  untranscribe(fragment: TranscriptFragment): void;
  /** What the caller heard of an answer, for the brain's conversation. */
  heard(text: string): HeardMessage;
  /** An answer that hangs up has played whole. */
  hangUp(): void;
  /** Producing an answer failed (not because it was cut off). */
  failed(error: unknown): void;
}

export interface SpeakerOptions {
  clock: CallClock & { isoAt(offsetMs: number): string };
  /** A chat: sentences go out as text, and take no time. */
  chat: boolean;
  recorder: CallRecorder | null;
  isEnded(): boolean;
  out: ReplyOutput;
  events: ReplyEvents;
  log: LogFn;
  runRef(): string | null;
  /** The turn's latency marks: the first audio byte from text-to-speech, the first frame sent. */
  trace?: LatencyTrace;
}

/** The answer the caller's words cut, until the caller's turn shows whether they said anything. */
export interface CutAnswer {
  reply: Reply;
  atMs: number;
}

/**
 * The agent's audio held while the caller may be cutting in (a speech-to-speech model heard voice,
 * no words yet): the frames not played at `atMs` and those that came since, on the times they
 * would have played at without the pause.
 */
export interface Pause {
  atMs: number;
  held: { bytes: Buffer; atMs: number }[];
}
