/**
 * Per-call loop of a Media Streams (Twilio) connection, independent of the transport: feed it
 * parsed inbound JSON via handle(), it calls send() with outbound messages (`media`, `mark`,
 * `clear`).
 *
 * The caller's audio goes as it arrives to the live speech-to-text stream; its final results make
 * the caller's turn, ended by the provider's endpointing (`speech_final`) or `UtteranceEnd`. A
 * turn streams the model's answer; each complete sentence goes to text-to-speech while the model
 * is still writing, and its audio goes out frame by frame as it comes. The model's tool calls run
 * between rounds (HTTP tools, disposition, information, end of call). Caller words while the agent
 * is talking stop the agent at once (`clear`), and the transcript keeps only the words that
 * played; a sound without words (noise, echo: a bare `SpeechStarted`) does not, and a barge-in
 * that turns out to hold no words (a false start) resumes the cut answer. A model that is slow to
 * answer gets a short filler; one that fails, or any provider failing, gets a spoken apology
 * before the hang-up. Silence prompts, the silence timeout and the maximum call length run on the
 * media clock (the provider's timestamps), so they are deterministic in tests.
 *
 * The same loop holds a chat (`transport: 'text'`): the user's `message` frames are its turns and
 * each sentence of the answer goes out as a `text` frame instead of speech; a chat left idle ends
 * like a silent call. Browser and chat sessions also get `transcript`, `tool_call` and `knowledge`
 * frames (`sessionEvents`): what the agent heard, said and did, as it happens.
 *
 * A live call can be followed (`observe`: both sides' audio and the same events, for the listen
 * endpoint) and steered (`control`: say a sentence, add to the model's context, end), through
 * media/src/live-calls.ts.
 */
import {
  ProviderError,
  type CallProviders,
  type ChatMessage,
  type ModelEvent,
  type SpeechToTextStream,
} from '../agent/interfaces.ts';
import { knowledgeSection, type CallPlan } from '../agent/call-plan.ts';
import { boundedContext } from '../agent/context-window.ts';
import { UTTERANCE_END_MS } from '../agent/providers.ts';
import { executeHttpTool } from '../agent/tool-executor.ts';
import { keyTones, KEY_SEQUENCE } from '../audio/dtmf.ts';
import { encodeMulaw } from '../audio/mulaw.ts';
import { CallRecorder, type RecordingFile } from '../audio/recorder.ts';
import { MAX_CHAT_MESSAGE_CHARS } from '../../../shared/domain/browser-sessions.ts';
import type { TranscriptFragment } from '../../../shared/domain/transcripts.ts';
import type { TransferDestination, TransferIntent } from '../../../shared/schemas/call-transfer.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFn = (level: LogLevel, message: string, details?: Record<string, unknown>) => void;

export interface SessionResult {
  runRef: string | null;
  streamSid: string | null;
  callSid: string | null;
  startedAt: string;
  endedAt: string;
  /** Why the session ended: the provider's stop event, or the transport closing first. */
  reason: 'stop' | 'closed';
  /** Set when a provider failed and the call was ended because of it. */
  failure: string | null;
  /**
   * The agent ended the call (end_call, a goodbye, a failure) and the stream closed after its last
   * words; not when the provider stopped the stream (the callee hung up, a voicemail is left).
   */
  agentEnded: boolean;
  fragments: TranscriptFragment[];
  gathered: Record<string, unknown>;
  /** Both directions mixed, as a WAV file on local disk (its owner uploads and disposes of it); none for a chat. */
  recording: RecordingFile | null;
  durationMs: number;
  /** The call was handed to a person (its provider transfer carried out by the transport's owner). */
  transfer: TransferIntent | null;
}

export interface HangUpInfo {
  /** Outbound audio still queued at the provider when the hang-up was decided. */
  playbackRemainingMs: number;
}

/** What a call needs, loaded when its stream starts (call-sessions.ts). */
export interface PreparedCall {
  plan: CallPlan;
  providers: CallProviders;
  /** The call's organization (its tools' headers are sealed to it). */
  organizationId: number;
  /** Replaces the SSRF-guarded fetch of the agent's HTTP tools (local stack and tests only). */
  toolFetch?: typeof fetch;
  /** Appends to the run's logs (tool calls, knowledge used). */
  runLog?: (level: 'INFO' | 'WARN' | 'ERROR', message: string) => void;
  /**
   * The agent takes a call back after a transfer nobody took: the conversation so far, and what
   * it is told about the transfer, instead of a greeting.
   */
  resume?: { history: ChatMessage[]; note: string };
}

export interface MediaSessionOptions {
  prepare: (runRef: string | null) => Promise<PreparedCall>;
  send: (message: object) => void;
  /** Epoch milliseconds; injectable so tests are deterministic. */
  clock?: () => number;
  log?: LogFn;
  onHangUp?: (info: HangUpInfo) => void;
  /** Wall-time bounds on the model (tests shorten them). */
  timing?: { fillerAfterMs?: number; modelAnswerLimitMs?: number };
  /** Speech in and out (a phone call, browser voice), or text (a chat). Default `audio`. */
  transport?: 'audio' | 'text';
  /** Also send `transcript`, `tool_call` and `knowledge` frames (browser and chat sessions; not to a phone provider). */
  sessionEvents?: boolean;
}

/**
 * What a listener of a live call receives: `media` frames of each side (`track` `inbound` for the
 * caller, `outbound` for the agent: 8 kHz mu-law, base64, `timestamp` in ms of the call), the
 * `transcript`, `tool_call`, `knowledge` and `control` events, and `end` last.
 */
export type LiveEvent = { event: string } & Record<string, unknown>;

/** A command of the control API (shared/schemas/live-calls.ts). */
export type LiveCommand =
  | { type: 'say'; text: string; end_call?: boolean }
  | { type: 'add_message'; content: string; respond?: boolean }
  | { type: 'end'; say?: string }
  | { type: 'transfer'; destination: string };

