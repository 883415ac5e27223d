/**
 * Builds the inbound side of a Media Streams call (what the telephony provider sends), with
 * correct sequence numbers, chunk numbers and timestamps. Used by tests and local simulations.
 */
import { encodeMulaw } from '../audio/mulaw.ts';
import { FRAME_SAMPLES, frames, synthesizeSpeech } from '../audio/tones.ts';

export interface MediaStreamMessage {
  event: string;
  [key: string]: unknown;
}

export interface SimulatedCallerOptions {
  streamSid?: string;
  callSid?: string;
  runRef?: string;
  /** The per-call stream credential the platform minted (custom parameter `stream_token`). */
  streamToken?: string;
}

const FRAME_MS = 20;

export class SimulatedCaller {
  readonly streamSid: string;
  readonly callSid: string;
  readonly runRef: string;
  readonly streamToken: string | undefined;
  /** Milliseconds of inbound audio produced so far (timestamp of the next frame). */
  elapsedMs = 0;
  private sequence = 0;
  private chunk = 0;

  constructor(options: SimulatedCallerOptions = {}) {
    this.streamSid = options.streamSid ?? 'MZ00000000000000000000000000000001';
    this.callSid = options.callSid ?? 'CA00000000000000000000000000000001';
    this.runRef = options.runRef ?? '1.2.3';
    this.streamToken = options.streamToken;
  }

  /** `connected` then `start` (the provider's opening pair). */
  start(): MediaStreamMessage[] {
    return [
      { event: 'connected', protocol: 'Call', version: '1.0.0' },
      {
        event: 'start',
        sequenceNumber: this.nextSequence(),
        streamSid: this.streamSid,
        start: {
          streamSid: this.streamSid,
          callSid: this.callSid,
          tracks: ['inbound'],
          customParameters: { run_ref: this.runRef, ...(this.streamToken ? { stream_token: this.streamToken } : {}) },
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        },
      },
    ];
  }

  /** The caller speaking `text` as synthetic tones, in 20 ms media frames. */
  say(text: string): MediaStreamMessage[] {
    return this.audio(synthesizeSpeech(text));
  }

  /** Silent frames covering at least `ms`. */
  silence(ms: number): MediaStreamMessage[] {
    return this.audio(new Int16Array(Math.ceil(ms / FRAME_MS) * FRAME_SAMPLES));
  }

  audio(samples: Int16Array): MediaStreamMessage[] {
    return frames(samples, FRAME_SAMPLES).map((frame) => {
      const message = {
        event: 'media',
        sequenceNumber: this.nextSequence(),
        streamSid: this.streamSid,
        media: {
          track: 'inbound',
          chunk: String(++this.chunk),
          timestamp: String(this.elapsedMs),
          payload: encodeMulaw(frame).toString('base64'),
        },
      };
      this.elapsedMs += FRAME_MS;
      return message;
    });
  }

  /** The caller pressing a key: the provider's `dtmf` event (Twilio's shape; Telnyx's is alike). */
  dtmf(digit: string): MediaStreamMessage {
    return {
      event: 'dtmf',
      streamSid: this.streamSid,
      sequenceNumber: this.nextSequence(),
      dtmf: { track: 'inbound_track', digit },
    };
  }

  mark(name: string): MediaStreamMessage {
    return { event: 'mark', sequenceNumber: this.nextSequence(), streamSid: this.streamSid, mark: { name } };
  }

  stop(): MediaStreamMessage {
    return {
      event: 'stop',
      sequenceNumber: this.nextSequence(),
      streamSid: this.streamSid,
      stop: { callSid: this.callSid },
    };
  }

  private nextSequence(): string {
    return String(++this.sequence);
  }
}
