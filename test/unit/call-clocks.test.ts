import { describe, expect, it } from 'vitest';
import { CallClocks, STALLED_TURN_MS, type ClockAction, type ClockState } from '../../media/src/call/call-clocks.ts';

const settings = { maxCallMs: 600_000, silenceTimeoutMs: 8000, chatIdleTimeoutMs: 300_000 };
const quiet: ClockState = { keypadDue: false, callerSpeaking: false, busy: false, playbackEndMs: 0 };

/** Caller activity and clock reads on the media clock, in; what each read calls for, out. */
type Step = { heard: number } | { activity: number } | { at: number; state?: Partial<ClockState> };

function run(steps: Step[], chat = false): (ClockAction | null)[] {
  const clocks = new CallClocks(settings, chat);
  const actions: (ClockAction | null)[] = [];
  for (const step of steps) {
    if ('heard' in step) clocks.heard(step.heard);
    else if ('activity' in step) clocks.activity(step.activity);
    else actions.push(clocks.check(step.at, { ...quiet, ...step.state }));
  }
  return actions;
}

describe('call clocks (on the media clock)', () => {
  it.each<{ name: string; chat?: boolean; steps: Step[]; actions: (ClockAction | null)[] }>([
    {
      name: 'silence: the prompt after silence_timeout, then (once it has played) the goodbye after a second one',
      steps: [
        { at: 7999 },
        { at: 8000 },
        { at: 8001, state: { busy: true } },
        { at: 16_999, state: { playbackEndMs: 9000 } },
        { at: 17_000, state: { playbackEndMs: 9000 } },
      ],
      actions: [null, 'silence-prompt', null, null, 'silence-goodbye'],
    },
    {
      name: 'silence counts from the end of the agent audio when that is later',
      steps: [
        { at: 10_000, state: { playbackEndMs: 5000 } },
        { at: 13_000, state: { playbackEndMs: 5000 } },
      ],
      actions: [null, 'silence-prompt'],
    },
    {
      name: 'the caller speaking starts the silence prompt over',
      steps: [{ at: 8000 }, { heard: 9000 }, { at: 17_000 }],
      actions: ['silence-prompt', 'silence-prompt'],
    },
    {
      name: 'the end of a turn restarts the silence but not the prompt count',
      steps: [{ at: 8000 }, { activity: 9000 }, { at: 16_999 }, { at: 17_000 }],
      actions: ['silence-prompt', null, 'silence-goodbye'],
    },
    {
      name: 'nothing while an answer, a turn or an entry is under way',
      steps: [{ at: 30_000, state: { busy: true } }],
      actions: [null],
    },
    {
      name: 'the call length limit comes first, busy or not',
      steps: [{ at: 600_000, state: { busy: true, keypadDue: true } }],
      actions: ['time-limit'],
    },
    {
      name: "a keypad entry's pause comes before a stalled turn",
      steps: [{ at: 5000, state: { keypadDue: true, callerSpeaking: true, busy: true } }],
      actions: ['keypad-timeout'],
    },
    {
      name: 'words with no end of utterance for STALLED_TURN_MS end the turn',
      steps: [
        { heard: 1000 },
        { at: 1000 + STALLED_TURN_MS - 1, state: { callerSpeaking: true, busy: true } },
        { at: 1000 + STALLED_TURN_MS, state: { callerSpeaking: true, busy: true } },
      ],
      actions: [null, 'stalled-turn'],
    },
    {
      name: 'a chat left idle ends; it has no silence prompt',
      chat: true,
      steps: [{ activity: 1000 }, { at: 9000 }, { at: 300_999 }, { at: 301_000 }],
      actions: [null, null, 'chat-idle'],
    },
  ])('$name', ({ steps, actions, chat }) => {
    expect(run(steps, chat)).toEqual(actions);
  });
});