/** What the model is asked for a warm transfer without a message of its own. */
const TRANSFER_SUMMARY_PROMPT =
  'You hand this call to a colleague taking over. In one or two sentences for them, say who is calling and what they need, from the conversation. No greeting.';

/** How often a chat, which has no media clock, checks its idle and length limits (wall time). */
const CHAT_CLOCK_MS = 1000;

const MS_PER_FRAME = 20;
const FRAME_BYTES = 160;
const MULAW_SILENCE = 0xff;
const MAX_TOOL_ROUNDS = 4;
/** Audio kept for the speech-to-text stream while it opens. */
const MAX_EARLY_FRAMES = 250;
/** A model silent this long after a caller's turn gets the "one moment" filler (wall time). */
export const FILLER_AFTER_MS = 2000;
/** A model that has not started answering this long after being asked has failed (wall time). */
export const MODEL_ANSWER_LIMIT_MS = 10_000;
/** The apology on a failure is cut off after this long, and the call hung up (wall time). */
const APOLOGY_LIMIT_MS = 15_000;
/**
 * Caller words that neither end in a final result nor get an `UtteranceEnd` for this long (media
 * time): the turn ends with what was heard, or, with nothing heard, it was a false start.
 */
const STALLED_TURN_MS = UTTERANCE_END_MS + 1000;

interface SpokenSegment {
  /** Its place in Reply.texts. */
  index: number;
  text: string;
  startMs: number;
  endMs: number;
}

/** One agent answer: its speech, what of it played, and how to stop it. */
interface Reply {
  controller: AbortController;
  /** Every text queued for speech, in order (some may not have played, or not been spoken yet). */
  texts: string[];
  segments: SpokenSegment[];
  speech: Promise<void>;
  /** Cut off by the caller at this offset. */
  bargedInAtMs: number | null;
  hangUp: boolean;
  /** The words the answer ends with (after any tool calls), for the model's history. */
  finalText: string;
  /** Its transcript line and history message, once complete (a barge-in may still cut them). */
  fragment: TranscriptFragment | null;
  historyMessage: { role: 'assistant'; content: string } | null;
  done: Promise<void>;
}

export class MediaSession {
  streamSid: string | null = null;
  callSid: string | null = null;
  runRef: string | null = null;
  readonly fragments: TranscriptFragment[] = [];
  readonly gathered: Record<string, unknown> = {};
  wantsHangUp = false;
  /** A transfer asked for, carried out once its handoff phrase has played (the transport's owner does it). */
  transferIntent: TransferIntent | null = null;
  /** Resolves once, at stop or when finish() is called by the transport. */
  readonly finished: Promise<SessionResult>;
  /** Resolves when the agent hung up (after its last words were sent) or a provider failed. */
  readonly hangUpRequested: Promise<HangUpInfo>;

  private readonly options: MediaSessionOptions;
  private readonly clock: () => number;
  private readonly log: LogFn;
  private readonly recorder: CallRecorder | null;
  private readonly history: ChatMessage[] = [];
  private call: PreparedCall | null = null;
  private stt: SpeechToTextStream | null = null;
  private ready: Promise<void> = Promise.resolve();
  private startEpochMs: number | null = null;
  private lastMediaMs = 0;
  /**
   * Where the audio given to speech-to-text sits on the media clock: one entry per chunk, its start
   * in the stream's audio time and in media time. The provider counts audio time; a provider's
   * timestamps are media time, and the two part when frames go missing or timers drift.
   */
  private readonly sttTimeline: { audioMs: number; atMs: number }[] = [];
  private sttAudioMs = 0;
  private earlyFrames: { bytes: Buffer; atMs: number }[] = [];
  /** Offset (ms from start) where the provider will finish playing what we already sent. */
  private outboundCursorMs = 0;
  /** Sent but not yet played audio (recorded once played; dropped by a barge-in). */
  private unplayed: { bytes: Buffer; atMs: number }[] = [];
  private reply: Reply | null = null;
  /** The last complete answer, whose audio may still be playing. */
  private lastReply: Reply | null = null;
  /** The answer the caller's words cut, until the caller's turn shows whether they said anything. */
  private cutByCaller: { reply: Reply; atMs: number } | null = null;
  /** Keys pressed in the entry under way, and when the last one was (media time). */
  private pendingKeys = '';
  private firstKeyMs = 0;
  private lastKeyMs = 0;
  private pendingUserText = '';
  private pendingUserStartMs = 0;
  private pendingUserEndMs = 0;
  private callerSpeaking = false;
  private lastCallerActivityMs = 0;
  private silencePrompts = 0;
  private closing = false;
  private failure: string | null = null;
  private markCount = 0;
  private ended = false;
  private readonly text: boolean;
  private chatClock: NodeJS.Timeout | undefined;
  private resolveFinished!: (result: SessionResult) => void;
  private resolveHangUp!: (info: HangUpInfo) => void;
  private readonly listeners = new Set<(event: LiveEvent) => void>();

  constructor(options: MediaSessionOptions) {
    this.options = options;
    this.clock = options.clock ?? Date.now;
    this.text = options.transport === 'text';
    this.recorder = this.text ? null : new CallRecorder();
    this.log = options.log ?? (() => {});
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.hangUpRequested = new Promise((resolve) => (this.resolveHangUp = resolve));
  }

  get isFinished(): boolean {
    return this.ended;
  }

  /** Offset from stream start (ms) at which the audio sent so far finishes playing. */
  get playbackEndMs(): number {
    return this.outboundCursorMs;
  }

  /** Resolves when the call is set up and its opening words are sent (tests). */
  get opened(): Promise<void> {
    return this.ready;
  }

  /** Resolves when the answer in progress, if any, is complete (tests, bench). */
  async idle(): Promise<void> {
    while (this.reply) await this.reply.done;
  }

