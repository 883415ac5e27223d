import { describe, expect, it } from 'vitest';
import { readFrame, replyFrames, type InboundFrame } from '../../media/src/call/media-stream-frames.ts';
import { LiveTap, type LiveEvent } from '../../media/src/call/live-tap.ts';

describe('Media Streams frames (the transport edge)', () => {
  it.each<{ name: string; message: unknown; frame: InboundFrame }>([
    { name: 'not an object', message: 'media', frame: { type: 'malformed' } },
    { name: 'no event', message: { media: {} }, frame: { type: 'malformed' } },
    { name: 'connected', message: { event: 'connected' }, frame: { type: 'ignored' } },
    { name: 'a playback mark', message: { event: 'mark', mark: { name: 'x' } }, frame: { type: 'ignored' } },
    {
      name: 'start, with the run in the custom parameters',
      message: {
        event: 'start',
        start: {
          streamSid: 'MZ1',
          callSid: 'CA1',
          customParameters: { run_ref: '1.2.3' },
          mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 },
        },
      },
      frame: {
        type: 'start',
        streamSid: 'MZ1',
        callSid: 'CA1',
        runRef: '1.2.3',
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000 },
      },
    },
    {
      name: 'start with the stream id outside and nothing else',
      message: { event: 'start', streamSid: 'MZ2', start: { callSid: '' } },
      frame: { type: 'start', streamSid: 'MZ2', callSid: null, runRef: null, mediaFormat: null },
    },
    {
      name: "the caller's audio, stamped",
      message: { event: 'media', media: { payload: 'AAA=', track: 'inbound', timestamp: '1240' } },
      frame: { type: 'audio', payload: 'AAA=', inbound: true, timestampMs: 1240 },
    },
    {
      name: 'audio with no track and a timestamp that is not a number',
      message: { event: 'media', media: { payload: 'AAA=', timestamp: 'soon' } },
      frame: { type: 'audio', payload: 'AAA=', inbound: true, timestampMs: null },
    },
    {
      name: "the agent's leg (not the caller's)",
      message: { event: 'media', media: { payload: 'AAA=', track: 'outbound', timestamp: 20 } },
      frame: { type: 'audio', payload: 'AAA=', inbound: false, timestampMs: 20 },
    },
    {
      name: 'media without a payload',
      message: { event: 'media', media: { timestamp: 20 } },
      frame: { type: 'audio', payload: null, inbound: true, timestampMs: null },
    },
    { name: 'a key', message: { event: 'dtmf', dtmf: { digit: '5' } }, frame: { type: 'key', key: '5' } },
    { name: 'a key without a digit', message: { event: 'dtmf' }, frame: { type: 'key', key: '' } },
    { name: 'a chat message', message: { event: 'message', text: '  hi  ' }, frame: { type: 'message', text: 'hi' } },
    { name: 'stop', message: { event: 'stop' }, frame: { type: 'stop' } },
    { name: 'anything else', message: { event: 'weird' }, frame: { type: 'unknown', event: 'weird' } },
  ])('reads $name', ({ message, frame }) => {
    expect(readFrame(message)).toEqual(frame);
  });

  it("writes the reply's output as frames of the stream, its audio also to the call's listeners", () => {
    const sent: object[] = [];
    const heard: LiveEvent[] = [];
    const tap = new LiveTap({ sessionEvents: false, send: () => {}, log: () => {} }, () => null);
    const out = replyFrames(
      (message) => sent.push(message),
      () => 'MZ1',
      tap,
    );
    out.media('AAA=', 0);
    tap.observe((event) => heard.push(event));
    out.media('BBB=', 20);
    out.mark('reply-1');
    out.clear();
    out.text('Hello.');
    expect(sent).toEqual([
      { event: 'media', streamSid: 'MZ1', media: { payload: 'AAA=' } },
      { event: 'media', streamSid: 'MZ1', media: { payload: 'BBB=' } },
      { event: 'mark', streamSid: 'MZ1', mark: { name: 'reply-1' } },
      { event: 'clear', streamSid: 'MZ1' },
      { event: 'text', text: 'Hello.' },
    ]);
    expect(heard).toEqual([{ event: 'media', track: 'outbound', timestamp: 20, payload: 'BBB=' }]);
  });
});
