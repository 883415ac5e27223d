/**
 * Per-call turn loop for a Media Streams (Twilio-compatible) connection, independent of the
 * transport: feed it parsed inbound JSON via handle(), it calls send() with outbound messages.
 *
 * Inbound audio is recorded and VAD-scanned synchronously as it arrives; each finished caller
 * utterance queues a turn (STT → LLM → TTS → outbound frames) on one chain, so turns stay in order
 * while media keeps flowing. Only erasable TypeScript syntax (the container strips types).
 */
import type { ConversationState, ConversationTurn, LanguageModel, SpeechToText, TextToSpeech } from '../agent/interfaces.ts';
import { encodeMulaw, decodeMulaw } from '../audio/mulaw.ts';
import { CallRecorder } from '../audio/recorder.ts';
import { EnergyVad, FRAME_SAMPLES, frames, type VadOptions } from '../audio/tones.ts';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFn = (level: LogLevel, message: string, details?: Record<string, unknown>) => void;

export interface TranscriptFragment {
  timestamp: string;
  role: 'user' | 'assistant';
  text: string;
}

export interface SessionResult {
  runRef: string | null;
  streamSid: string | null;
  callSid: string | null;
  startedAt: string;
  endedAt: string;
  /** Why the session ended: the provider's stop event, or the transport closing first. */
  reason: 'stop' | 'closed';
  fragments: TranscriptFragment[];
  gathered: Record<string, unknown>;
  wav: Buffer;
  durationMs: number;
}

export interface HangUpInfo {
  /** Outbound audio still queued at the provider when the hang-up was decided. */
  playbackRemainingMs: number;
}

export interface MediaSessionOptions {
  stt: SpeechToText;
  llm: LanguageModel;
  tts: TextToSpeech;
  state: Omit<ConversationState, 'turns'>;
  send: (message: object) => void;
  /** Epoch milliseconds; injectable so tests are deterministic. */
  clock?: () => number;
  log?: LogFn;
  onHangUp?: (info: HangUpInfo) => void;
  vad?: VadOptions;
  /** Forces a turn when the caller talks this long without a pause. */
  maxUtteranceMs?: number;
}

const MS_PER_FRAME = 20;
const SAMPLES_PER_MS = 8;

export class MediaSession {
  streamSid: string | null = null;
  callSid: string | null = null;
  runRef: string | null = null;
  readonly fragments: TranscriptFragment[] = [];
  readonly gathered: Record<string, unknown> = {};
  wantsHangUp = false;
  /** Resolves once, at stop or when finish() is called by the transport. */
  readonly finished: Promise<SessionResult>;
  /** Resolves when a turn asked to hang up and its audio has been sent. */
  readonly hangUpRequested: Promise<HangUpInfo>;

  private readonly options: MediaSessionOptions;
  private readonly clock: () => number;
  private readonly log: LogFn;
  private readonly recorder = new CallRecorder();
  private readonly vad: EnergyVad;
  private readonly turns: ConversationTurn[] = [];
  private readonly maxUtteranceSamples: number;
  private startEpochMs: number | null = null;
  /** Offset (ms from start) where the provider will finish playing what we already sent. */
  private outboundCursorMs = 0;
  private utterance: Int16Array[] = [];
  private utteranceSamples = 0;
  private utteranceStartMs = 0;
  private userTurnCount = 0;
  private turnChain: Promise<void> = Promise.resolve();
  private markCount = 0;
  private ended = false;
  private resolveFinished!: (result: SessionResult) => void;
  private resolveHangUp!: (info: HangUpInfo) => void;

  constructor(options: MediaSessionOptions) {
    this.options = options;
    this.clock = options.clock ?? Date.now;
    this.log = options.log ?? (() => {});
    this.vad = new EnergyVad(options.vad);
    this.maxUtteranceSamples = (options.maxUtteranceMs ?? 15_000) * SAMPLES_PER_MS;
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
    this.hangUpRequested = new Promise((resolve) => (this.resolveHangUp = resolve));
  }

