import { describe, expect, it } from 'vitest';
import type { TranscriptFragment } from '../../shared/domain/transcripts.ts';
import type { TextToSpeech } from '../../media/src/agent/interfaces.ts';
import type { HeardMessage } from '../../media/src/call/brain.ts';
import { Speaker } from '../../media/src/call/reply.ts';
import { cutWords, sentenceEnd, spokenText } from '../../media/src/call/spoken-text.ts';

/** Speech like the local fakes': one 20 ms frame (160 bytes) per character. */
const tts: TextToSpeech = {
  name: 'fake-tts',
  async *stream(text) {
    yield Buffer.alloc(text.length * 160, 0x7f);
  },
};

/** A Speaker on a test media clock: what it sends (frames compressed to their times), transcript and history, out. */
function speaker({ chat = false } = {}) {
  let nowMs = 0;
  const out: (string | number)[][] = [];
  const fragments: TranscriptFragment[] = [];
  const history: HeardMessage[] = [];
  const part = new Speaker({
    clock: { nowMs: () => nowMs, isoAt: (ms) => `@${ms}` },
    chat,
    recorder: null,
    isEnded: () => false,
    out: {
      media: (_payload, atMs) => {
        const last = out.at(-1);
        // Consecutive frames as one run: [media, first frame's time, frames]
        if (last?.[0] === 'media' && (last[1] as number) + (last[2] as number) * 20 === atMs)
          last[2] = (last[2] as number) + 1;
        else out.push(['media', atMs, 1]);
      },
      mark: (name) => out.push(['mark', name]),
      clear: () => out.push(['clear']),
      text: (text) => out.push(['text', text]),
    },
    events: {
      transcript: (fragment) => fragments.push(fragment),
      untranscribe: (fragment) => fragments.splice(fragments.indexOf(fragment), 1),
      heard: (text) => {
        const message = { content: text };
        history.push(message);
        return message;
      },
      hangUp: () => out.push(['hang up']),
      failed: (error) => out.push(['failed', String(error)]),
    },
    log: () => {},
    runRef: () => null,
  });
  if (!chat) part.useVoice(tts, { language: 'en' });
  const lines = () => fragments.map(({ timestamp, end, text }) => `${timestamp}-${end} ${text}`);
  return { part, out, lines, history, at: (ms: number) => (nowMs = ms) };
}