  /** Follows the call as it happens (LiveEvent) until it ends; returns the way to stop following. */
  observe(listener: (event: LiveEvent) => void): () => void {
    if (this.ended) {
      listener({ event: 'end' });
      return () => {};
    }
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A command of the control API, applied at once; the reason it cannot be, otherwise. A sentence
   * to say or an answer asked for waits for the agent's answer in progress (answers never overlap);
   * ending cuts it off.
   */
  control(command: LiveCommand): string | null {
    const call = this.call;
    if (this.ended || !call) return this.ended ? 'the call has ended' : 'the call is not set up yet';
    if (this.closing) return 'the call is ending';
    const afterAnswer = (then: () => void) =>
      void this.idle().then(() => {
        if (!this.closing && !this.ended) then();
      });
    switch (command.type) {
      case 'say':
        if (command.end_call) this.closing = true;
        void this.idle().then(() => {
          if (!this.ended) this.startReply({ say: command.text, hangUp: command.end_call === true });
        });
        break;
      case 'add_message':
        this.history.push({ role: 'system', content: command.content });
        if (command.respond) afterAnswer(() => this.startReply({ userText: null }));
        break;
      case 'transfer': {
        const destination = call.plan.transfer?.destinations.find((item) => item.name === command.destination);
        if (!destination)
          return call.plan.transfer
            ? `no transfer destination named ${command.destination}`
            : 'this call has no transfer destinations (or is not a phone call)';
        this.closing = true;
        void this.idle().then(async () => {
          if (this.ended) return;
          await this.prepareTransfer(destination, 'the control API', '');
          this.startReply({ say: call.plan.phrases.transferring, hangUp: true });
        });
        break;
      }
      case 'end':
        if (command.say) this.goodbye(command.say);
        else {
          this.closing = true;
          this.interrupt('time');
          this.hangUp();
        }
        break;
    }
    this.notify({ event: 'control', ...command });
    return null;
  }

  /** Handles one parsed inbound message. Never throws; malformed input is logged and dropped. */
  async handle(message: unknown): Promise<void> {
    try {
      if (!isRecord(message) || typeof message.event !== 'string') {
        this.log('warn', 'ignoring malformed media stream message');
        return;
      }
      if (this.ended) return;
      switch (message.event) {
        case 'connected':
        case 'mark': // playback acknowledgements; the transport uses the hang-up mark
          return;
        case 'dtmf':
          return this.onKey(message);
        case 'message':
          return this.onMessage(message);
        case 'start':
          return this.onStart(message);
        case 'media':
          return this.onMedia(message);
        case 'stop':
          await this.finish('stop');
          return;
        default:
          this.log('warn', 'ignoring unknown media stream event', { event: message.event });
      }
    } catch (error) {
      this.log('error', 'media session failed to handle message', { error: String(error) });
    }
  }

  /** Ends the session (idempotent): stops the agent and the speech stream, then resolves `finished`. */
  async finish(reason: 'stop' | 'closed' = 'closed'): Promise<SessionResult> {
    if (!this.ended) {
      this.ended = true;
      clearInterval(this.chatClock);
      await this.ready;
      // The caller hung up: an answer still playing was cut there.
      if (this.reply && this.reply.bargedInAtMs === null && !this.wantsHangUp)
        this.reply.bargedInAtMs = this.elapsedMs();
      this.reply?.controller.abort();
      await this.idle();
      await this.stt?.close().catch(() => {});
      const now = this.clock();
      this.notify({ event: 'end', reason, failure: this.failure });
      this.listeners.clear();
      // A hang-up waits for its mark, so what is left unplayed here never reached the caller.
      this.recordPlayed(reason === 'closed' && this.wantsHangUp ? Number.POSITIVE_INFINITY : this.elapsedMs());
      this.resolveFinished({
        runRef: this.runRef,
        streamSid: this.streamSid,
        callSid: this.callSid,
        startedAt: new Date(this.startEpochMs ?? now).toISOString(),
        endedAt: new Date(now).toISOString(),
        reason,
        failure: this.failure,
        agentEnded: this.wantsHangUp && reason === 'closed',
        fragments: [...this.fragments].sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
        gathered: { ...this.gathered },
        recording: this.recorder?.finish() ?? null,
        durationMs: this.recorder?.durationMs ?? 0,
        transfer: this.transferIntent,
      });
    }
    return this.finished;
  }

  private onStart(message: Record<string, unknown>): void {
    if (this.startEpochMs !== null) {
      this.log('warn', 'ignoring duplicate start event');
      return;
    }
    const start = isRecord(message.start) ? message.start : {};
    const params = isRecord(start.customParameters) ? start.customParameters : {};
    this.streamSid = stringOrNull(start.streamSid) ?? stringOrNull(message.streamSid);
    this.callSid = stringOrNull(start.callSid);
    this.runRef = stringOrNull(params.run_ref);
    this.startEpochMs = this.clock();
    const format = isRecord(start.mediaFormat) ? start.mediaFormat : null;
    if (format && !this.text && (format.encoding !== 'audio/x-mulaw' || Number(format.sampleRate) !== 8000)) {
      this.log('warn', 'unexpected media format; treating audio as 8 kHz mu-law', { mediaFormat: format });
    }
    this.log('info', 'media stream started', { streamSid: this.streamSid, callSid: this.callSid, runRef: this.runRef });
    this.ready = this.open().catch((error: unknown) => this.fail(error));
  }

  private async open(): Promise<void> {
    const call = await this.options.prepare(this.runRef);
    this.call = call;
    if (this.ended) return;
    if (this.text) {
      this.lastCallerActivityMs = this.elapsedMs();
      this.chatClock = setInterval(() => this.checkClock(), CHAT_CLOCK_MS);
      this.chatClock.unref();
      const { firstMessage } = call.plan.settings;
      this.startReply(firstMessage ? { say: firstMessage } : { userText: null });
      return;
    }
    const { stt } = call.providers;
    if (!stt) throw new Error('no speech-to-text provider for a voice session');
    this.stt = await stt.open(
      { language: call.plan.settings.language },
      {
        // Voice activity alone (noise, a cough, the agent's own echo) never interrupts: words do.
        speechStarted: () => {},
        transcript: (result) => {
          const text = result.text.trim();
          if (text) {
            // Deepgram's results cover the audio since the last final one: count those words too.
            const words = wordCount(this.pendingUserText) + wordCount(text);
            this.onCallerWords(result.isFinal || words >= call.plan.settings.bargeInMinWords);
          }
          if (text && result.isFinal) {
            if (!this.pendingUserText) this.pendingUserStartMs = this.mediaTimeOf(result.start * 1000);
            this.pendingUserEndMs = this.mediaTimeOf(result.end * 1000);
            this.pendingUserText = `${this.pendingUserText} ${text}`.trim();
          }
          // An empty speech_final still ends the turn the earlier finals began.
          if (result.speechFinal) this.endOfCallerTurn();
        },
        utteranceEnd: () => this.endOfCallerTurn(),
        reconnecting: (reason) => {
          this.log('warn', 'speech-to-text stream dropped: reconnecting', { runRef: this.runRef, reason });
          call.runLog?.('WARN', `Speech-to-text stream dropped (${reason}); reconnected, the call goes on`);
        },
        failed: (error) => this.fail(error),
      },
    );
    for (const frame of this.earlyFrames) this.toSpeechToText(frame.bytes, frame.atMs);
    this.earlyFrames = [];
    this.lastCallerActivityMs = this.elapsedMs();
    if (call.resume) {
      // Back from a transfer nobody took: the model knows the conversation and what happened.
      this.history.push(...call.resume.history, { role: 'system', content: call.resume.note });
      this.startReply({ userText: null });
      return;
    }
    const { firstMessage } = call.plan.settings;
    this.startReply(firstMessage ? { say: firstMessage } : { userText: null });
  }

  private onMedia(message: Record<string, unknown>): void {
    if (this.startEpochMs === null) {
      this.log('warn', 'ignoring media before start');
      return;
    }
    const media = isRecord(message.media) ? message.media : null;
    if (!media || typeof media.payload !== 'string') {
      this.log('warn', 'ignoring media message without payload');
      return;
    }
    if (media.track !== undefined && media.track !== 'inbound') return; // only the caller's leg
    const bytes = Buffer.from(media.payload, 'base64');
    if (bytes.length === 0) return;
    // The provider's timestamp places audio exactly even if frames arrive in bursts.
    const stamp = Number(media.timestamp);
    const atMs = media.timestamp !== undefined && Number.isFinite(stamp) ? stamp : this.elapsedMs();
    this.lastMediaMs = Math.max(this.lastMediaMs, atMs);
    this.recorder?.addInbound(bytes, atMs);
    if (this.listeners.size) this.notify({ event: 'media', track: 'inbound', timestamp: atMs, payload: media.payload });
    this.recordPlayed(this.elapsedMs());
    if (this.stt) this.toSpeechToText(bytes, atMs);
    else if (this.earlyFrames.length < MAX_EARLY_FRAMES) this.earlyFrames.push({ bytes, atMs });
    this.checkClock();
  }

  private toSpeechToText(bytes: Buffer, atMs: number): void {
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

  /** Silence prompts, silence timeout and the call's time limit. */
  private checkClock(): void {
    const call = this.call;
    if (!call || this.closing || this.ended) return;
    const now = this.elapsedMs();
    if (now >= call.plan.settings.maxCallMs) {
      this.log('info', 'maximum call length reached', { runRef: this.runRef });
      this.goodbye(call.plan.phrases.timeLimitGoodbye);
      return;
    }
    if (this.pendingKeys && now - this.lastKeyMs >= call.plan.settings.keypad.timeoutMs) {
      this.endOfKeypadEntry();
      return;
    }
    if (this.callerSpeaking && now - this.lastCallerActivityMs >= STALLED_TURN_MS) {
      // Neither a final result nor UtteranceEnd came: end the turn with what was heard, if anything.
      this.log('info', 'caller turn ended without an end of utterance', { runRef: this.runRef });
      this.endOfCallerTurn();
      return;
    }
    if (this.reply || this.callerSpeaking || this.pendingUserText || this.pendingKeys) return;
    if (this.text) {
      if (now - this.lastCallerActivityMs < call.plan.settings.chatIdleTimeoutMs) return;
      this.log('info', 'chat idle: ending it', { runRef: this.runRef });
      this.goodbye(call.plan.phrases.idleGoodbye);
      return;
    }
    const quietSince = Math.max(this.lastCallerActivityMs, this.outboundCursorMs);
    if (now - quietSince < call.plan.settings.silenceTimeoutMs) return;
    if (this.silencePrompts === 0) {
      this.silencePrompts = 1;
      this.startReply({ say: call.plan.phrases.silencePrompt });
    } else {
      this.log('info', 'caller silent: ending the call', { runRef: this.runRef });
      this.goodbye(call.plan.phrases.silenceGoodbye);
    }
  }

  private goodbye(text: string): void {
    this.closing = true;
    this.interrupt('time');
    this.startReply({ say: text, hangUp: true });
  }

  /** Caller words: a barge-in when the agent is talking or about to, once there are enough of them. */
  private onCallerWords(enough: boolean): void {
    this.callerSpeaking = true;
    this.lastCallerActivityMs = this.elapsedMs();
    this.silencePrompts = 0;
    if (enough && !this.closing) this.interrupt('caller');
  }

  private interrupt(by: 'caller' | 'time'): void {
    const reply = this.reply;
    const now = this.elapsedMs();
    const playing = this.outboundCursorMs > now;
    if (!reply && !playing) return;
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
        else this.fragments.splice(this.fragments.indexOf(played.fragment), 1);
      }
      if (played.historyMessage) played.historyMessage.content = `${said}… (interrupted by the caller)`;
    }
    if (playing) {
      this.send({ event: 'clear', streamSid: this.streamSid });
      this.unplayed = this.unplayed.filter((frame) => frame.atMs < now);
      this.outboundCursorMs = now;
    }
    this.log('info', by === 'caller' ? 'barge-in: agent audio cleared' : 'agent interrupted', {
      runRef: this.runRef,
      atMs: now,
    });
  }

