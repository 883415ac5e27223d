import { describe, expect, it, vi } from 'vitest';
import type { ConversationState, SpeechToText } from '../../media/src/agent/interfaces.ts';
import { ScriptedLanguageModel, ScriptedSpeechToText, ToneTextToSpeech } from '../../media/src/agent/scripted.ts';
import { decodeMulaw } from '../../media/src/audio/mulaw.ts';
import { parseWavHeader } from '../../media/src/audio/wav.ts';
import { MediaSession, type MediaSessionOptions } from '../../media/src/streams/media-session.ts';
import { SimulatedCaller, type MediaStreamMessage } from '../../media/src/streams/simulated-caller.ts';

const BASE = Date.parse('2026-11-22T10:00:00.000Z');
const iso = (ms: number) => new Date(BASE + ms).toISOString();

const state: Omit<ConversationState, 'turns'> = {
  agentName: 'Ann',
  workflowDefinition: { steps: ['Is this {{initial_context.first_name}}?', { say: 'Great, just checking in.' }] },
  initialContext: { first_name: 'Sam' },
  dispositionCodes: { reached: {}, voicemail: {} },
};

type Sent = { event: string; streamSid?: string; media?: { payload: string }; mark?: { name: string } };

/** A session on a fake clock that follows the provider's media timestamps (as in a real call). */
function harness(overrides: Partial<MediaSessionOptions> = {}) {
  let now = BASE;
  const sent: Sent[] = [];
  const log = vi.fn();
  const onHangUp = vi.fn();
  const session = new MediaSession({
    stt: new ScriptedSpeechToText(),
    llm: new ScriptedLanguageModel(),
    tts: new ToneTextToSpeech(),
    state,
    send: (message) => sent.push(message as Sent),
    clock: () => now,
    log,
    onHangUp,
    ...overrides,
  });
  const caller = new SimulatedCaller({ streamSid: 'MZabc', callSid: 'CAabc', runRef: '7.8.9' });
  const feed = async (messages: MediaStreamMessage[]) => {
    for (const message of messages) {
      const media = message.media as { timestamp?: string } | undefined;
      if (media?.timestamp !== undefined) now = BASE + Number(media.timestamp);
      await session.handle(message);
    }
  };
  /** Caller stays quiet until everything the agent sent has played (plus a beat). */
  const listen = async () => {
    await feed(caller.silence(Math.max(0, session.playbackEndMs - caller.elapsedMs) + 200));
  };
  return { session, caller, sent, log, onHangUp, feed, listen, advance: (ms: number) => (now += ms) };
}

