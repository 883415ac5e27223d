import { describe, expect, it } from 'vitest';
import type { SpeechToTextEvents, TranscriptResult } from '../../media/src/agent/interfaces.ts';
import type { PreparedCall } from '../../media/src/call/call-types.ts';
import { CallerTurns, type CallerTurn } from '../../media/src/call/caller-turns.ts';
import { BACKCHANNELS } from '../../shared/domain/backchannels.ts';

/** The caller's audio (bytes at a media time), speech-to-text results and a chat's message, in. */
type Step =
  | { audio: number; atMs: number }
  | { result: Partial<TranscriptResult> & { text: string } }
  | { utteranceEnd: true }
  | { typed: string; atMs: number }
  | { open: true }
  /** The media clock moves on (results come a little after their audio). */
  | { at: number };

/** What the caller's turns tell the pipeline, out. */
type Out = { words: boolean } | { ended: CallerTurn | null };

async function run(steps: Step[], { bargeInMinWords = 1, openFirst = true, agentTalking = false } = {}) {
  let nowMs = 0;
  const out: Out[] = [];
  const sent: number[] = [];
  let recognition: SpeechToTextEvents | undefined;
  const turns = new CallerTurns(
    { nowMs: () => nowMs },
    () => bargeInMinWords,
    {
      words: (enough) => out.push({ words: enough }),
      ended: (turn) => out.push({ ended: turn }),
    },
    { backchannels: () => BACKCHANNELS.en!, agentTalking: () => agentTalking },
  );
  const call = {
    plan: { settings: { language: 'en', turnTaking: { endOfTurn: 'pause', eager: false } } },
    providers: {
      stt: {
        name: 'fake',
        open: async (_options: { language: string }, events: SpeechToTextEvents) => {
          recognition = events;
          return { send: (bytes: Uint8Array) => void sent.push(bytes.length), close: async () => {} };
        },
      },
    },
  } as unknown as PreparedCall;
  const open = () => turns.listen(call, { failed: () => {} });
  if (openFirst) await open();
  for (const step of steps) {
    if ('open' in step) await open();
    else if ('at' in step) nowMs = step.at;
    else if ('audio' in step) {
      nowMs = step.atMs;
      turns.audio(Buffer.alloc(step.audio), step.atMs);
    } else if ('result' in step)
      recognition!.transcript({ isFinal: false, speechFinal: false, start: 0, end: 0, ...step.result });
    else if ('utteranceEnd' in step) recognition!.utteranceEnd();
    else {
      nowMs = step.atMs;
      turns.typed(step.typed);
    }
  }
  return { out, sent, turns };
}

/** `ms` of audio (8 kHz mu-law: 8 bytes a ms) in 20 ms frames from `fromMs`. */
const audio = (fromMs: number, ms: number): Step[] =>
  Array.from({ length: ms / 20 }, (_, index) => ({ audio: 160, atMs: fromMs + index * 20 }));