  /**
   * A key the caller pressed (the provider's `dtmf` stream event): it stops the agent like words do,
   * and adds to the entry under way, which ends with the end key, at `collect_digits` keys, or
   * after a pause (the agent's `keypad` setting). The entry is the caller's turn.
   */
  private onKey(message: Record<string, unknown>): void {
    const dtmf = isRecord(message.dtmf) ? message.dtmf : {};
    const key = typeof dtmf.digit === 'string' ? dtmf.digit : '';
    const call = this.call;
    if (!/^[0-9*#A-D]$/.test(key) || !call || this.closing) {
      this.log('warn', 'ignoring a key press', { runRef: this.runRef, key });
      return;
    }
    const { keypad } = call.plan.settings;
    this.lastKeyMs = this.elapsedMs();
    if (!this.pendingKeys) this.firstKeyMs = this.lastKeyMs;
    this.lastCallerActivityMs = this.lastKeyMs;
    this.silencePrompts = 0;
    this.interrupt('caller');
    if (key === keypad.endKey) return this.endOfKeypadEntry();
    this.pendingKeys += key;
    if (keypad.collectDigits !== null && this.pendingKeys.length >= keypad.collectDigits) this.endOfKeypadEntry();
  }

  /** A chat message: the user's turn, which stops an answer still being written. */
  private async onMessage(message: Record<string, unknown>): Promise<void> {
    const text = typeof message.text === 'string' ? message.text.trim() : '';
    if (this.text && !this.call) await this.ready; // sent as soon as connected: kept for when the chat is set up
    if (!this.text || !this.call || this.closing) {
      this.log('warn', 'ignoring a chat message', { runRef: this.runRef, chat: this.text, closing: this.closing });
      return;
    }
    if (!text || text.length > MAX_CHAT_MESSAGE_CHARS) {
      this.send({ event: 'error', detail: `A message is 1 to ${MAX_CHAT_MESSAGE_CHARS} characters` });
      return;
    }
    const now = this.elapsedMs();
    this.lastCallerActivityMs = now;
    this.interrupt('caller');
    this.cutByCaller = null;
    this.pendingUserText = text;
    this.pendingUserStartMs = now;
    this.pendingUserEndMs = now;
    this.endOfCallerTurn();
  }

  private endOfKeypadEntry(): void {
    const keys = this.pendingKeys;
    this.pendingKeys = '';
    this.cutByCaller = null;
    if (!keys || this.closing) return;
    // From the first key to the last, a key press lasting a frame at least.
    this.addFragment({
      timestamp: this.isoAt(this.firstKeyMs),
      end: this.isoAt(Math.max(this.lastKeyMs, this.firstKeyMs + MS_PER_FRAME)),
      role: 'user',
      text: `[pressed ${keys}]`,
    });
    const text = `(The caller pressed these keys on the phone's keypad: ${keys})`;
    this.history.push({ role: 'user', content: text });
    this.startReply({ userText: text });
  }

  private endOfCallerTurn(): void {
    this.callerSpeaking = false;
    this.lastCallerActivityMs = this.elapsedMs();
    const text = this.pendingUserText;
    const cut = this.cutByCaller;
    this.cutByCaller = null;
    if (this.closing) return;
    if (!text) {
      if (cut) this.resume(cut.reply, cut.atMs);
      return;
    }
    this.pendingUserText = '';
    this.addFragment({
      timestamp: this.isoAt(this.pendingUserStartMs),
      end: this.isoAt(this.pendingUserEndMs),
      role: 'user',
      text,
    });
    this.history.push({ role: 'user', content: text });
    this.startReply({ userText: text });
  }

  /**
   * A false start: the caller's words stopped the agent, but the turn ended with nothing said (the
   * speech-to-text service took them back). The agent says again what the caller did not hear,
   * from the start of the sentence it was cut in.
   */
  private resume(reply: Reply, cutAtMs: number): void {
    const cutSegment = reply.segments.find((segment) => segment.endMs > cutAtMs);
    const from = cutSegment?.index ?? (reply.segments.at(-1)?.index ?? -1) + 1;
    const rest = reply.texts.slice(from).join(' ');
    this.log('info', 'false start: resuming the cut answer', { runRef: this.runRef, resumed: rest.length > 0 });
    if (rest) this.startReply({ say: rest, hangUp: reply.hangUp });
  }

  /** Starts an answer after the previous one has stopped (answers never overlap). */
  private startReply(input: { say: string; hangUp?: boolean } | { userText: string | null }): void {
    const previous = this.reply;
    previous?.controller.abort();
    const reply: Reply = {
      controller: new AbortController(),
      texts: [],
      segments: [],
      speech: Promise.resolve(),
      bargedInAtMs: null,
      hangUp: false,
      finalText: '',
      fragment: null,
      historyMessage: null,
      done: Promise.resolve(),
    };
    reply.done = (async () => {
      await previous?.done;
      if (this.ended) return;
      try {
        if ('say' in input) {
          reply.finalText = input.say;
          this.queueSpeech(reply, input.say);
          reply.hangUp = input.hangUp === true;
        } else await this.think(reply, input.userText);
        await reply.speech;
      } catch (error) {
        if (!reply.controller.signal.aborted) this.fail(error);
      }
      this.closeReply(reply);
    })();
    this.reply = reply;
    void reply.done.finally(() => {
      if (this.reply === reply) this.reply = null;
    });
  }

  /** The model's answer to the conversation so far, with its tool calls, spoken as it streams. */
  private async think(reply: Reply, userText: string | null): Promise<void> {
    const call = this.call!;
    const { plan, providers } = call;
    const passages = userText ? plan.knowledge(userText) : [];
    if (passages.length) {
      call.runLog?.(
        'INFO',
        `Knowledge used for "${userText}": ${passages.map((passage) => `[${passage.title}] ${passage.text.slice(0, 120)}`).join(' | ')}`,
      );
      this.sessionEvent({ event: 'knowledge', passages: passages.map(({ title, text }) => ({ title, text })) });
    }
    const system = plan.systemPrompt + knowledgeSection(passages);
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      let text = '';
      let unspoken = '';
      const toolCalls: { id: string; name: string; arguments: string }[] = [];
      const request = {
        model: plan.settings.model ?? providers.llm.defaultModel,
        temperature: plan.settings.temperature,
        tools: plan.tools,
        messages: [{ role: 'system' as const, content: system }, ...boundedContext(this.history)],
      };
      for await (const event of this.modelAnswer(reply, request)) {
        if (event.type === 'tool_call') {
          toolCalls.push(event);
          continue;
        }
        text += event.text;
        unspoken += event.text;
        // Speak each complete sentence while the model writes the next.
        for (let cut = sentenceEnd(unspoken); cut > 0; cut = sentenceEnd(unspoken)) {
          this.queueSpeech(reply, unspoken.slice(0, cut));
          unspoken = unspoken.slice(cut);
        }
      }
      if (reply.controller.signal.aborted) return;
      if (unspoken.trim()) this.queueSpeech(reply, unspoken);
      if (!toolCalls.length) {
        reply.finalText = text;
        return;
      }
      this.history.push({
        role: 'assistant',
        content: text || null,
        tool_calls: toolCalls.map((toolCall) => ({
          id: toolCall.id,
          type: 'function',
          function: { name: toolCall.name, arguments: toolCall.arguments },
        })),
      });
      for (const toolCall of toolCalls) {
        const result = await this.runTool(reply, toolCall);
        this.history.push({ role: 'tool', tool_call_id: toolCall.id, content: result });
        this.sessionEvent({ event: 'tool_call', name: toolCall.name, arguments: toolCall.arguments, result });
      }
      if (reply.hangUp || reply.controller.signal.aborted) return;
    }
  }

