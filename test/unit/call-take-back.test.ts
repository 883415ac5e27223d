import { describe, expect, it } from 'vitest';
import { takeBack, textsWhileTransferred } from '../../media/src/call-take-back.ts';
import type { TransferState } from '../../shared/domain/run.ts';
import { receivedSms, type RunSmsRecord } from '../../shared/domain/text-messages.ts';

const transfer: TransferState = {
  destination: 'front_desk',
  address: '+48221234567',
  mode: 'cold',
  requested_at: '2026-11-26T10:00:10.000Z',
  whisper: null,
  failed_message: 'Nobody is free.',
  continue_on_failure: true,
  outcome: 'busy',
  resumed_at: '2026-11-26T10:00:40.000Z',
};

const received = (body: string, at: string): RunSmsRecord =>
  receivedSms({ messageId: `SM${at}`, from: '+48601234561', to: '+48221234500', body, segments: 1 }, `sms_${at}`, at);
const sent = (body: string, at: string): RunSmsRecord => ({
  ...received(body, at),
  direction: 'outbound',
  status: 'delivered',
});

/** A call given back to the agent after a transfer nobody took, and the caller's texts meanwhile. */
describe('a call taken back', () => {
  it.each<[string, RunSmsRecord[], string[]]>([
    ['no texts', [], []],
    ['a text before the transfer: the agent had it', [received('early', '2026-11-26T10:00:05.000Z')], []],
    [
      'texts while transferred, in order',
      [received('anna@example.com', '2026-11-26T10:00:20.000Z'), received('and my card', '2026-11-26T10:00:30.000Z')],
      ['anna@example.com', 'and my card'],
    ],
    ['a text at the request itself', [received('now', '2026-11-26T10:00:10.000Z')], ['now']],
    ['a text after the new stream: passed to it', [received('later', '2026-11-26T10:00:41.000Z')], []],
    ['a text the call sent', [sent('Your booking', '2026-11-26T10:00:20.000Z')], []],
  ])('%s', (_what, messages, expected) => {
    expect(textsWhileTransferred(transfer, messages)).toEqual(expected);
  });

  it('the agent takes the texts as turns of the caller, after the conversation and before the outcome', async () => {
    const resume = await takeBack(transfer, ['anna@example.com']);
    expect(resume.history).toEqual([{ role: 'user', content: '(The caller texted: anna@example.com)' }]);
    expect(resume.note).toBe(
      'You tried to transfer the caller to front_desk, and nobody took the call (busy). Tell the caller, then go on helping them.',
    );
  });
});
