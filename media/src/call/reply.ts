/**
 * The agent's reply: each answer's speech queue, its audio going out frame by frame as it streams
 * in, what of it played (the transcript and the model keep only that), a barge-in's cut and the
 * resumption after a false start, and the marks. A chat's answer goes out sentence by sentence as
 * text instead.
 */
import type { CallTextToSpeech, TextToSpeech } from '../agent/interfaces.ts';
import type { Answer, AnswerAudio } from './brain.ts';
import { FRAME_BYTES, FRAME_MS } from './media-stream-frames.ts';
import { NO_TRACE, type LatencyTrace } from './turn-latency.ts';
import type { CutAnswer, Pause, Reply, SpeakerOptions } from './reply-types.ts';
import { spokenText } from './spoken-text.ts';

const MULAW_SILENCE = 0xff;

export class Speaker {
  /** Offset (ms from start) where the provider will finish playing what we already sent. */
  private outboundCursorMs = 0;
  /** Sent but not yet played audio (recorded once played; dropped by a barge-in). */
  private unplayed: { bytes: Buffer; atMs: number }[] = [];
  private reply: Reply | null = null;
  /** The last complete answer, whose audio may still be playing. */
  private lastReply: Reply | null = null;
  private cutByCaller: CutAnswer | null = null;
  private pauseHeld: Pause | null = null;
  /** The times of the audio being sent: a resumed pause moves them by its length. */
  private streaming: { startMs: number | null; endMs: number } | null = null;
  private readonly callerCutListeners = new Set<(unheardMs: number) => void>();
  private markCount = 0;
  /** Where the audio of the last words not interruptible ends: the caller's words do not cut before. */
  private holdUntilMs = 0;
  private voice: { tts: TextToSpeech | undefined; options: { voice?: string; language: string } } | null = null;
  /** The voice's connection of this call's own (TextToSpeech.forCall), closed when the call ends. */
  private callVoice: CallTextToSpeech | null = null;
  /** The agent's `turn_taking.interruptible`: false holds all its words as a flow step's disclosure is held. */
  private interruptible = true;

  private readonly trace: LatencyTrace;

  constructor(private readonly options: SpeakerOptions) {
    this.trace = options.trace ?? NO_TRACE;
  }

  /** Offset from stream start (ms) at which the audio sent so far finishes playing. */
  get playbackEndMs(): number {
    return this.outboundCursorMs;
  }

  /** The agent's audio is held (pause) until the caller's words show whether they cut in. */
  get paused(): boolean {
    return this.pauseHeld !== null;
  }

  /**
   * Told when the caller's words (or keys) cut the agent, with how much of the audio sent was not
   * heard (still queued at the provider, or held by a pause): a speech-to-speech model keeps the rest.
   */
  onCallerCut(listener: (unheardMs: number) => void): () => void {
    this.callerCutListeners.add(listener);
    return () => this.callerCutListeners.delete(listener);
  }

  /** An answer is under way (being written, or its speech queued). */
  get answering(): boolean {
    return this.reply !== null;
  }

  /** The voice answers are spoken with (a voice call; a chat has none). */
  useVoice(tts: TextToSpeech | undefined, options: { voice?: string; language: string }): void {
    this.callVoice?.close();
    this.callVoice = tts?.forCall?.() ?? null;
    this.voice = { tts: this.callVoice ?? tts, options };
  }

  /** Whether the caller's words may cut the agent at all (the agent's setting; a flow step may hold its own words). */
  allowInterruptions(allowed: boolean): void {
    this.interruptible = allowed;
  }

  /** Resolves when the answer in progress, if any, is complete. */
  async idle(): Promise<void> {
    while (this.reply) await this.reply.done;
  }

  /** Starts an answer after the previous one has stopped (answers never overlap); `produce` writes it. */
  start(produce: (answer: Answer) => Promise<void>): void {
    const previous = this.reply;
    // A new answer while the agent is paused: what it held is not heard, as after a cut.
    if (this.pauseHeld) this.interrupt('time');
    // Words not interruptible are said to the end; the new answer follows them.
    if (previous && !this.holds(previous)) previous.controller.abort();
    const reply: Reply = {
      controller: new AbortController(),
      texts: [],
      segments: [],
      speech: Promise.resolve(),
      bargedInAtMs: null,
      hangUp: false,
      holding: 0,
      finalText: '',
      fragment: null,
      historyMessage: null,
      done: Promise.resolve(),
    };
    reply.done = (async () => {
      await previous?.done;
      if (this.options.isEnded()) return;
      try {
        await produce(this.answerOf(reply));
        await reply.speech;
      } catch (error) {
        if (!reply.controller.signal.aborted) this.options.events.failed(error);
      }
      this.close(reply);
    })();
    this.reply = reply;
    void reply.done.finally(() => {
      if (this.reply === reply) this.reply = null;
    });
  }

