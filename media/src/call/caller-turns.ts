import type { SpeechToTextEvents, SpeechToTextStream, TranscriptResult } from '../agent/interfaces.ts';
import { isBackchannel } from '../../../shared/domain/backchannels.ts';
import type { TranscriptFragment } from '../../../shared/domain/transcripts.ts';
import type { CallClock, PreparedCall } from './call-types.ts';

/** Audio kept for the speech-to-text stream while it opens. */
const MAX_EARLY_FRAMES = 250;

/** What the caller said in a turn, placed on the media clock where it began and ended. */
export interface CallerTurn {
  text: string;
  startMs: number;
  endMs: number;
  /** When its last final result came (media clock): for the turn's latency. */
  finalMs: number;
  /** Backchannels only ("mhm", "yeah") begun while the agent talked: not a turn, the agent goes on. */
  backchannel: boolean;
}

/** What the caller's words are weighed against: the agent's backchannels, and whether it is talking. */
export interface OverlapRules {
  backchannels(): readonly string[];
  agentTalking(): boolean;
}

const NO_OVERLAP_RULES: OverlapRules = { backchannels: () => [], agentTalking: () => false };

export interface CallerTurnEvents {
  /** The caller is saying words; `enough` of them to stop the agent talking (barge-in). */
  words(enough: boolean): void;
  /** The caller's turn ended: what they said, or null when nothing was (a false start, if it cut the agent). */
  ended(turn: CallerTurn | null): void;
  /** The turn has probably ended (Flux's eager end of turn): what was said so far; `ended` or `resumed` follows. */
  eager?(turn: CallerTurn): void;
  /** The caller went on after an eager end of turn. */
  resumed?(): void;
  /** The provider's turn detection heard the caller's voice begin or stop (before any word: the realtime engine). */
  voice?(active: boolean): void;
}

/**
 * The caller's turns: their audio to the live speech-to-text stream, and its results added up into
 * turns. Final results (`is_final`) make the turn, which `speech_final` (even an empty one) or
 * `UtteranceEnd` ends; interim words count towards a barge-in. A chat's message is a whole turn.
 */
export class CallerTurns {
  /**
   * Where the audio given to speech-to-text sits on the media clock: one entry per chunk, its start
   * in the stream's audio time and in media time. The provider counts audio time; a provider's
   * timestamps are media time, and the two part when frames go missing or timers drift.
   */
  private readonly sttTimeline: { audioMs: number; atMs: number }[] = [];
  private sttAudioMs = 0;
  private earlyFrames: { bytes: Buffer; atMs: number }[] = [];
  private stt: SpeechToTextStream | null = null;
  private pendingUserText = '';
  private pendingUserStartMs = 0;
  private pendingUserEndMs = 0;
  private pendingFinalMs = 0;
  private callerSpeaking = false;
  /** The turn's first words came while the agent talked. */
  private overAgent: boolean | null = null;
  /** The words of an eager end of turn not yet confirmed or resumed: an update repeating them is nothing new. */
  private eagerText: string | null = null;
  /** The provider's turn detection hears the caller's voice (speech_started, not yet speech_stopped). */
  private voiceHeard = false;

  constructor(
    private readonly clock: CallClock,
    /** Words that stop the agent mid-sentence (the agent's `barge_in_min_words`). */
    private readonly bargeInMinWords: () => number,
    private readonly events: CallerTurnEvents,
    private readonly overlap: OverlapRules = NO_OVERLAP_RULES,
  ) {}

  /** The caller is saying words the turn has not ended on yet. */
  get speaking(): boolean {
    return this.callerSpeaking;
  }

  /**
   * The caller is speaking (words, or a voice the provider's turn detection hears before any word
   * comes: the realtime engine), or said words their turn has not ended on yet.
   */
  get busy(): boolean {
    return this.callerSpeaking || this.voiceHeard || this.pendingUserText !== '';
  }

  /** Opens the call's speech-to-text stream; the audio that came while it opened goes first. */
  async listen(call: PreparedCall, events: Pick<SpeechToTextEvents, 'reconnecting' | 'failed'>): Promise<void> {
    const { stt } = call.providers;
    if (!stt) throw new Error('no speech-to-text provider for a voice session');
    const { language, turnTaking } = call.plan.settings;
    this.stt = await stt.open(
      { language, endOfTurn: turnTaking.endOfTurn, eager: turnTaking.eager },
      {
        // Voice activity alone (noise, a cough, the agent's own echo) never interrupts: words do.
        speechStarted: () => {},
        transcript: (result) => this.onTranscript(result),
        utteranceEnd: () => this.end(),
        eagerEndOfTurn: (result) => this.onEagerEnd(result),
        turnResumed: () => {
          this.eagerText = null;
          this.events.resumed?.();
        },
        voice: (active) => {
          this.voiceHeard = active;
          this.events.voice?.(active);
        },
        ...events,
      },
    );
    for (const frame of this.earlyFrames) this.toSpeechToText(frame.bytes, frame.atMs);
    this.earlyFrames = [];
  }

