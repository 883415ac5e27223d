/**
 * The transport's edge: Media Streams JSON frames (Twilio's, which the Telnyx and browser legs
 * speak too) read into typed frames for the pipeline, and the pipeline's output written as them.
 */

import type { LiveTap } from './live-tap.ts';
import type { ReplyOutput } from './reply-types.ts';

/** A Media Streams frame: 20 ms of 8 kHz mu-law. */
export const FRAME_MS = 20;
export const FRAME_BYTES = 160;

export type InboundFrame =
  | {
      type: 'start';
      streamSid: string | null;
      callSid: string | null;
      runRef: string | null;
      mediaFormat: Record<string, unknown> | null;
    }
  /** `payload` null: a media message without one. `timestampMs` null: none, or not a number. */
  | { type: 'audio'; payload: string | null; inbound: boolean; timestampMs: number | null }
  /** A key the caller pressed (`dtmf`), as sent (checked by the keypad). */
  | { type: 'key'; key: string }
  /** A chat message (`message`), as sent, trimmed. */
  | { type: 'message'; text: string }
  | { type: 'stop' }
  /** Playback acknowledgements (`mark`: the transport uses the hang-up mark) and `connected`. */
  | { type: 'ignored' }
  | { type: 'unknown'; event: string }
  | { type: 'malformed' };

/** One parsed inbound JSON message as a frame. */
export function readFrame(message: unknown): InboundFrame {
  if (!isRecord(message) || typeof message.event !== 'string') return { type: 'malformed' };
  switch (message.event) {
    case 'connected':
    case 'mark':
      return { type: 'ignored' };
    case 'dtmf': {
      const dtmf = isRecord(message.dtmf) ? message.dtmf : {};
      return { type: 'key', key: typeof dtmf.digit === 'string' ? dtmf.digit : '' };
    }
    case 'message':
      return { type: 'message', text: typeof message.text === 'string' ? message.text.trim() : '' };
    case 'start': {
      const start = isRecord(message.start) ? message.start : {};
      const params = isRecord(start.customParameters) ? start.customParameters : {};
      return {
        type: 'start',
        streamSid: stringOrNull(start.streamSid) ?? stringOrNull(message.streamSid),
        callSid: stringOrNull(start.callSid),
        runRef: stringOrNull(params.run_ref),
        mediaFormat: isRecord(start.mediaFormat) ? start.mediaFormat : null,
      };
    }
    case 'media': {
      const media = isRecord(message.media) ? message.media : null;
      if (!media || typeof media.payload !== 'string')
        return { type: 'audio', payload: null, inbound: true, timestampMs: null };
      // The provider's timestamp places audio exactly even if frames arrive in bursts.
      const stamp = Number(media.timestamp);
      return {
        type: 'audio',
        payload: media.payload,
        inbound: media.track === undefined || media.track === 'inbound', // only the caller's leg
        timestampMs: media.timestamp !== undefined && Number.isFinite(stamp) ? stamp : null,
      };
    }
    case 'stop':
      return { type: 'stop' };
    default:
      return { type: 'unknown', event: message.event };
  }
}

/**
 * The reply's output as Media Streams frames of the stream `streamSid` (`media`, `mark`, `clear`;
 * a chat's `text`), the agent's audio also to the call's listeners.
 */
export function replyFrames(
  send: (message: object) => void,
  streamSid: () => string | null,
  tap: LiveTap,
): ReplyOutput {
  return {
    media: (payload, atMs) => {
      send({ event: 'media', streamSid: streamSid(), media: { payload } });
      if (tap.listening) tap.notify({ event: 'media', track: 'outbound', timestamp: atMs, payload });
    },
    mark: (name) => send({ event: 'mark', streamSid: streamSid(), mark: { name } }),
    clear: () => send({ event: 'clear', streamSid: streamSid() }),
    text: (text) => send({ event: 'text', text }),
  };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOrNull(value: unknown): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}