  /** A fixed text as the whole answer (not cut by the caller's words if not `interruptible`). */
  say(text: string, hangUp = false, interruptible = true): void {
    this.start(async (answer) => {
      answer.finalWords(text);
      answer.say(text, undefined, { interruptible });
      if (hangUp) answer.hangUp();
    });
  }

  /**
   * Stops the agent: the answer being written, and the audio still playing (a `clear`; the
   * transcript line and history of an answer complete but still playing keep only what played).
   * A cut `by` the caller is kept (takeCut) until their turn shows whether they said anything.
   */
  interrupt(by: 'caller' | 'time'): void {
    const reply = this.reply;
    const pause = this.pauseHeld;
    // Cut while paused: the caller heard the audio up to the pause.
    const now = pause?.atMs ?? this.options.clock.nowMs();
    const playing = pause !== null || this.outboundCursorMs > now;
    if (!reply && !playing) return;
    if (by === 'caller' && ((reply && this.holds(reply)) || now < this.holdUntilMs)) {
      this.options.log('info', 'barge-in ignored: the words are not interruptible', {
        runRef: this.options.runRef(),
        atMs: now,
      });
      return;
    }
    if (reply && reply.bargedInAtMs === null) {
      reply.bargedInAtMs = now;
      reply.controller.abort();
      if (by === 'caller') this.cutByCaller = { reply, atMs: now };
    }
    const played = this.lastReply;
    if (playing && played && played !== reply && played.bargedInAtMs === null) {
      if (by === 'caller') this.cutByCaller = { reply: played, atMs: now };
      // Complete but still playing: its transcript line and history keep only what played.
      played.bargedInAtMs = now;
      const said = spokenText(played);
      if (played.fragment) {
        if (said) played.fragment.text = said;
        else this.options.events.untranscribe(played.fragment);
      }
      if (played.historyMessage) played.historyMessage.content = `${said}… (interrupted by the caller)`;
    }
    const unheardMs = pause ? pause.held.length * FRAME_MS : Math.max(0, this.outboundCursorMs - now);
    if (playing) {
      if (!pause) this.options.out.clear(); // a pause cleared it already
      this.unplayed = this.unplayed.filter((frame) => frame.atMs < now);
      this.outboundCursorMs = this.options.clock.nowMs();
      this.pauseHeld = null;
    }
    this.options.log('info', by === 'caller' ? 'barge-in: agent audio cleared' : 'agent interrupted', {
      runRef: this.options.runRef(),
      atMs: now,
    });
    if (by === 'caller') for (const listener of [...this.callerCutListeners]) listener(unheardMs);
  }

  /**
   * The caller may be cutting in (voice heard, no words yet): the agent's audio stops at the
   * provider and is held, and what comes meanwhile is held too, until `unpause` plays it on or the
   * caller's words `interrupt`. Words not interruptible are not paused: they play to the end.
   */
  pause(): void {
    const now = this.options.clock.nowMs();
    if (this.pauseHeld || (!this.reply && this.outboundCursorMs <= now)) return;
    if ((this.reply && this.holds(this.reply)) || now < this.holdUntilMs) return;
    if (this.outboundCursorMs > now) this.options.out.clear();
    this.pauseHeld = { atMs: now, held: this.unplayed.filter((frame) => frame.atMs >= now) };
    this.unplayed = this.unplayed.filter((frame) => frame.atMs < now);
    this.options.log('info', 'caller speaking: agent audio paused', { runRef: this.options.runRef(), atMs: now });
  }

