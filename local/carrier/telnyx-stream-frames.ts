import { randomUUID } from 'node:crypto';
import type { MediaStreamWire } from './callee-stream.ts';

/** Telnyx media streaming framing: what Telnyx sends on `stream_url`'s WebSocket. */
export function telnyxStreamFrames(call: {
  id: string;
  sessionId: string;
  from: string;
  to: string;
  clientState: string | null;
}): MediaStreamWire {
  const streamId = randomUUID();
  return {
    connected: () => ({ event: 'connected', version: '1.0.0' }),
    start: () => ({
      event: 'start',
      sequence_number: '1',
      start: {
        user_id: randomUUID(),
        call_control_id: call.id,
        call_session_id: call.sessionId,
        from: call.from,
        to: call.to,
        client_state: call.clientState,
        media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
      },
      stream_id: streamId,
    }),
    media: ({ sequence, chunk, timestampMs, payload }) => ({
      event: 'media',
      sequence_number: String(sequence),
      media: { track: 'inbound', chunk: String(chunk), timestamp: String(timestampMs), payload },
      stream_id: streamId,
    }),
    mark: (name) => ({ event: 'mark', sequence_number: '0', mark: { name }, stream_id: streamId }),
    dtmf: (digit, sequence) => ({
      event: 'dtmf',
      sequence_number: String(sequence),
      dtmf: { digit },
      stream_id: streamId,
    }),
    stop: (sequence) => ({
      event: 'stop',
      sequence_number: String(sequence),
      stop: { user_id: randomUUID(), call_control_id: call.id },
      stream_id: streamId,
    }),
  };
}
