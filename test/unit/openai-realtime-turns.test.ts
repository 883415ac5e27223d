import { describe, expect, it } from 'vitest';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { InputAudio, type TurnDetection } from '../../local/fakes/openai-realtime-turns.ts';

/** The local Realtime fake's turn detection: mu-law in, turns out, on the audio's own time (20 ms a frame). */
function ears(detection: TurnDetection | null = { type: 'server_vad', silence_duration_ms: 300 }) {
  const events: string[] = [];
  const input = new InputAudio(() => detection, {
    started: (speech) => events.push(`started ${speech.startMs}`),
    stopped: (speech, endMs) => events.push(`stopped ${speech.startMs}-${endMs} "${speech.text}"`),
  });
  const silence = (ms: number) => input.append(encodeMulaw(new Int16Array((ms / 1000) * 8000)));
  const say = (text: string) => input.append(encodeMulaw(synthesizeSpeech(text)));
  return { input, events, silence, say };
}

describe('the Realtime fake hears turns (server VAD on the audio time)', () => {
  it('starts a turn on voice and ends it after the silence set, with the words heard', () => {
    const { events, silence, say, input } = ears();
    silence(100);
    say('Yes.');
    silence(280);
    expect(events).toEqual(['started 100']);
    silence(20);
    expect(events).toEqual(['started 100', 'stopped 100-480 "Yes."']);
    expect(input.audioMs).toBe(480);
  });

  it('keeps a partial frame for the next append, and a commit takes the turn under way', () => {
    const { events, input, say } = ears();
    const bytes = encodeMulaw(synthesizeSpeech('Hi'));
    input.append(bytes.subarray(0, 100));
    expect(input.audioMs).toBe(0);
    input.append(bytes.subarray(100));
    expect(events).toEqual(['started 0']);
    expect(input.takeSpeech()).toMatchObject({ startMs: 0, text: 'Hi' });
    expect(input.takeSpeech()).toBeNull();
    say('Again');
    input.clear();
    expect(input.takeSpeech()).toBeNull();
  });

  it('hears no turn without turn detection (the audio still counts)', () => {
    const { events, say, silence, input } = ears(null);
    say('Hello');
    silence(600);
    expect(events).toEqual([]);
    expect(input.audioMs).toBe(700);
  });
});

// A browser's microphone is cut in an audio worklet's 128-sample chunks, its speech starts anywhere
// in them, and a starved Chromium repeats or drops a few milliseconds now and then: the console's
// talk page with a realtime agent heard "hyouoeninghour?" before the fake heard as the Deepgram fake does.
describe("the Realtime fake hears a browser's microphone (speech off the frames' grid, glitches)", () => {
  it.each([
    { name: 'speech half a frame in', offset: 80, glitch: null },
    { name: 'speech 101 samples in, the last 100 samples of a symbol repeated', offset: 101, glitch: [27, 100] },
    { name: 'speech 64 samples in, 30 samples of a symbol mid-word dropped', offset: 64, glitch: [25, -30] },
  ] as const)('$name', ({ offset, glitch }) => {
    const { events, input } = ears();
    let speech = Array.from(synthesizeSpeech('What are your opening hours?'));
    if (glitch) {
      const [symbol, samples] = glitch;
      const end = (symbol + 1) * 160;
      speech =
        samples > 0
          ? [...speech.slice(0, end), ...speech.slice(end - samples, end), ...speech.slice(end)]
          : [...speech.slice(0, end + samples), ...speech.slice(end)];
    }
    const bytes = encodeMulaw(Int16Array.from([...new Int16Array(800 + offset), ...speech, ...new Int16Array(4000)]));
    for (let start = 0; start < bytes.length; start += 128) input.append(bytes.subarray(start, start + 128));
    expect(events).toHaveLength(2);
    expect(events[1]).toMatch(/^stopped \d+-\d+ "What are your opening hours\?"$/);
  });
});