  /** The caller's audio, at `atMs` on the media clock. */
  audio(bytes: Buffer, atMs: number): void {
    if (this.stt) this.toSpeechToText(bytes, atMs);
    else if (this.earlyFrames.length < MAX_EARLY_FRAMES) this.earlyFrames.push({ bytes, atMs });
  }

  /**
   * Closes the speech-to-text stream, if open (the call ends or failed), once its last results are
   * in: a turn they end is still told. Words no pause ended (cut off by the stream's end) are not a turn.
   */
  async close(): Promise<void> {
    await this.stt?.close().catch(() => {});
  }

  /** A chat message: the user's whole turn. */
  typed(text: string): void {
    const now = this.clock.nowMs();
    this.pendingUserText = text;
    this.pendingUserStartMs = now;
    this.pendingUserEndMs = now;
    this.pendingFinalMs = now;
    this.overAgent = false; // a chat's message is always a turn
    this.end();
  }

  /** Ends the turn with what was heard (the provider's end of utterance, or a stalled turn). */
  end(): void {
    this.callerSpeaking = false;
    const text = this.pendingUserText;
    const overAgent = this.overAgent === true;
    this.pendingUserText = '';
    this.overAgent = null;
    this.eagerText = null;
    this.events.ended(
      text
        ? {
            text,
            startMs: this.pendingUserStartMs,
            endMs: this.pendingUserEndMs,
            finalMs: this.pendingFinalMs,
            backchannel: overAgent && isBackchannel(text, this.overlap.backchannels()),
          }
        : null,
    );
  }

  /** Flux's eager end of turn: its words are the whole turn so far (Flux sends no final before EndOfTurn). */
  private onEagerEnd(result: TranscriptResult): void {
    const text = `${this.pendingUserText} ${result.text}`.trim();
    if (!text) return;
    this.eagerText = result.text.trim();
    this.events.eager?.({
      text,
      startMs: this.pendingUserText ? this.pendingUserStartMs : this.mediaTimeOf(result.start * 1000),
      endMs: this.mediaTimeOf(result.end * 1000),
      finalMs: this.clock.nowMs(),
      backchannel: this.overAgent === true && isBackchannel(text, this.overlap.backchannels()),
    });
  }

  private onTranscript(result: TranscriptResult): void {
    const text = result.text.trim();
    // Flux repeating the words of its eager end of turn: nothing new, nothing to barge in with.
    const repeated = text === this.eagerText;
    if (repeated && !result.isFinal) return;
    if (text && !repeated) {
      // Deepgram's results cover the audio since the last final one: count those words too.
      const heard = `${this.pendingUserText} ${text}`;
      this.overAgent ??= this.overlap.agentTalking();
      this.callerSpeaking = true;
      // Backchannels alone ("mhm", "yeah") over the agent never stop it; one more word does.
      const enough =
        (result.isFinal || wordCount(heard) >= this.bargeInMinWords()) &&
        !(this.overAgent && isBackchannel(heard, this.overlap.backchannels()));
      this.events.words(enough);
    }
    if (text && result.isFinal) {
      if (!this.pendingUserText) this.pendingUserStartMs = this.mediaTimeOf(result.start * 1000);
      this.pendingUserEndMs = this.mediaTimeOf(result.end * 1000);
      this.pendingUserText = `${this.pendingUserText} ${text}`.trim();
      this.pendingFinalMs = this.clock.nowMs();
    }
    // An empty speech_final still ends the turn the earlier finals began.
    if (result.speechFinal) this.end();
  }

  private toSpeechToText(bytes: Buffer, atMs: number): void {
    // A chunk that continues the last one on both clocks adds nothing to the map (one entry per
    // gap, not one per 20 ms frame: the timeline stays small however long the call).
    const last = this.sttTimeline.at(-1);
    if (!last || last.atMs + (this.sttAudioMs - last.audioMs) !== atMs)
      this.sttTimeline.push({ audioMs: this.sttAudioMs, atMs });
    this.sttAudioMs += bytes.length / 8; // 8 kHz, one byte per sample
    this.stt?.send(bytes);
  }

  /** The media time of an offset in the speech-to-text stream's audio. */
  private mediaTimeOf(audioMs: number): number {
    let low = 0;
    let high = this.sttTimeline.length - 1;
    if (high < 0) return 0;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      if (this.sttTimeline[middle]!.audioMs <= audioMs) low = middle;
      else high = middle - 1;
    }
    const chunk = this.sttTimeline[low]!;
    return chunk.atMs + (audioMs - chunk.audioMs);
  }
}

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/** The caller's turn as a transcript fragment, its times placed by `isoAt` (the call's media clock). */
export const turnFragment = (turn: CallerTurn, isoAt: (ms: number) => string): TranscriptFragment => ({
  timestamp: isoAt(turn.startMs),
  end: isoAt(turn.endMs),
  role: 'user',
  text: turn.text,
});
