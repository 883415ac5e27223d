import { describe, expect, it } from 'vitest';
import { contactErasure, type ContactCallState } from '../../shared/domain/contact-erasure.ts';

const contact = (change: Partial<ContactCallState>): ContactCallState => ({
  status: 'completed',
  attempts: 1,
  run_id: 7,
  analysis_run_id: 7,
  ...change,
});

describe('what erasing a campaign call takes from its contact', () => {
  it.each([
    ['its latest call, analyzed', contact({}), { kind: 'erase', disposition: true, analysis: true }],
    [
      'its latest call, not analyzed yet',
      contact({ analysis_run_id: null }),
      { kind: 'erase', disposition: true, analysis: false },
    ],
    [
      'an earlier call whose analysis is still stored',
      contact({ status: 'retry_scheduled', attempts: 2, run_id: 9, analysis_run_id: 7 }),
      { kind: 'erase', disposition: false, analysis: true },
    ],
    [
      'an earlier call, the contact moved on',
      contact({ attempts: 2, run_id: 9, analysis_run_id: 9 }),
      { kind: 'nothing' },
    ],
    [
      'the call being dialed again is a later attempt',
      contact({ status: 'dialing', attempts: 2 }),
      { kind: 'erase', disposition: true, analysis: true },
    ],
    [
      'its outcome not recorded yet',
      contact({ status: 'dialing', run_id: null, analysis_run_id: null }),
      { kind: 'outcome_pending' },
    ],
  ])('%s', (_, state, expected) => {
    expect(contactErasure(state, { id: 7, attempt: 1 })).toEqual(expected);
  });
});