  get isFinished(): boolean {
    return this.ended;
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
        case 'dtmf':
        case 'mark': // playback acknowledgements; the transport uses the hang-up mark
          return;
        case 'start':
          return await this.onStart(message);
        case 'media':
          return await this.onMedia(message);
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

  /** Ends the session (idempotent): waits for the turn in flight, then resolves `finished`. */
  async finish(reason: 'stop' | 'closed' = 'closed'): Promise<SessionResult> {
    if (!this.ended) {
      this.ended = true;
      await this.turnChain;
      const now = this.clock();
      const wav = this.recorder.toWav();
      this.resolveFinished({
        runRef: this.runRef,
        streamSid: this.streamSid,
        callSid: this.callSid,
        startedAt: new Date(this.startEpochMs ?? now).toISOString(),
        endedAt: new Date(now).toISOString(),
        reason,
        fragments: [...this.fragments],
        gathered: { ...this.gathered },
        wav,
        durationMs: this.recorder.durationMs,
      });
    }
    return this.finished;
  }

  /** Offset from stream start (ms) at which the audio sent so far finishes playing. */
  get playbackEndMs(): number {
    return this.outboundCursorMs;
  }

  recordingWav(): Buffer {
    return this.recorder.toWav();
  }

  /** Transcript turns so far (what the language model sees). */
  conversation(): ConversationTurn[] {
    return this.turns.map((turn) => ({ ...turn }));
  }

  private async onStart(message: Record<string, unknown>): Promise<void> {
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
    if (format && (format.encoding !== 'audio/x-mulaw' || Number(format.sampleRate) !== 8000)) {
      this.log('warn', 'unexpected media format; treating audio as 8 kHz mu-law', { mediaFormat: format });
    }
    this.log('info', 'media stream started', { streamSid: this.streamSid, callSid: this.callSid, runRef: this.runRef });
    await this.enqueueTurn(null);
  }

  private async onMedia(message: Record<string, unknown>): Promise<void> {
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
    this.recorder.addInbound(bytes, atMs);

    const pcm = decodeMulaw(bytes);
    const event = this.vad.push(pcm);
    if (event === 'speech-start') {
      this.utterance = [];
      this.utteranceSamples = 0;
      this.utteranceStartMs = atMs;
    }
    if (!this.vad.inSpeech && event !== 'speech-end') return;
    this.utterance.push(pcm);
    this.utteranceSamples += pcm.length;
    if (event === 'speech-end' || this.utteranceSamples >= this.maxUtteranceSamples) {
      if (event !== 'speech-end') this.vad.reset();
      const utterance = concat(this.utterance);
      const startedMs = this.utteranceStartMs;
      this.utterance = [];
      this.utteranceSamples = 0;
      await this.enqueueTurn({ utterance, atMs: startedMs });
    }
  }

  /** Serialises turns; a failed turn is logged and the call continues. */
  private enqueueTurn(input: { utterance: Int16Array; atMs: number } | null): Promise<void> {
    const run = this.turnChain.then(() => this.runTurn(input));
    this.turnChain = run.catch((error: unknown) => this.log('error', 'agent turn failed', { error: String(error) }));
    return this.turnChain;
  }

  private async runTurn(input: { utterance: Int16Array; atMs: number } | null): Promise<void> {
    if (this.wantsHangUp || this.ended) return; // the agent already said goodbye, or the call is over
    let userText: string | null = null;
    if (input) {
      const turn = this.userTurnCount++;
      userText = (await this.options.stt.transcribe(input.utterance, turn)).trim();
      if (!userText) return; // noise, not words
      this.fragments.push({ timestamp: this.isoAt(input.atMs), role: 'user', text: userText });
      if (this.ended) return; // caller hung up while we transcribed: keep their words, skip the reply
    }
    // The model sees the history before this utterance plus userText, per the interface contract.
    const reply = await this.options.llm.nextTurn({ ...this.options.state, turns: this.conversation() }, userText);
    if (userText !== null) this.turns.push({ role: 'user', text: userText });
    if (reply.gathered) Object.assign(this.gathered, reply.gathered);
    if (reply.say.trim()) await this.speak(reply.say);
    if (reply.hangUp) {
      this.wantsHangUp = true;
      const info = { playbackRemainingMs: Math.max(0, this.outboundCursorMs - this.elapsedMs()) };
      this.log('info', 'agent requested hang-up', { ...info });
      this.resolveHangUp(info);
      this.options.onHangUp?.(info);
    }
  }

  private async speak(text: string): Promise<void> {
    const pcm = await this.options.tts.synthesize(text);
    if (this.ended) return; // nobody left to hear it
    // Audio queues at the provider behind anything still playing, so place it after the cursor.
    const atMs = Math.max(this.elapsedMs(), this.outboundCursorMs);
    this.turns.push({ role: 'assistant', text });
    this.fragments.push({ timestamp: this.isoAt(atMs), role: 'assistant', text });
    const chunks = frames(pcm, FRAME_SAMPLES);
    chunks.forEach((frame, index) => {
      const payload = encodeMulaw(frame);
      this.recorder.addOutbound(payload, atMs + index * MS_PER_FRAME);
      this.send({ event: 'media', streamSid: this.streamSid, media: { payload: payload.toString('base64') } });
    });
    this.outboundCursorMs = atMs + chunks.length * MS_PER_FRAME;
    this.send({ event: 'mark', streamSid: this.streamSid, mark: { name: `turn-${++this.markCount}` } });
  }

  private send(message: object): void {
    try {
      this.options.send(message);
    } catch (error) {
      this.log('warn', 'failed to send to media stream', { error: String(error) });
    }
  }

  private elapsedMs(): number {
    return this.startEpochMs === null ? 0 : Math.max(0, this.clock() - this.startEpochMs);
  }

  private isoAt(offsetMs: number): string {
    return new Date((this.startEpochMs ?? this.clock()) + Math.round(offsetMs)).toISOString();
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
