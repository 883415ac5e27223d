import { describe, expect, it } from 'vitest';
import {
  CONTROL_TOKEN_SECONDS,
  controlUrl,
  listenUrl,
  MAX_COMMAND_TEXT_CHARS,
  MAX_CONTROL_REQUEST_BYTES,
  purposeRef,
} from '../../shared/domain/live-call-access.ts';
import { formatRunRef } from '../../shared/domain/run-ref.ts';
import { LiveCommand } from '../../shared/schemas/live-calls.ts';
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

describe('a control request as the API sends it to the media service', () => {
  const runRef = formatRunRef({
    organizationId: Number.MAX_SAFE_INTEGER,
    agentId: Number.MAX_SAFE_INTEGER,
    runId: Number.MAX_SAFE_INTEGER,
  });
  const token = signStreamToken('k'.repeat(64), purposeRef('control', runRef), CONTROL_TOKEN_SECONDS);
  const worst = (length: number) => '\u0001'.repeat(length); // written as \u0001: 6 bytes a character

  // Each command at its longest, every character at its worst escape: the media service reads it whole.
  it.each([
    { type: 'add_message', content: worst(MAX_COMMAND_TEXT_CHARS), respond: true },
    { type: 'say', text: worst(1000), end_call: true },
    { type: 'end', say: worst(1000) },
    { type: 'transfer', destination: worst(40) },
  ])('$type', (command) => {
    expect(LiveCommand.safeParse(command).success).toBe(true);
    const body = JSON.stringify({ run_ref: runRef, token, command });
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(MAX_CONTROL_REQUEST_BYTES);
  });

  it('one character more is refused by the API schema', () => {
    expect(
      LiveCommand.safeParse({ type: 'add_message', content: 'x'.repeat(MAX_COMMAND_TEXT_CHARS + 1) }).success,
    ).toBe(false);
  });
});
