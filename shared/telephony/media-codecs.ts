import { STREAM_PARAMETERS, type MediaFrameCodec } from './adapter.ts';

/**
 * The media frame codecs of each provider, apart from the provider SDKs: the media service needs
 * only these. Canonical frames are Twilio Media Streams JSON.
 */

/** Twilio's frames are the canonical ones. */
export const twilioMediaCodec: MediaFrameCodec = {
  decode: (frame) => frame,
  encode: (frame) => frame,
};

/** The stream URL query parameter that makes the media service decode Telnyx frames. */
export const TELNYX_CODEC_QUERY = { name: 'codec', value: 'telnyx' } as const;

/**
 * Telnyx media streaming frames ↔ canonical frames. Telnyx has no custom stream parameters: the
 * run and its credential travel in the stream URL's query string.
 */
export const telnyxMediaCodec: MediaFrameCodec = {
  decode(frame, streamQuery) {
    const streamSid = frame.stream_id;
    if (frame.event === 'start') {
      const start = (frame.start ?? {}) as Record<string, unknown>;
      const format = (start.media_format ?? {}) as Record<string, unknown>;
      return {
        event: 'start',
        streamSid,
        start: {
          streamSid,
          callSid: start.call_control_id,
          customParameters: {
            [STREAM_PARAMETERS.runRef]: streamQuery.get(STREAM_PARAMETERS.runRef),
            [STREAM_PARAMETERS.token]: streamQuery.get(STREAM_PARAMETERS.token),
          },
          mediaFormat: {
            encoding: format.encoding === 'PCMU' ? 'audio/x-mulaw' : format.encoding,
            sampleRate: format.sample_rate,
            channels: format.channels,
          },
        },
      };
    }
    return { ...frame, streamSid };
  },
  encode(frame) {
    const { streamSid: _streamSid, ...rest } = frame;
    return rest;
  },
};

/** The codec of a stream, by its URL's query (Telnyx streams are dialed with `codec=telnyx`). */
export const codecForStream = (query: URLSearchParams): MediaFrameCodec =>
  query.get(TELNYX_CODEC_QUERY.name) === TELNYX_CODEC_QUERY.value ? telnyxMediaCodec : twilioMediaCodec;