describe('MediaSession', () => {
  it('greets, runs the scripted dialogue turn by turn, hangs up, and records the call', async () => {
    const { session, caller, sent, onHangUp, feed, listen } = harness();

    await feed(caller.start());
    expect(session.streamSid).toBe('MZabc');
    expect(session.runRef).toBe('7.8.9');
    const greetingFrames = sent.filter((m) => m.event === 'media');
    expect(greetingFrames.length).toBe(Math.ceil(('Hello, this is Ann.'.length * 480) / 160));
    for (const frame of greetingFrames) {
      expect(frame.streamSid).toBe('MZabc');
      expect(Buffer.from(frame.media!.payload, 'base64').length).toBe(160);
    }
    expect(sent.at(-1)).toEqual({ event: 'mark', streamSid: 'MZabc', mark: { name: 'turn-1' } });
    expect(session.fragments).toEqual([{ timestamp: iso(0), role: 'assistant', text: 'Hello, this is Ann.' }]);

    const utteranceStarts: number[] = [];
    for (let turn = 0; turn < 4; turn++) {
      await listen();
      utteranceStarts.push(caller.elapsedMs);
      await feed(caller.say(['Hello, who is this?', 'Yes, I have a minute.', 'That sounds good, thank you.', 'Goodbye.'][turn]!));
      await feed(caller.silence(500)); // >= 400 ms ends the utterance
    }
    await listen();
    await feed([caller.stop()]);

    const result = await session.finished;
    expect(result.fragments.map(({ role, text }) => `${role}: ${text}`)).toEqual([
      'assistant: Hello, this is Ann.',
      'user: Hello, who is this?',
      'assistant: Is this Sam?',
      'user: Yes, I have a minute.',
      'assistant: Great, just checking in.',
      'user: That sounds good, thank you.',
      'assistant: Thank you for your time. Goodbye.',
      // The caller's "Goodbye." comes after the agent hung up, so no further turn runs.
    ]);
    // User fragments are stamped at the start of the utterance; the whole transcript is in time order.
    expect(result.fragments.filter((f) => f.role === 'user').map((f) => f.timestamp)).toEqual(utteranceStarts.slice(0, 3).map(iso));
    const times = result.fragments.map((f) => Date.parse(f.timestamp));
    expect(times).toEqual([...times].sort((a, b) => a - b));

    expect(result.gathered).toEqual({ call_disposition: 'reached', turns: 3 });
    expect(session.wantsHangUp).toBe(true);
    expect(onHangUp).toHaveBeenCalledOnce();
    await expect(session.hangUpRequested).resolves.toMatchObject({ playbackRemainingMs: expect.any(Number) });
    expect(sent.filter((m) => m.event === 'mark').map((m) => m.mark!.name)).toEqual(['turn-1', 'turn-2', 'turn-3', 'turn-4']);

    expect(result).toMatchObject({ runRef: '7.8.9', streamSid: 'MZabc', callSid: 'CAabc', reason: 'stop', startedAt: iso(0), endedAt: iso(caller.elapsedMs - 20) });
    const header = parseWavHeader(result.wav);
    expect(header).toEqual({ sampleRate: 8000, channels: 1, bitsPerSample: 16, dataBytes: result.wav.length - 44 });
    // Every inbound frame was recorded at its timestamp and the caller outlasted the agent's audio.
    expect(header.dataBytes / 2 / 8).toBe(caller.elapsedMs);
    expect(result.durationMs).toBe(caller.elapsedMs);
    expect(session.recordingWav()).toEqual(result.wav);
  });

  it('records outbound audio at its playback offset on the shared timeline', async () => {
    const { session, caller, sent, feed } = harness();
    await feed(caller.start());
    await feed([caller.stop()]);
    const { wav } = await session.finished;
    const greeting = Buffer.concat(sent.filter((m) => m.event === 'media').map((m) => Buffer.from(m.media!.payload, 'base64')));
    const recorded = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    expect(recorded).toEqual(decodeMulaw(greeting)); // only the agent spoke: the recording is exactly its audio
  });

  it('queues a reply behind audio that is still playing', async () => {
    const { session, caller, sent, feed } = harness();
    await feed(caller.start()); // greeting plays 0 .. ~1140 ms
    await feed(caller.say('Hi')); // caller talks over the greeting
    await feed(caller.silence(420));
    const reply = session.fragments.at(-1)!;
    expect(reply).toMatchObject({ role: 'assistant', text: 'Is this Sam?' });
    const greetingMs = 'Hello, this is Ann.'.length * 60;
    expect(Date.parse(reply.timestamp) - BASE).toBe(greetingMs);
    expect(sent.filter((m) => m.event === 'media').length).toBe(Math.ceil(greetingMs / 20) + Math.ceil(('Is this Sam?'.length * 60) / 20));
  });

  it('ignores malformed and out-of-order messages without throwing', async () => {
    const { session, caller, sent, log, feed } = harness();
    for (const junk of [null, 'text', 42, [], {}, { event: 7 }, { event: 'media', media: { payload: 'AAAA' } }]) {
      await expect(session.handle(junk)).resolves.toBeUndefined();
    }
    expect(sent).toEqual([]); // media before start is not an utterance
    await feed(caller.start());
    await feed(caller.start()); // duplicate start
    for (const junk of [{ event: 'media' }, { event: 'media', media: {} }, { event: 'dtmf', dtmf: { digit: '1' } }, { event: 'surprise' }, caller.mark('turn-1')]) {
      await expect(session.handle(junk)).resolves.toBeUndefined();
    }
    expect(session.fragments).toHaveLength(1);
    expect(log.mock.calls.map(([level, message]) => `${level}: ${message}`)).toEqual(
      expect.arrayContaining(['warn: ignoring malformed media stream message', 'warn: ignoring media before start', 'warn: ignoring duplicate start event', 'warn: ignoring unknown media stream event']),
    );
  });

  it('keeps the call going when a provider fails, and finishes on close without stop', async () => {
    let calls = 0;
    const flaky: SpeechToText = {
      transcribe: async (_audio, turn) => {
        calls++;
        if (turn === 0) throw new Error('stt down');
        return 'Second try.';
      },
    };
    const { session, caller, log, feed, advance } = harness({ stt: flaky });
    await feed(caller.start());
    await feed([...caller.silence(1200), ...caller.say('one'), ...caller.silence(500)]);
    await feed([...caller.silence(1200), ...caller.say('two'), ...caller.silence(500)]);
    expect(calls).toBe(2);
    expect(log).toHaveBeenCalledWith('error', 'agent turn failed', { error: 'Error: stt down' });
    expect(session.fragments.map((f) => f.text)).toEqual(['Hello, this is Ann.', 'Second try.', 'Is this Sam?']);

    advance(1000);
    const first = session.finish('closed');
    const second = session.finish('stop');
    const [a, b] = await Promise.all([first, second]);
    expect(a).toBe(b);
    expect(a.reason).toBe('closed');
    await session.handle(caller.stop()); // after finish: ignored
    expect(session.isFinished).toBe(true);
  });
});
