import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderError } from '../../media/src/agent/interfaces.ts';
import { CallEnding } from '../../media/src/call/call-ending.ts';
import type { PreparedCall } from '../../media/src/call/call-types.ts';

/**
 * How the agent's side ends a call, alone: a hang-up or a provider's failure in, what the call
 * does (silenced, last words, the hang-up with the audio still to play, the run's log) out. The
 * apology's limit is wall time, so the clock is faked.
 */
afterEach(() => void vi.useRealTimers());

function ending(options: { playbackRemainingMs?: number; ended?: boolean } = {}) {
  const events: string[] = [];
  const hangUps: number[] = [];
  const callEnding = new CallEnding({
    log: (level, message) => events.push(`${level}: ${message}`),
    runRef: () => '1.2.3',
    isEnded: () => options.ended ?? false,
    playbackRemainingMs: () => options.playbackRemainingMs ?? 0,
    silence: () => events.push('silenced'),
    sayLast: (text) => events.push(`says last "${text}"`),
    onHangUp: (info) => void hangUps.push(info.playbackRemainingMs),
  });
  return { callEnding, events, hangUps };
}

/** A prepared call far enough to say its apology, with `tts` as its text-to-speech provider. */
const call = (events: string[]) =>
  ({
    plan: { phrases: { apology: 'Sorry, something went wrong.' } },
    providers: { tts: { name: 'elevenlabs' } },
    runLog: (level: string, message: string) => events.push(`run log ${level}: ${message}`),
  }) as unknown as PreparedCall;

describe('the end of a call on the agent’s side', () => {
  it('hangs up with the audio still to play (never negative), and resolves hangUpRequested', async () => {
    for (const [remaining, told] of [
      [1200, 1200],
      [-40, 0],
    ]) {
      const { callEnding, events, hangUps } = ending({ playbackRemainingMs: remaining });
      callEnding.hangUp();
      expect(await callEnding.hangUpRequested).toEqual({ playbackRemainingMs: told });
      expect(hangUps).toEqual([told]);
      expect(callEnding.wantsHangUp).toBe(true);
      expect(events).toEqual(['info: agent hangs up']);
    }
  });

  it.each<{ name: string; error: () => unknown; prepared: boolean; events: string[]; hangsUpAt: number }>([
    {
      name: 'a provider failure: silenced, the apology said, hung up 15 s later at most',
      error: () => new ProviderError('deepgram', 'stream closed'),
      prepared: true,
      events: [
        'error: call failed',
        'run log ERROR: Call failed: deepgram: stream closed',
        'silenced',
        'says last "Sorry, something went wrong."',
      ],
      hangsUpAt: 15_000,
    },
    {
      name: 'text-to-speech failed: nothing more can be said, so it hangs up at once',
      error: () => new ProviderError('elevenlabs', 'quota exceeded'),
      prepared: true,
      events: ['error: call failed', 'run log ERROR: Call failed: elevenlabs: quota exceeded', 'silenced'],
      hangsUpAt: 0,
    },
    {
      name: 'a failure before the call was set up: hung up at once, nothing to say it with',
      error: () => 'no agent',
      prepared: false,
      events: ['error: call failed', 'silenced'],
      hangsUpAt: 0,
    },
  ])('$name', async ({ error, prepared, events: expected, hangsUpAt }) => {
    vi.useFakeTimers();
    const { callEnding, events, hangUps } = ending();
    const failure = error();
    callEnding.fail(failure, prepared ? call(events) : undefined);
    expect(callEnding.failure).toBe(failure instanceof Error ? failure.message : String(failure));
    expect(events.filter((event) => event !== 'info: agent hangs up')).toEqual(expected);
    vi.advanceTimersByTime(14_999);
    expect(hangUps.length > 0).toBe(hangsUpAt === 0);
    vi.advanceTimersByTime(1);
    expect(hangUps).toEqual([0]);
  });

  it('after the apology, does not hang up twice (the agent hung up first) nor after the call ended', () => {
    vi.useFakeTimers();
    const first = ending();
    first.callEnding.fail(new ProviderError('openai', 'timeout'), call(first.events));
    first.callEnding.hangUp();
    vi.advanceTimersByTime(15_000);
    expect(first.hangUps).toEqual([0]);

    const second = ending({ ended: true });
    second.callEnding.fail(new ProviderError('openai', 'timeout'), call(second.events));
    vi.advanceTimersByTime(15_000);
    expect(second.hangUps).toEqual([]);
  });

  it('a failure while hanging up already says nothing more', () => {
    const { callEnding, events, hangUps } = ending();
    callEnding.hangUp();
    callEnding.fail(new ProviderError('openai', 'timeout'), call(events));
    expect(events).toEqual([
      'info: agent hangs up',
      'error: call failed',
      'run log ERROR: Call failed: openai: timeout',
      'silenced',
    ]);
    expect(hangUps).toEqual([0]);
  });
});