  /**
   * The pause was not a cut (no words, or backchannels only): the held audio plays on from now, and
   * every time after the pause (the segments' ends, the cursor) moves by its length.
   */
  unpause(): void {
    const pause = this.pauseHeld;
    if (!pause) return;
    this.pauseHeld = null;
    const now = this.options.clock.nowMs();
    const shift = Math.max(0, now - pause.atMs);
    const later = (ms: number) => (ms >= pause.atMs ? ms + shift : ms);
    for (const reply of new Set([this.reply, this.lastReply])) {
      for (const segment of reply?.segments ?? []) {
        if (segment.endMs > pause.atMs) segment.endMs += shift;
        segment.startMs = later(segment.startMs);
      }
      // An answer complete but still playing has its transcript line: it ends later too.
      const last = reply?.segments.at(-1);
      if (reply?.fragment && reply.bargedInAtMs === null && last && last.endMs > pause.atMs)
        reply.fragment.end = this.options.clock.isoAt(last.endMs);
    }
    if (this.streaming) {
      if (this.streaming.startMs !== null) this.streaming.startMs = later(this.streaming.startMs);
      this.streaming.endMs = later(this.streaming.endMs);
    }
    if (this.holdUntilMs > pause.atMs) this.holdUntilMs += shift;
    if (this.outboundCursorMs > pause.atMs) this.outboundCursorMs += shift;
    for (const frame of pause.held) {
      const atMs = frame.atMs + shift;
      this.unplayed.push({ bytes: frame.bytes, atMs });
      this.options.out.media(frame.bytes.toString('base64'), atMs);
    }
    this.options.log('info', 'caller said no words that cut in: agent audio resumed', {
      runRef: this.options.runRef(),
      atMs: now,
      heldMs: pause.held.length * FRAME_MS,
    });
  }

  /** The reply still has words not interruptible to say, or they are playing. */
  private holds(reply: Reply): boolean {
    return reply.holding > 0 || this.options.clock.nowMs() < this.holdUntilMs;
  }

  /** The answer the caller's words cut, if any, forgotten here. */
  takeCut(): CutAnswer | null {
    const cut = this.cutByCaller;
    this.cutByCaller = null;
    return cut;
  }

  /**
   * A false start: the caller's words stopped the agent, but the turn ended with nothing said (the
   * speech-to-text service took them back). The agent says again what the caller did not hear,
   * from the start of the sentence it was cut in.
   */
  resume({ reply, atMs }: CutAnswer): void {
    const cutSegment = reply.segments.find((segment) => segment.endMs > atMs);
    const from = cutSegment?.index ?? (reply.segments.at(-1)?.index ?? -1) + 1;
    const rest = reply.texts.slice(from).join(' ');
    this.options.log('info', 'false start: resuming the cut answer', {
      runRef: this.options.runRef(),
      resumed: rest.length > 0,
    });
    if (rest) this.say(rest, reply.hangUp);
  }

  /** Aborts the answer under way (a failure). */
  abort(): void {
    this.reply?.controller.abort();
  }

  /** The call ends: an answer still playing was cut there, unless the agent hung up after it. */
  stop(agentHungUp: boolean): void {
    this.pauseHeld = null;
    if (this.reply && this.reply.bargedInAtMs === null && !agentHungUp)
      this.reply.bargedInAtMs = this.options.clock.nowMs();
    this.reply?.controller.abort();
    this.callVoice?.close();
  }

  /** Records the audio sent that has played by `untilMs`. */
  recordPlayed(untilMs: number): void {
    // Frames are queued in playing order (each after the last), so the played ones lead: this runs
    // for every frame the caller sends, and an answer can queue seconds of frames ahead.
    let played = 0;
    for (; played < this.unplayed.length && this.unplayed[played]!.atMs < untilMs; played++) {
      const frame = this.unplayed[played]!;
      this.options.recorder?.addOutbound(frame.bytes, frame.atMs);
    }
    if (played > 0) this.unplayed.splice(0, played);
  }

  private answerOf(reply: Reply): Answer {
    return {
      signal: reply.controller.signal,
      get saidAnything() {
        return reply.texts.length > 0;
      },
      get hangingUp() {
        return reply.hangUp;
      },
      say: (text, audio, options) =>
        this.queueSpeech(reply, text, audio, options?.interruptible === false || !this.interruptible, options?.words),
      finalWords: (text) => {
        reply.finalText = text;
      },
      hangUp: () => {
        reply.hangUp = true;
      },
    };
  }

  /** Speaks `text` after what the answer already queued; its audio goes out as it streams in. */
  private queueSpeech(reply: Reply, text: string, audio?: AnswerAudio, holding = false, words?: () => string): void {
    const spoken = text.trim();
    if (!spoken) return;
    if (holding) reply.holding++;
    if (this.options.chat) this.queueText(reply, spoken);
    else this.queueAudio(reply, spoken, audio, words);
    if (holding)
      reply.speech = reply.speech.finally(() => {
        reply.holding--;
        // Its audio plays until the cursor: the caller's words do not cut it before.
        this.holdUntilMs = Math.max(this.holdUntilMs, this.outboundCursorMs);
      });
  }

