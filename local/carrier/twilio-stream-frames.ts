import type { MediaStreamWire } from './callee-stream.ts';
import { twilioSid } from './twilio-rest.ts';

/** Media Streams framing: what Twilio sends on a `<Connect><Stream>`'s WebSocket. */
export function twilioStreamFrames(
  call: { id: string; account: { sid: string } },
  parameters: Record<string, string>,
): MediaStreamWire {
  const streamSid = twilioSid('MZ');
  return {
    connected: () => ({ event: 'connected', protocol: 'Call', version: '1.0.0' }),
    start: () => ({
      event: 'start',
      sequenceNumber: '1',
      streamSid,
      start: {
        accountSid: call.account.sid,
        streamSid,
        callSid: call.id,
        tracks: ['inbound'],
        customParameters: parameters,
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    }),
    media: ({ sequence, chunk, timestampMs, payload }) => ({
      event: 'media',
      sequenceNumber: String(sequence),
      streamSid,
      media: { track: 'inbound', chunk: String(chunk), timestamp: String(timestampMs), payload },
    }),
    mark: (name) => ({ event: 'mark', streamSid, sequenceNumber: '0', mark: { name } }),
    dtmf: (digit, sequence) => ({
      event: 'dtmf',
      streamSid,
      sequenceNumber: String(sequence),
      dtmf: { track: 'inbound_track', digit },
    }),
    stop: (sequence) => ({
      event: 'stop',
      sequenceNumber: String(sequence),
      streamSid,
      stop: { accountSid: call.account.sid, callSid: call.id },
    }),
  };
}