  /**
   * The model's answer, bounded in time: with nothing spoken yet after FILLER_AFTER_MS the caller
   * hears the filler, and a model that has not started answering after MODEL_ANSWER_LIMIT_MS has
   * failed (the call ends with the apology rather than a long silence).
   */
  private async *modelAnswer(
    reply: Reply,
    request: Parameters<CallProviders['llm']['stream']>[0],
  ): AsyncIterable<ModelEvent> {
    const { providers } = this.call!;
    const deadline = new AbortController();
    const filler = this.fillerAfterWait(reply);
    const limitMs = this.options.timing?.modelAnswerLimitMs ?? MODEL_ANSWER_LIMIT_MS;
    const limit = setTimeout(() => deadline.abort(), limitMs);
    try {
      for await (const event of providers.llm.stream(
        request,
        AbortSignal.any([reply.controller.signal, deadline.signal]),
      )) {
        filler.cancel();
        clearTimeout(limit);
        yield event;
      }
      if (deadline.signal.aborted && !reply.controller.signal.aborted)
        throw new ProviderError(providers.llm.name, `no answer within ${limitMs / 1000} s`);
    } finally {
      filler.cancel();
      clearTimeout(limit);
    }
  }

  /** The filler, said once if the answer has still said nothing after FILLER_AFTER_MS. */
  private fillerAfterWait(reply: Reply): { cancel: () => void } {
    if (this.text) return { cancel: () => {} }; // a chat shows its own "typing"
    const timer = setTimeout(() => {
      if (!reply.texts.length && !reply.controller.signal.aborted && !this.ended)
        this.queueSpeech(reply, this.call!.plan.phrases.oneMoment);
    }, this.options.timing?.fillerAfterMs ?? FILLER_AFTER_MS);
    return { cancel: () => clearTimeout(timer) };
  }

