import { describe, expect, it } from 'vitest';
import { controlUrl, listenUrl, purposeRef } from '../../shared/domain/live-call-access.ts';
import { signStreamToken, verifyStreamToken } from '../../shared/telephony/stream-token.ts';

describe('live call addresses', () => {
  it.each([
    [
      'wss://media.example.com/media',
      'wss://media.example.com/listen?run_ref=1.2.3&token=T',
      'https://media.example.com/control',
    ],
    [
      'ws://127.0.0.1:4100/media?x=1',
      'ws://127.0.0.1:4100/listen?run_ref=1.2.3&token=T',
      'http://127.0.0.1:4100/control',
    ],
  ])('%s', (streamUrl, listen, control) => {
    expect(listenUrl(streamUrl, '1.2.3', 'T')).toBe(listen);
    expect(controlUrl(streamUrl)).toBe(control);
  });
});

describe('live credentials', () => {
  const key = 'k'.repeat(64);
  const now = Date.parse('2026-11-26T10:00:00Z');
  const listen = signStreamToken(key, purposeRef('listen', '1.2.3'), 300, now);
  it.each([
    ['the listen credential, for listening to its run', purposeRef('listen', '1.2.3'), listen, now, 'valid'],
    ['the listen credential, to control the run', purposeRef('control', '1.2.3'), listen, now, 'wrong_run'],
    ["the listen credential, for the run's media stream", '1.2.3', listen, now, 'wrong_run'],
    ['the listen credential, for another run', purposeRef('listen', '1.2.4'), listen, now, 'wrong_run'],
    ['the listen credential, after its 5 minutes', purposeRef('listen', '1.2.3'), listen, now + 301_000, 'expired'],
    [
      "the run's stream credential, for listening",
      purposeRef('listen', '1.2.3'),
      signStreamToken(key, '1.2.3', 300, now),
      now,
      'wrong_run',
    ],
  ])('%s', (_name, signedOver, token, at, check) => {
    expect(verifyStreamToken(key, signedOver, token, at)).toBe(check);
  });
});