describe("the caller's turns (speech-to-text results on the media clock)", () => {
  it.each<{ name: string; steps: Step[]; bargeInMinWords?: number; agentTalking?: boolean; out: Out[] }>([
    {
      name: 'finals add up into one turn, which speech_final ends',
      steps: [
        ...audio(0, 2000),
        { at: 2100 },
        { result: { text: 'What are', isFinal: true, start: 0.2, end: 0.6 } },
        { at: 2250 },
        { result: { text: 'your hours?', isFinal: true, speechFinal: true, start: 0.6, end: 1.2 } },
      ],
      out: [
        { words: true },
        { words: true },
        { ended: { text: 'What are your hours?', startMs: 200, endMs: 1200, finalMs: 2250, backchannel: false } },
      ],
    },
    {
      name: 'an empty speech_final still ends the turn the earlier finals began',
      steps: [
        ...audio(0, 1000),
        { result: { text: 'Yes', isFinal: true, start: 0.1, end: 0.3 } },
        { result: { text: '', isFinal: true, speechFinal: true, start: 0.3, end: 0.6 } },
      ],
      out: [{ words: true }, { ended: { text: 'Yes', startMs: 100, endMs: 300, finalMs: 980, backchannel: false } }],
    },
    {
      name: 'UtteranceEnd ends the turn when no speech_final came',
      steps: [
        ...audio(0, 1000),
        { result: { text: 'Hello', isFinal: true, start: 0, end: 0.4 } },
        { utteranceEnd: true },
      ],
      out: [{ words: true }, { ended: { text: 'Hello', startMs: 0, endMs: 400, finalMs: 980, backchannel: false } }],
    },
    {
      name: 'interim words count towards barge_in_min_words, with the finals before them',
      bargeInMinWords: 3,
      steps: [
        ...audio(0, 1000),
        { result: { text: 'well' } },
        { result: { text: 'well I', isFinal: true, start: 0, end: 0.3 } },
        { result: { text: 'think' } },
      ],
      out: [{ words: false }, { words: true }, { words: true }],
    },
    {
      name: 'a false start: interim words that the final takes back end the turn with nothing',
      steps: [
        ...audio(0, 1000),
        { result: { text: 'uh' } },
        { result: { text: '', isFinal: true, speechFinal: true } },
      ],
      out: [{ words: true }, { ended: null }],
    },
    {
      name: "results are placed where their audio was on the media clock, across a gap in the caller's audio",
      steps: [
        ...audio(0, 200),
        ...audio(5000, 400),
        { result: { text: 'Hi', isFinal: true, speechFinal: true, start: 0.22, end: 0.4 } },
      ],
      out: [{ words: true }, { ended: { text: 'Hi', startMs: 5020, endMs: 5200, finalMs: 5380, backchannel: false } }],
    },
    {
      name: "a chat's message is a whole turn, at the time it came",
      steps: [{ typed: 'Hi there', atMs: 1500 }],
      out: [{ ended: { text: 'Hi there', startMs: 1500, endMs: 1500, finalMs: 1500, backchannel: false } }],
    },
    {
      name: 'backchannels over the agent do not stop it, and end as a backchannel, not a turn',
      agentTalking: true,
      steps: [
        ...audio(0, 1000),
        { result: { text: 'mhm' } },
        { result: { text: 'Mhm, okay.', isFinal: true, speechFinal: true, start: 0.1, end: 0.5 } },
      ],
      out: [
        { words: false },
        { words: false },
        { ended: { text: 'Mhm, okay.', startMs: 100, endMs: 500, finalMs: 980, backchannel: true } },
      ],
    },
    {
      name: 'a word past the backchannels stops the agent, and the turn is a turn',
      agentTalking: true,
      steps: [
        ...audio(0, 1000),
        { result: { text: 'yeah' } },
        { result: { text: 'yeah but wait' } },
        { result: { text: 'Yeah, but wait.', isFinal: true, speechFinal: true, start: 0.1, end: 0.7 } },
      ],
      out: [
        { words: false },
        { words: true },
        { words: true },
        { ended: { text: 'Yeah, but wait.', startMs: 100, endMs: 700, finalMs: 980, backchannel: false } },
      ],
    },
    {
      name: '"Yes." while the agent is silent is a turn (an answer to its question)',
      steps: [...audio(0, 1000), { result: { text: 'Yes.', isFinal: true, speechFinal: true, start: 0.1, end: 0.3 } }],
      out: [{ words: true }, { ended: { text: 'Yes.', startMs: 100, endMs: 300, finalMs: 980, backchannel: false } }],
    },
  ])('$name', async ({ steps, bargeInMinWords, agentTalking, out }) => {
    expect((await run(steps, { bargeInMinWords, agentTalking })).out).toEqual(out);
  });

  it('keeps the audio that comes while the stream opens, and sends it first', async () => {
    const { sent } = await run([...audio(0, 100), { open: true }, ...audio(100, 40)], { openFirst: false });
    expect(sent).toEqual([160, 160, 160, 160, 160, 160, 160]);
  });

  it('is busy from the first words until the turn ends, and speaking only while words come', async () => {
    const { turns } = await run([...audio(0, 400), { result: { text: 'Yes', isFinal: true, start: 0, end: 0.2 } }]);
    expect([turns.speaking, turns.busy]).toEqual([true, true]);
    turns.end();
    expect([turns.speaking, turns.busy]).toEqual([false, false]);
  });
});