  private async runTool(reply: Reply, toolCall: { name: string; arguments: string }): Promise<string> {
    const call = this.call!;
    const args = parseObject(toolCall.arguments);
    switch (toolCall.name) {
      case 'set_call_disposition': {
        const code = String(args.code ?? '');
        if (!call.plan.dispositionCodes.includes(code))
          return JSON.stringify({ error: `code must be one of ${call.plan.dispositionCodes.join(', ')}` });
        this.gathered.call_disposition = code;
        call.runLog?.('INFO', `Disposition chosen by the agent: ${code}`);
        return JSON.stringify({ ok: true });
      }
      case 'save_information': {
        const key = String(args.key ?? '').trim();
        if (!/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(key) || key === 'call_disposition')
          return JSON.stringify({ error: 'key must be a snake_case name other than call_disposition' });
        this.gathered[key] = args.value;
        return JSON.stringify({ ok: true });
      }
      case 'end_call':
        reply.hangUp = true;
        this.closing = true;
        return JSON.stringify({ ok: true });
      case 'transfer_call': {
        const destination = call.plan.transfer?.destinations.find((item) => item.name === args.destination);
        if (!destination)
          return JSON.stringify({
            error: `destination must be one of ${call.plan.transfer?.destinations.map((item) => item.name).join(', ') ?? '(none: this call cannot be transferred)'}`,
          });
        await this.prepareTransfer(destination, 'the agent', String(args.reason ?? ''));
        this.queueSpeech(reply, call.plan.phrases.transferring);
        reply.hangUp = true;
        this.closing = true;
        return JSON.stringify({ ok: true, transferring_to: destination.name });
      }
      case 'send_digits': {
        const keys = String(args.digits ?? '');
        if (!KEY_SEQUENCE.test(keys))
          return JSON.stringify({ error: 'digits must be 1 to 32 of 0-9, *, #, A-D, and , for a pause' });
        // In-band tones in the agent's audio, in its turn: heard by the menu like a keypad's.
        this.queueSpeech(reply, `[keys ${keys}]`, async function* () {
          yield encodeMulaw(keyTones(keys));
        });
        call.runLog?.('INFO', `Keys sent by the agent: ${keys}`);
        return JSON.stringify({ ok: true, sent: keys });
      }
    }
    const tool = call.plan.httpTools.get(toolCall.name);
    if (!tool) return JSON.stringify({ error: `No tool named ${toolCall.name}` });
    const filler = this.fillerAfterWait(reply); // a slow tool is a wait too
    const result = await executeHttpTool(call.organizationId, tool, toolCall.arguments, {
      fetch: call.toolFetch,
    }).finally(() => filler.cancel());
    call.runLog?.('INFO', `Tool ${tool.name} called with ${toolCall.arguments.slice(0, 300)}: ${result.slice(0, 300)}`);
    this.log('info', 'tool called', { runRef: this.runRef, tool: tool.name });
    return result;
  }