describe('the reply (speech queue, marks, barge-in cut, resuming)', () => {
  it('speaks an answer frame by frame, marks its end, and notes what played', async () => {
    const { part, out, lines, history } = speaker();
    part.say('Hello there.', true);
    await part.idle();
    expect(out).toEqual([['media', 0, 12], ['mark', 'reply-1'], ['hang up']]);
    expect(lines()).toEqual(['@0-@240 Hello there.']);
    expect(history).toEqual([{ content: 'Hello there.' }]);
    expect(part.playbackEndMs).toBe(240);
  });

  it('a speech failure while the answer is still being written fails the answer, and is no unhandled rejection (which ends the process, every call on it)', async () => {
    const { part, out } = speaker();
    part.useVoice(
      {
        name: 'timing-out',
        // eslint-disable-next-line require-yield
        async *stream() {
          throw new Error('speech timed out');
        },
      },
      { language: 'en' },
    );
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      part.start(async (answer) => {
        answer.say('Hello.');
        // The model is still writing when the speech fails; then it fails too.
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('model timed out');
      });
      await part.idle();
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      process.off('unhandledRejection', listener);
    }
    expect(unhandled).toEqual([]);
    expect(out).toEqual([['failed', 'Error: model timed out']]);
  });

  it("speaks over the call's own connection of its voice when it has one (TextToSpeech.forCall), closed when the call ends", async () => {
    const { part, out } = speaker();
    const spoken: string[] = [];
    let closed = 0;
    part.useVoice(
      {
        ...tts,
        forCall: () => ({
          name: 'own',
          async *stream(text) {
            spoken.push(text);
            yield Buffer.alloc(text.length * 160, 0x7f);
          },
          close: () => void (closed += 1),
        }),
      },
      { language: 'en' },
    );
    part.say('Hi.');
    await part.idle();
    expect(spoken).toEqual(['Hi.']);
    expect(out[0]).toEqual(['media', 0, 3]);
    expect(closed).toBe(0);
    part.stop(false);
    expect(closed).toBe(1);
  });

  it("pads a sentence's last partial frame with silence", async () => {
    const { part, out } = speaker();
    part.useVoice(
      {
        name: 'partial',
        async *stream() {
          yield Buffer.alloc(200);
        },
      },
      { language: 'en' },
    );
    part.say('x');
    await part.idle();
    expect(out[0]).toEqual(['media', 0, 2]);
  });

  it.each([
    {
      name: 'a barge-in mid-sentence keeps the words that played, and clears the rest',
      cutAtMs: 190,
      out: [['media', 0, 19], ['mark', 'reply-1'], ['clear']],
      lines: ['@0-@380 One two'],
      heard: 'One two… (interrupted by the caller)',
    },
    {
      name: 'a barge-in before the first word played takes the line out of the transcript',
      cutAtMs: 10,
      out: [['media', 0, 19], ['mark', 'reply-1'], ['clear']],
      lines: [],
      heard: '… (interrupted by the caller)',
    },
    {
      name: 'a barge-in after it played changes nothing',
      cutAtMs: 400,
      out: [
        ['media', 0, 19],
        ['mark', 'reply-1'],
      ],
      lines: ['@0-@380 One two three four.'],
      heard: 'One two three four.',
    },
  ])('$name', async ({ cutAtMs, out: expected, lines: expectedLines, heard }) => {
    const { part, out, lines, history, at } = speaker();
    part.say('One two three four.');
    await part.idle();
    at(cutAtMs);
    part.interrupt('caller');
    expect(out).toEqual(expected);
    expect(lines()).toEqual(expectedLines);
    expect(history).toEqual([{ content: heard }]);
  });

  it.each([
    {
      name: 'resumed: the frames not played go out again, 110 ms later, and the line ends later by as much',
      end: (part: Speaker) => part.unpause(),
      out: [['media', 0, 19], ['mark', 'reply-1'], ['clear'], ['media', 310, 9]],
      lines: ['@0-@490 One two three four.'],
      heard: 'One two three four.',
      unheard: [],
    },
    {
      name: 'cut by the caller: where it paused, the held frames (9, from 200 ms) not heard',
      end: (part: Speaker) => part.interrupt('caller'),
      out: [['media', 0, 19], ['mark', 'reply-1'], ['clear']],
      lines: ['@0-@380 One two'],
      heard: 'One two… (interrupted by the caller)',
      unheard: [180],
    },
  ])(
    "a pause at the caller's voice (a realtime model's), then $name",
    async ({ end, out: expected, lines: expectedLines, heard, unheard }) => {
      const { part, out, lines, history, at } = speaker();
      const told: number[] = [];
      part.onCallerCut((ms) => told.push(ms));
      part.say('One two three four.');
      await part.idle();
      at(190);
      part.pause();
      expect(part.paused).toBe(true);
      at(300);
      end(part);
      expect(part.paused).toBe(false);
      expect(out).toEqual(expected);
      expect(lines()).toEqual(expectedLines);
      expect(history).toEqual([{ content: heard }]);
      expect(told).toEqual(unheard);
    },
  );

  it('a new answer while paused: the held audio is dropped (not heard, as after a cut), the new one plays', async () => {
    const { part, out, lines, at } = speaker();
    part.say('One two three four.');
    await part.idle();
    at(190);
    part.pause();
    at(300);
    part.say('Five.');
    await part.idle();
    expect(part.paused).toBe(false);
    expect(out).toEqual([['media', 0, 19], ['mark', 'reply-1'], ['clear'], ['media', 300, 5], ['mark', 'reply-2']]);
    expect(lines()).toEqual(['@0-@380 One two', '@300-@400 Five.']);
  });

  it('words not interruptible are not paused: they play on', async () => {
    const { part, out, at } = speaker();
    part.say('One two three four.', false, false);
    await part.idle();
    at(190);
    part.pause();
    expect(part.paused).toBe(false);
    expect(out).toEqual([
      ['media', 0, 19],
      ['mark', 'reply-1'],
    ]);
  });

  it("audio whose words come with it (a speech-to-speech model's), cut while it still streams, keeps the words of what played", async () => {
    const { part, lines, history, at } = speaker();
    let words = '';
    let release!: () => void;
    const rest = new Promise<void>((resolve) => (release = resolve));
    part.start(async (answer) => {
      answer.say(
        '…',
        async function* () {
          words = 'Hello there, how';
          yield new Uint8Array(16 * 160); // 16 frames: 320 ms, a character a frame
          await rest; // the model's audio still coming when the caller cuts in
        },
        { interruptible: true, words: () => words },
      );
      await new Promise((resolve) => answer.signal.addEventListener('abort', resolve));
    });
    await new Promise((resolve) => setImmediate(resolve));
    at(100);
    part.interrupt('caller');
    release();
    await part.idle();
    expect(lines()).toEqual(['@0-@100 Hello']);
    expect(history).toEqual([{ content: 'Hello… (interrupted by the caller)' }]);
  });

  it('cuts an answer still being written where the caller spoke, and the model hears so', async () => {
    const { part, out, lines, history, at } = speaker();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    part.start(async (answer) => {
      answer.say('First one.');
      await gate;
      answer.say('Never said.');
      answer.finalWords('First one. Never said.');
      answer.hangUp();
    });
    await new Promise((resolve) => setImmediate(resolve));
    at(100);
    part.interrupt('caller');
    release();
    await part.idle();
    expect(out).toEqual([['media', 0, 10], ['clear'], ['mark', 'reply-1']]);
    expect(lines()).toEqual(['@0-@100 First']);
    expect(history).toEqual([{ content: 'First… (interrupted by the caller)' }]);
    expect(part.playbackEndMs).toBe(100);
  });

  it('after a false start, says again what was cut, from the start of the sentence it was cut in', async () => {
    const { part, out, at } = speaker();
    part.start(async (answer) => {
      answer.say('One.');
      answer.say('Two three.');
      answer.say('Four.');
    });
    await part.idle();
    at(120); // in "Two three." (80-280 ms)
    part.interrupt('caller');
    const cut = part.takeCut();
    expect(cut?.atMs).toBe(120);
    expect(part.takeCut()).toBeNull();
    part.resume(cut!);
    await part.idle();
    // Spoken again from 120 ms: "Two three. Four." is 16 frames.
    expect(out.slice(-3)).toEqual([['clear'], ['media', 120, 16], ['mark', 'reply-2']]);
  });

  it('words not interruptible (a disclosure) are not cut by the caller, still written or playing; the next answer follows them', async () => {
    const { part, out, lines, history, at } = speaker();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    part.start(async (answer) => {
      answer.say('This call is recorded.', undefined, { interruptible: false });
      await gate;
      answer.say('Do you agree?', undefined, { interruptible: false });
      answer.finalWords('This call is recorded. Do you agree?');
    });
    await new Promise((resolve) => setImmediate(resolve));
    at(100); // mid-sentence, the answer still being written
    part.interrupt('caller');
    expect(part.takeCut()).toBeNull();
    // The caller's turn is answered: the new answer waits for the disclosure instead of stopping it.
    part.say('Thank you.');
    release();
    await part.idle();
    expect(out).toEqual([
      ['media', 0, 35],
      ['mark', 'reply-1'],
      ['media', 700, 10],
      ['mark', 'reply-2'],
    ]);
    expect(lines()).toEqual(['@0-@700 This call is recorded. Do you agree?', '@700-@900 Thank you.']);
    expect(history[0]).toEqual({ content: 'This call is recorded. Do you agree?' });
    at(750);
    part.interrupt('caller'); // interruptible words are cut as before
    expect(out.at(-1)).toEqual(['clear']);
  });

  it('words not interruptible still playing are not cut by the caller, but are by time (a goodbye)', async () => {
    const { part, out, at } = speaker();
    part.start(async (answer) => answer.say('Recorded line.', undefined, { interruptible: false }));
    await part.idle();
    at(100);
    part.interrupt('caller');
    expect(out).toEqual([
      ['media', 0, 14],
      ['mark', 'reply-1'],
    ]);
    part.interrupt('time');
    expect(out.at(-1)).toEqual(['clear']);
  });

  it('a cut by time (a goodbye, the time limit) is not kept for a false start', async () => {
    const { part, at } = speaker();
    part.say('One two three four.');
    await part.idle();
    at(100);
    part.interrupt('time');
    expect(part.takeCut()).toBeNull();
  });

  it('never overlaps answers: the next waits until the one it stops has closed', async () => {
    const { part, out } = speaker();
    const order: string[] = [];
    part.start(async (answer) => {
      order.push('first starts');
      await new Promise((resolve) => setTimeout(resolve, 5));
      order.push(`first aborted: ${answer.signal.aborted}`);
    });
    part.start(async (answer) => {
      order.push('second starts');
      answer.say('Hi.');
    });
    await part.idle();
    expect(order).toEqual(['first starts', 'first aborted: true', 'second starts']);
    expect(out).toEqual([
      ['media', 0, 3],
      ['mark', 'reply-1'],
    ]);
  });

  it("a chat's sentences go out as text and take no time", async () => {
    const { part, out, lines, at } = speaker({ chat: true });
    at(5000);
    part.start(async (answer) => {
      answer.say('Hi.');
      answer.say('How are you?');
      answer.finalWords('Hi. How are you?');
    });
    await part.idle();
    expect(out).toEqual([
      ['text', 'Hi.'],
      ['text', 'How are you?'],
      ['mark', 'reply-1'],
    ]);
    expect(lines()).toEqual(['@5000-@5000 Hi. How are you?']);
  });

  it('an answer that fails says so, unless it was cut off', async () => {
    const { part, out } = speaker();
    part.start(async () => {
      throw new Error('model down');
    });
    await part.idle();
    expect(out).toEqual([['failed', 'Error: model down']]);
  });

  it.each([
    { segments: [{ text: 'One two three four', startMs: 0, endMs: 400 }], cutAt: null, said: 'One two three four' },
    { segments: [{ text: 'One two three four', startMs: 0, endMs: 400 }], cutAt: 200, said: 'One two' },
    {
      segments: [
        { text: 'One.', startMs: 0, endMs: 80 },
        { text: 'Two three.', startMs: 80, endMs: 280 },
      ],
      cutAt: 80,
      said: 'One.',
    },
    // A chat's sentence sent at the moment of the cut was read.
    { segments: [{ text: 'Hi.', startMs: 50, endMs: 50 }], cutAt: 50, said: 'Hi.' },
  ])('what played of $segments.length segment(s) cut at $cutAt: "$said"', ({ segments, cutAt, said }) => {
    expect(
      spokenText({ bargedInAtMs: cutAt, segments: segments.map((segment, index) => ({ index, ...segment })) }),
    ).toBe(said);
  });

  it('cuts spoken text at whole words and finds sentence ends', () => {
    expect(cutWords('one two three four', 0.5)).toBe('one two');
    expect(cutWords('one two three four', 1)).toBe('one two three four');
    expect(cutWords('one two', 0)).toBe('');
    expect(sentenceEnd('Hello there. How')).toBe(13);
    expect(sentenceEnd('Really?! "Yes." Then')).toBe(9);
    expect(sentenceEnd('Hello there')).toBe(0);
  });
});