  /** Speech of `spoken`: its audio goes out as it streams in. */
  private queueAudio(reply: Reply, spoken: string, audio?: AnswerAudio, words?: () => string): void {
    const tts = this.voice?.tts;
    if (!tts) throw new Error('no text-to-speech provider for a voice session');
    const { options } = this.voice!;
    const source = audio ?? (() => tts.stream(spoken, options, reply.controller.signal));
    const index = reply.texts.push(spoken) - 1;
    const stopped = () => reply.controller.signal.aborted || this.options.isEnded();
    reply.speech = reply.speech.then(async () => {
      if (stopped()) return;
      const timing: { startMs: number | null; endMs: number } = { startMs: null, endMs: 0 };
      this.streaming = timing;
      let carry = Buffer.alloc(0);
      const sendFrame = (frame: Buffer) => {
        const atMs = Math.max(this.outboundCursorMs, this.pauseHeld?.atMs ?? this.options.clock.nowMs());
        timing.startMs ??= atMs;
        this.outboundCursorMs = timing.endMs = atMs + FRAME_MS;
        // Paused: held, on the time it would play at (unpause moves it to when it does).
        if (this.pauseHeld) return void this.pauseHeld.held.push({ bytes: frame, atMs });
        this.unplayed.push({ bytes: frame, atMs });
        this.options.out.media(frame.toString('base64'), atMs);
        this.trace.mark('first_frame_sent');
      };
      const played = () => {
        if (this.streaming === timing) this.streaming = null;
        const text = words?.() || spoken;
        reply.texts[index] = text;
        const { startMs, endMs } = timing;
        if (startMs !== null) reply.segments.push({ index, text, startMs, endMs });
      };
      // Audio whose words come with it (a speech-to-speech model's transcript) and is stopped while
      // it still streams keeps what was sent, with its words so far: the cut is made in them.
      const cutWhileStreaming = () => void (words && played());
      for await (const chunk of source()) {
        if (stopped()) return cutWhileStreaming();
        this.trace.mark('tts_first_byte');
        let bytes = Buffer.concat([carry, chunk]);
        for (; bytes.length >= FRAME_BYTES; bytes = bytes.subarray(FRAME_BYTES))
          sendFrame(Buffer.from(bytes.subarray(0, FRAME_BYTES)));
        carry = bytes;
      }
      if (stopped()) return cutWhileStreaming();
      if (carry.length) sendFrame(Buffer.concat([carry, Buffer.alloc(FRAME_BYTES - carry.length, MULAW_SILENCE)]));
      played();
    });
    // The answer awaits its speech once written; a speech failure before then (or an answer that
    // fails itself first) must not be an unhandled rejection, which would end the whole task.
    reply.speech.catch(() => {});
  }

  /** A chat's sentence: sent as it is complete, after what the answer sent before it. */
  private queueText(reply: Reply, text: string): void {
    const index = reply.texts.push(text) - 1;
    reply.speech = reply.speech.then(() => {
      if (reply.controller.signal.aborted || this.options.isEnded()) return;
      const atMs = this.options.clock.nowMs();
      this.options.out.text(text);
      this.trace.mark('first_frame_sent');
      reply.segments.push({ index, text, startMs: atMs, endMs: atMs });
    });
  }

  /** The answer's transcript line (only what played), and the hang-up it asked for. */
  private close(reply: Reply): void {
    const { clock, events } = this.options;
    const cutAt = reply.bargedInAtMs;
    const said = spokenText(reply);
    if (said) {
      // It ended where the last segment that played ended, or where the caller cut it.
      const endMs = Math.min(reply.segments.at(-1)!.endMs, cutAt ?? Number.POSITIVE_INFINITY);
      reply.fragment = {
        timestamp: clock.isoAt(reply.segments[0]!.startMs),
        end: clock.isoAt(endMs),
        role: 'assistant',
        text: said,
      };
      events.transcript(reply.fragment);
    }
    // The model learns what the caller really heard.
    const heard = cutAt !== null ? (said ? `${said}… (interrupted by the caller)` : '') : reply.finalText.trim();
    if (heard) reply.historyMessage = events.heard(heard);
    this.lastReply = reply;
    if (reply.segments.length) this.options.out.mark(`reply-${++this.markCount}`);
    if (reply.hangUp && cutAt === null) events.hangUp();
  }
}