  /** Notes the transfer to carry out after the handoff phrase, with a warm transfer's whisper. */
  private async prepareTransfer(destination: TransferDestination, by: string, reason: string): Promise<void> {
    const whisper = destination.mode === 'warm' ? (destination.message ?? (await this.callSummary())) : null;
    const { plan } = this.call!;
    this.transferIntent = {
      destination,
      whisper,
      failedMessage: plan.phrases.transferFailed,
      timeoutSeconds: plan.transfer?.timeoutSeconds ?? 30,
      continueOnFailure: plan.transfer?.continueOnFailure ?? false,
    };
    this.call?.runLog?.('INFO', `Transfer to ${destination.name} asked for by ${by}${reason ? `: ${reason}` : ''}`);
    this.log('info', 'transfer requested', { runRef: this.runRef, destination: destination.name, by });
    this.notify({ event: 'transfer', destination: destination.name, mode: destination.mode });
  }

  /** A warm transfer's message when the destination has none: the model's summary of the call so far. */
  private async callSummary(): Promise<string> {
    const { providers, plan } = this.call!;
    const conversation = this.history.filter(
      (message) => (message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string',
    );
    let text = '';
    try {
      const request = {
        model: plan.settings.model ?? providers.llm.defaultModel,
        temperature: 0,
        tools: [],
        messages: [{ role: 'system' as const, content: TRANSFER_SUMMARY_PROMPT }, ...boundedContext(conversation)],
      };
      const limit = AbortSignal.timeout(this.options.timing?.modelAnswerLimitMs ?? MODEL_ANSWER_LIMIT_MS);
      for await (const event of providers.llm.stream(request, limit))
        if (event.type !== 'tool_call') text += event.text;
    } catch (error) {
      this.log('warn', 'no summary for the warm transfer', { runRef: this.runRef, error: String(error) });
    }
    return text.trim() || 'A caller handed over by the voice agent.';
  }

  /** The agent's voice saying `text`, as 8 kHz mu-law (a warm transfer's message for a provider that plays audio). */
  async synthesize(text: string): Promise<Buffer> {
    const { providers, plan } = this.call!;
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

  /** Speaks `text` after what the answer already queued; its audio goes out as it streams in. */
  private queueSpeech(reply: Reply, text: string, audio?: () => AsyncIterable<Uint8Array>): void {
    const spoken = text.trim();
    if (!spoken) return;
    if (this.text) return this.queueText(reply, spoken);
    const { providers, plan } = this.call!;
    const { tts } = providers;
    if (!tts) throw new Error('no text-to-speech provider for a voice session');
    const source =
      audio ??
      (() =>
        tts.stream(spoken, { voice: plan.settings.voice, language: plan.settings.language }, reply.controller.signal));
    const index = reply.texts.push(spoken) - 1;
    reply.speech = reply.speech.then(async () => {
      if (reply.controller.signal.aborted || this.ended) return;
      let startMs: number | null = null;
      let carry = Buffer.alloc(0);
      const sendFrame = (frame: Buffer) => {
        const atMs = Math.max(this.outboundCursorMs, this.elapsedMs());
        startMs ??= atMs;
        this.unplayed.push({ bytes: frame, atMs });
        this.outboundCursorMs = atMs + MS_PER_FRAME;
        const payload = frame.toString('base64');
        this.send({ event: 'media', streamSid: this.streamSid, media: { payload } });
        if (this.listeners.size) this.notify({ event: 'media', track: 'outbound', timestamp: atMs, payload });
      };
      for await (const chunk of source()) {
        if (reply.controller.signal.aborted || this.ended) return;
        let bytes = Buffer.concat([carry, chunk]);
        for (; bytes.length >= FRAME_BYTES; bytes = bytes.subarray(FRAME_BYTES))
          sendFrame(Buffer.from(bytes.subarray(0, FRAME_BYTES)));
        carry = bytes;
      }
      if (reply.controller.signal.aborted || this.ended) return;
      if (carry.length) sendFrame(Buffer.concat([carry, Buffer.alloc(FRAME_BYTES - carry.length, MULAW_SILENCE)]));
      if (startMs !== null) reply.segments.push({ index, text: spoken, startMs, endMs: this.outboundCursorMs });
    });
  }

  /** A chat's sentence: sent as it is complete, after what the answer sent before it. */
  private queueText(reply: Reply, text: string): void {
    const index = reply.texts.push(text) - 1;
    reply.speech = reply.speech.then(() => {
      if (reply.controller.signal.aborted || this.ended) return;
      const atMs = this.elapsedMs();
      this.send({ event: 'text', text });
      reply.segments.push({ index, text, startMs: atMs, endMs: atMs });
    });
  }

  /** The answer's transcript line (only what played), and the hang-up it asked for. */
  private closeReply(reply: Reply): void {
    const cutAt = reply.bargedInAtMs;
    const said = spokenText(reply);
    if (said) {
      // It ended where the last segment that played ended, or where the caller cut it.
      const endMs = Math.min(reply.segments.at(-1)!.endMs, cutAt ?? Number.POSITIVE_INFINITY);
      reply.fragment = {
        timestamp: this.isoAt(reply.segments[0]!.startMs),
        end: this.isoAt(endMs),
        role: 'assistant',
        text: said,
      };
      this.addFragment(reply.fragment);
    }
    // The model learns what the caller really heard.
    const heard = cutAt !== null ? (said ? `${said}… (interrupted by the caller)` : '') : reply.finalText.trim();
    if (heard) {
      reply.historyMessage = { role: 'assistant', content: heard };
      this.history.push(reply.historyMessage);
    }
    this.lastReply = reply;
    if (reply.segments.length)
      this.send({ event: 'mark', streamSid: this.streamSid, mark: { name: `reply-${++this.markCount}` } });
    if (reply.hangUp && cutAt === null && !this.wantsHangUp && !this.ended) this.hangUp();
  }

  private hangUp(): void {
    this.wantsHangUp = true;
    const info = { playbackRemainingMs: Math.max(0, this.outboundCursorMs - this.elapsedMs()) };
    this.log('info', 'agent hangs up', { runRef: this.runRef, ...info });
    this.resolveHangUp(info);
    this.options.onHangUp?.(info);
  }

  /**
   * A provider failed: the call cannot go on; it ends as failed, keeping what was recorded. The
   * caller hears the apology first, unless text-to-speech is what failed.
   */
  private fail(error: unknown): void {
    if (this.failure || this.ended) return;
    this.failure = error instanceof Error ? error.message : String(error);
    this.closing = true;
    this.log('error', 'call failed', { runRef: this.runRef, error: this.failure });
    this.call?.runLog?.('ERROR', `Call failed: ${this.failure}`);
    this.reply?.controller.abort();
    void this.stt?.close().catch(() => {});
    if (this.wantsHangUp) return;
    const call = this.call;
    const speechFailed = error instanceof ProviderError && error.provider === call?.providers.tts?.name;
    if (!call || speechFailed) return this.hangUp();
    this.startReply({ say: call.plan.phrases.apology, hangUp: true });
    setTimeout(() => {
      if (!this.wantsHangUp && !this.ended) this.hangUp();
    }, APOLOGY_LIMIT_MS).unref();
  }

  private addFragment(fragment: TranscriptFragment): void {
    this.fragments.push(fragment);
    this.sessionEvent({ event: 'transcript', ...fragment });
  }

  /** What happened, for a browser or chat session's client (never to a phone provider) and the call's listeners. */
  private sessionEvent(event: LiveEvent): void {
    if (this.options.sessionEvents) this.send(event);
    this.notify(event);
  }

  private notify(event: LiveEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.log('warn', 'a listener of the call failed', { runRef: this.runRef, error: String(error) });
      }
    }
  }

