import { describe, expect, it, vi } from 'vitest';
import { buildCallPlan } from '../../media/src/agent/call-plan.ts';
import { decodeMulaw } from '../../media/src/audio/mulaw.ts';
import { KeyDetector } from '../../media/src/audio/dtmf.ts';
import { CallTexts } from '../../media/src/call/call-texts.ts';
import { AgentTools } from '../../media/src/call/agent-tools.ts';
import type { Answer, AnswerAudio } from '../../media/src/call/brain.ts';
import type { PreparedCall } from '../../media/src/call/call-types.ts';
import { availabilityTool, callInput } from '../support/voice.ts';

const transfer = {
  destinations: [{ name: 'front_desk', address: '+48221234567', description: 'The front desk' }],
};

/** The tools of a call with a transfer and keys allowed: what each call answers and does, out. */
function tools(toolFetch?: typeof fetch) {
  const said: { text: string; audio?: AnswerAudio }[] = [];
  const state = { hangUp: false };
  const answer: Answer = {
    signal: new AbortController().signal,
    saidAnything: false,
    hangingUp: false,
    say: (text, audio) => void said.push({ text, audio }),
    finalWords: () => {},
    hangUp: () => void (state.hangUp = true),
  };
  const runLogs: string[] = [];
  const call: PreparedCall = {
    plan: buildCallPlan(
      callInput({
        workflowConfigurations: { transfer, keypad: { send_digits: true } },
        transferable: true,
        tools: [availabilityTool('2026-11-23T10:00:00.000Z')],
      }),
    ),
    providers: {} as PreparedCall['providers'],
    organizationId: 1,
    toolFetch,
    runLog: (_level, message) => void runLogs.push(message),
  };
  const gathered = {};
  const effects = {
    gathered,
    closing: vi.fn(),
    transfer: vi.fn(async () => {}),
    texts: new CallTexts(call, { gathered, transcriptEvent: () => {} }),
    log: () => {},
    runRef: () => null,
  };
  const waiting = { cancel: vi.fn() };
  const part = new AgentTools(call, effects);
  const run = (name: string, args: unknown) =>
    part.run(answer, { name, arguments: typeof args === 'string' ? args : JSON.stringify(args) }, () => waiting);
  return { run, said, state, effects, runLogs, waiting };
}

describe("the agent's tools", () => {
  it.each([
    {
      name: 'set_call_disposition',
      args: { code: 'confirmed' },
      result: { ok: true },
      gathered: { call_disposition: 'confirmed' },
    },
    {
      name: 'set_call_disposition',
      args: { code: 'maybe' },
      result: { error: 'code must be one of confirmed, declined' },
      gathered: {},
    },
    {
      name: 'save_information',
      args: { key: 'email', value: 'a@b.c' },
      result: { ok: true },
      gathered: { email: 'a@b.c' },
    },
    {
      name: 'save_information',
      args: { key: 'call_disposition', value: 'x' },
      result: { error: 'key must be a snake_case name other than call_disposition' },
      gathered: {},
    },
    {
      name: 'save_information',
      args: '{not json',
      result: { error: 'key must be a snake_case name other than call_disposition' },
      gathered: {},
    },
    { name: 'no_such_tool', args: {}, result: { error: 'No tool named no_such_tool' }, gathered: {} },
  ])('$name $args → $result', async ({ name, args, result, gathered }) => {
    const { run, effects } = tools();
    expect(JSON.parse(await run(name, args))).toEqual(result);
    expect(effects.gathered).toEqual(gathered);
  });

  it('end_call: the answer hangs up once said, and the call is closing', async () => {
    const { run, state, effects } = tools();
    expect(JSON.parse(await run('end_call', {}))).toEqual({ ok: true });
    expect(state.hangUp).toBe(true);
    expect(effects.closing).toHaveBeenCalledOnce();
  });

  it('transfer_call: notes the transfer, says the handoff phrase, then hangs up; an unknown destination is refused', async () => {
    const { run, said, state, effects } = tools();
    expect(JSON.parse(await run('transfer_call', { destination: 'nobody' }))).toEqual({
      error: 'destination must be one of front_desk',
    });
    expect(effects.transfer).not.toHaveBeenCalled();
    expect(JSON.parse(await run('transfer_call', { destination: 'front_desk', reason: 'wants a person' }))).toEqual({
      ok: true,
      transferring_to: 'front_desk',
    });
    expect(effects.transfer).toHaveBeenCalledWith({ ...transfer.destinations[0], mode: 'cold' }, 'wants a person');
    expect(said.map(({ text }) => text)).toEqual(['Please hold while I transfer your call.']);
    expect([state.hangUp, effects.closing.mock.calls.length]).toEqual([true, 1]);
  });

  it("send_digits: the keys as tones in the agent's audio, in its turn", async () => {
    const { run, said, runLogs } = tools();
    expect(JSON.parse(await run('send_digits', { digits: 'x' }))).toEqual({
      error: 'digits must be 1 to 32 of 0-9, *, #, A-D, and , for a pause',
    });
    expect(JSON.parse(await run('send_digits', { digits: '12#' }))).toEqual({ ok: true, sent: '12#' });
    expect(said[0]!.text).toBe('[keys 12#]');
    const detector = new KeyDetector();
    let keys = '';
    for await (const chunk of said[0]!.audio!()) {
      const samples = decodeMulaw(chunk);
      for (let at = 0; at + 160 <= samples.length; at += 160)
        keys += detector.push(samples.subarray(at, at + 160)) ?? '';
    }
    expect(keys).toBe('12#');
    expect(runLogs).toEqual(['Keys sent by the agent: 12#']);
  });

  it("an HTTP tool is executed, with the filler's wait around it, and logged", async () => {
    const toolFetch = vi.fn(async () => new Response('{"slots":["9:00"]}', { status: 200 }));
    const { run, waiting, runLogs } = tools(toolFetch as unknown as typeof fetch);
    const result = JSON.parse(await run('check_availability', { day: 'tomorrow' }));
    expect(result).toEqual({ status: 200, body: '{"slots":["9:00"]}' });
    expect(waiting.cancel).toHaveBeenCalledOnce();
    expect(runLogs[0]).toMatch(/^Tool check_availability called with \{"day":"tomorrow"\}: /);
  });
});