  private recordPlayed(untilMs: number): void {
    if (!this.unplayed.length) return;
    const keep: { bytes: Buffer; atMs: number }[] = [];
    for (const frame of this.unplayed) {
      if (frame.atMs < untilMs) this.recorder?.addOutbound(frame.bytes, frame.atMs);
      else keep.push(frame);
    }
    this.unplayed = keep;
  }

  private send(message: object): void {
    try {
      this.options.send(message);
    } catch (error) {
      this.log('warn', 'failed to send to media stream', { error: String(error) });
    }
  }

  /** Ms since start: the provider's media clock, or wall time when ahead of it. */
  private elapsedMs(): number {
    if (this.startEpochMs === null) return 0;
    return Math.max(this.lastMediaMs, this.clock() - this.startEpochMs, 0);
  }

  private isoAt(offsetMs: number): string {
    return new Date((this.startEpochMs ?? this.clock()) + Math.round(offsetMs)).toISOString();
  }
}

/** What of an answer played: whole segments before the cut, the cut one up to the last whole word. */
function spokenText(reply: Reply): string {
  const cutAt = reply.bargedInAtMs;
  return (
    reply.segments
      // A chat's sentences take no time: one sent by the moment of the cut was read.
      .filter(
        (segment) =>
          cutAt === null || segment.startMs < cutAt || (segment.startMs === cutAt && segment.endMs === cutAt),
      )
      .map((segment) =>
        cutAt !== null && cutAt < segment.endMs
          ? cutWords(segment.text, (cutAt - segment.startMs) / (segment.endMs - segment.startMs))
          : segment.text,
      )
      .filter(Boolean)
      .join(' ')
  );
}

/** End (exclusive) of the first complete sentence in `text`, or 0. */
export function sentenceEnd(text: string): number {
  const match = /[.!?…]+["')\]]*\s+/.exec(text);
  return match ? match.index + match[0].length : 0;
}

/** The first `fraction` of `text`'s duration, cut back to a whole word. */
export function cutWords(text: string, fraction: number): string {
  if (fraction >= 1) return text;
  const chars = Math.floor(text.length * Math.max(0, fraction));
  const cut = text.slice(0, chars);
  return (text[chars] === ' ' || chars === text.length ? cut : cut.slice(0, Math.max(0, cut.lastIndexOf(' ')))).trim();
}

const wordCount = (text: string): number => text.split(/\s+/).filter(Boolean).length;

function parseObject(json: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(json || '{}');
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}
