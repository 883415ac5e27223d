import { generateKeyPairSync, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTelnyx, type LocalTelnyx, type SimulatedTelnyxAccount } from '../../local/carrier/telnyx-wire.ts';
import { telnyxMediaCodec } from '../../shared/telephony/media-codecs.ts';
import { mapTelnyxEvent, telnyxAdapter } from '../../shared/telephony/telnyx.ts';
import { telnyxCalledNumber } from '../../shared/telephony/webhook-fields.ts';

/**
 * The local Telnyx (the same simulator the local stack runs): it records the requests the SDK
 * makes and answers Telnyx's JSON shapes; its webhooks and streams go to loopback addresses only,
 * so the example.com URLs below are never contacted.
 */
let telnyx: LocalTelnyx;
let ACCOUNT: SimulatedTelnyxAccount & { provider: 'telnyx' };
/** Another Ed25519 key pair: Telnyx signs with the account's private key, the portal shows the public one. */
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const OWN_NUMBER = '+48221234599';

beforeAll(async () => {
  telnyx = await startLocalTelnyx({ callSeconds: 1, ringMs: 10 });
  ACCOUNT = { provider: 'telnyx', ...telnyx.createAccount([OWN_NUMBER]) };
});
afterAll(() => telnyx.stop());

/** Telnyx's signature: Ed25519 over `<timestamp>|<body>`, base64, with the account's key pair. */
const telnyxSignature = (timestamp: string, body: string) =>
  sign(null, Buffer.from(`${timestamp}|${body}`), privateKey).toString('base64');
const PUBLIC_KEY = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('base64');

const adapter = (credentials = ACCOUNT) => telnyxAdapter(credentials, { apiBaseUrl: telnyx.apiUrl });
const lastRequests = (count: number) => telnyx.requests.slice(-count);

describe('Telnyx adapter', () => {
  it('dials through Call Control: bidirectional mu-law stream with the run and its credential, AMD, signed webhooks, the run as client_state', async () => {
    const result = await adapter().calls.dial({
      to: '+48601234560',
      from: OWN_NUMBER,
      runRef: '1.2.3',
      streamUrl: 'wss://media.example.com/media',
      streamToken: '1700000000.tok',
      statusCallbackUrl: 'https://api.example.com/api/v1/telephony/telnyx/status?run=1.2.3',
      onMachine: 'leave_message',
    });
    expect(result).toEqual({ callId: expect.stringMatching(/^v3:/) });
    const [request] = lastRequests(1);
    expect(request).toMatchObject({
      method: 'POST',
      path: '/v2/calls',
      authorization: `Bearer ${ACCOUNT.api_key}`,
    });
    expect(request!.body).toEqual({
      connection_id: ACCOUNT.connection_id,
      to: '+48601234560',
      from: OWN_NUMBER,
      stream_url: 'wss://media.example.com/media?codec=telnyx&run_ref=1.2.3&stream_token=1700000000.tok',
      stream_track: 'inbound_track',
      stream_codec: 'PCMU',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
      answering_machine_detection: 'detect_beep',
      webhook_url: 'https://api.example.com/api/v1/telephony/telnyx/status?run=1.2.3',
      webhook_url_method: 'POST',
      client_state: Buffer.from('1.2.3').toString('base64'),
    });
  });

  it('hangs up through the hangup action; a call that already ended is not an error', async () => {
    const { callId } = await adapter().calls.dial({
      to: '+48601234561',
      from: OWN_NUMBER,
      runRef: '1.2.4',
      streamUrl: 'wss://media.example.com/media',
      streamToken: 't',
      statusCallbackUrl: 'https://api.example.com/s',
      onMachine: 'hang_up',
    });
    await adapter().calls.hangUp(callId);
    expect(lastRequests(1)[0]).toMatchObject({ method: 'POST', path: `/v2/calls/${callId}/actions/hangup` });
    await telnyx.idle();
    // Telnyx answers 422 "Call has already ended".
    await expect(adapter().calls.hangUp(callId)).resolves.toBeUndefined();
  });

  it('refuses a dial with a wrong API key (401) or from a number the account does not own', async () => {
    const call = {
      to: '+48601234562',
      from: OWN_NUMBER,
      runRef: '1.2.5',
      streamUrl: 'wss://media.example.com/media',
      streamToken: 't',
      statusCallbackUrl: 'https://api.example.com/s',
      onMachine: 'hang_up' as const,
    };
    await expect(adapter({ ...ACCOUNT, api_key: 'KEY-not-issued' }).calls.dial(call)).rejects.toMatchObject({
      status: 401,
    });
    await expect(adapter().calls.dial({ ...call, from: '+48221234598' })).rejects.toMatchObject({ status: 422 });
  });

  it('answers an incoming call by command with the same stream as a dial, or rejects it (busy or rejected)', async () => {
    // A call the simulator does not know: the command's request is what is checked here (the
    // integration tests answer real incoming calls).
    const parked = () => ({ callId: 'v3:unknown', from: '+48601234563', to: OWN_NUMBER });
    const connect = {
      action: 'connect' as const,
      streamUrl: 'wss://media.example.com/media',
      runRef: '1.2.6',
      streamToken: 'tok',
      statusCallbackUrl: 'https://api.example.com/s?run=1.2.6',
      onMachine: 'hang_up',
    };
    // Only an incoming call.initiated is a call to answer; without one the webhook is only acknowledged.
    expect(await adapter().calls.answerInbound(connect)).toEqual({ contentType: 'application/json', body: '{}' });
    const before = telnyx.requests.length;
    // Telnyx does not know the call (404), as for a caller who hung up: reported, not thrown.
    const gone = { contentType: 'application/json', body: '{}', callEnded: true };
    expect(await adapter().calls.answerInbound(connect, parked())).toEqual(gone);
    expect(lastRequests(1)[0]).toMatchObject({
      path: '/v2/calls/v3:unknown/actions/answer',
      body: {
        stream_url: 'wss://media.example.com/media?codec=telnyx&run_ref=1.2.6&stream_token=tok',
        stream_track: 'inbound_track',
        stream_codec: 'PCMU',
        stream_bidirectional_mode: 'rtp',
        stream_bidirectional_codec: 'PCMU',
        webhook_url: 'https://api.example.com/s?run=1.2.6',
        webhook_url_method: 'POST',
        client_state: Buffer.from('1.2.6').toString('base64'),
        command_id: 'connect-v3:unknown',
      },
    });
    expect(
      await adapter().calls.answerInbound({ action: 'reject', reason: 'unavailable', message: 'Busy.' }, parked()),
    ).toEqual(gone);
    expect(lastRequests(1)[0]).toMatchObject({
      path: '/v2/calls/v3:unknown/actions/reject',
      body: { cause: 'USER_BUSY', command_id: 'reject-v3:unknown' },
    });
    expect(
      await adapter().calls.answerInbound({ action: 'reject', reason: 'not_in_service', message: 'No.' }, parked()),
    ).toEqual(gone);
    expect(lastRequests(1)[0]!.body).toMatchObject({ cause: 'CALL_REJECTED' });
    expect(telnyx.requests.length - before).toBe(3);
  });

  it('reads an incoming call from call.initiated (direction incoming) only', () => {
    const event = (type: string, payload: Record<string, unknown>) =>
      JSON.stringify({ data: { event_type: type, payload: { call_control_id: 'v3:in', ...payload } } });
    const inbound = (rawBody: string) => adapter().callbacks.parseInbound({ url: '', headers: {}, rawBody });
    expect(inbound(event('call.initiated', { direction: 'incoming', from: '+48601234563', to: OWN_NUMBER }))).toEqual({
      callId: 'v3:in',
      from: '+48601234563',
      to: OWN_NUMBER,
    });
    expect(inbound(event('call.initiated', { direction: 'outgoing', from: OWN_NUMBER, to: '+4860' }))).toBeUndefined();
    expect(inbound(event('call.hangup', { direction: 'incoming', from: '+48601234563', to: OWN_NUMBER }))).toBe(
      undefined,
    );
    expect(telnyxCalledNumber(event('call.initiated', { to: OWN_NUMBER }))).toBe(OWN_NUMBER);
    expect(telnyxCalledNumber('not json')).toBeUndefined();
  });

  describe('webhook signatures (Ed25519 + timestamp)', () => {
    const body = JSON.stringify({
      data: { event_type: 'call.hangup', payload: { call_control_id: 'v3:abc', hangup_cause: 'user_busy' } },
    });
    const now = String(Math.floor(Date.now() / 1000));
    const request = (headers: Record<string, string>, raw = body) => ({
      url: 'https://api.example.com/x',
      headers,
      rawBody: raw,
    });

    it.each([
      ['valid', request({ 'telnyx-signature-ed25519': telnyxSignature(now, body), 'telnyx-timestamp': now }), true],
      [
        'tampered body',
        request(
          { 'telnyx-signature-ed25519': telnyxSignature(now, body), 'telnyx-timestamp': now },
          body.replace('user_busy', 'normal_clearing'),
        ),
        false,
      ],
      [
        'tampered timestamp',
        request({
          'telnyx-signature-ed25519': telnyxSignature(now, body),
          'telnyx-timestamp': String(Number(now) - 1),
        }),
        false,
      ],
      [
        'stale (10 minutes old)',
        request({
          'telnyx-signature-ed25519': telnyxSignature(String(Number(now) - 600), body),
          'telnyx-timestamp': String(Number(now) - 600),
        }),
        false,
      ],
      ['no signature', request({ 'telnyx-timestamp': now }), false],
    ])('%s', async (_name, callback, valid) => {
      expect(await adapter({ ...ACCOUNT, public_key: PUBLIC_KEY }).callbacks.verifyCallback(callback)).toBe(valid);
    });
  });

  it.each([
    ['call.initiated', {}, undefined],
    ['call.answered', {}, 'answered'],
    ['call.hangup', { hangup_cause: 'normal_clearing' }, 'completed'],
    ['call.hangup', { hangup_cause: 'user_busy' }, 'busy'],
    ['call.hangup', { hangup_cause: 'timeout' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'no_answer' }, 'no-answer'],
    ['call.hangup', { hangup_cause: 'call_rejected' }, 'failed'],
    ['call.hangup', { hangup_cause: 'unspecified' }, 'failed'],
  ])('maps %s %j to %s', (eventType, payload, status) => {
    const event = mapTelnyxEvent({
      data: {
        event_type: eventType,
        occurred_at: '2026-11-23T10:00:00Z',
        payload: { call_control_id: 'v3:abc', client_state: Buffer.from('1.2.3').toString('base64'), ...payload },
      },
    });
    expect(event && 'status' in event ? { status: event.status, runRef: event.runRef } : undefined).toEqual(
      status ? { status, runRef: '1.2.3' } : undefined,
    );
  });

  it.each([
    ['call.machine.detection.ended', { result: 'machine' }, { verdict: 'machine', greeting: 'pending', beep: false }],
    ['call.machine.detection.ended', { result: 'human' }, { verdict: 'human', greeting: 'unknown', beep: false }],
    ['call.machine.detection.ended', { result: 'not_sure' }, { verdict: 'unknown', greeting: 'unknown', beep: false }],
    ['call.machine.greeting.ended', { result: 'beep_detected' }, { verdict: 'machine', greeting: 'ended', beep: true }],
    ['call.machine.greeting.ended', { result: 'ended' }, { verdict: 'machine', greeting: 'ended', beep: false }],
    ['call.machine.greeting.ended', { result: 'not_sure' }, { verdict: 'machine', greeting: 'ended', beep: false }],
    ['call.speak.ended', { status: 'completed' }, { messageSpoken: true }],
  ])('maps %s %j to %j', (eventType, payload, expected) => {
    const event = mapTelnyxEvent({
      data: {
        event_type: eventType,
        occurred_at: '2026-11-23T10:00:00Z',
        payload: { call_control_id: 'v3:abc', client_state: Buffer.from('1.2.3').toString('base64'), ...payload },
      },
    });
    expect(event).toMatchObject({ ...expected, callId: 'v3:abc', runRef: '1.2.3' });
  });

  it.each([
    ['call.answered', {}, { transferLeg: 'answered' }],
    ['call.machine.detection.ended', { result: 'machine' }, { transferLeg: 'machine' }],
    ['call.hangup', { hangup_cause: 'normal_clearing' }, { transferLeg: 'ended', status: 'completed' }],
    ['call.hangup', { hangup_cause: 'user_busy' }, { transferLeg: 'ended', status: 'busy' }],
    ['call.hangup', { hangup_cause: 'timeout' }, { transferLeg: 'ended', status: 'no-answer' }],
  ])("maps a transfer leg's %s %j to %j", (eventType, payload, expected) => {
    const event = mapTelnyxEvent({
      data: {
        event_type: eventType,
        occurred_at: '2026-11-23T10:00:00Z',
        payload: {
          call_control_id: 'v3:leg',
          client_state: Buffer.from('transfer:1.2.3').toString('base64'),
          ...payload,
        },
      },
    });
    expect(event).toEqual({ ...expected, callId: 'v3:leg', runRef: '1.2.3', timestamp: '2026-11-23T10:00:00Z' });
  });

  it("ignores a transfer leg's detection of a person and its other events", () => {
    for (const [eventType, payload] of [
      ['call.machine.detection.ended', { result: 'human' }],
      ['call.bridged', {}],
    ] as const)
      expect(
        mapTelnyxEvent({
          data: {
            event_type: eventType,
            payload: {
              call_control_id: 'v3:leg',
              client_state: Buffer.from('transfer:1.2.3').toString('base64'),
              ...payload,
            },
          },
        }),
      ).toBeUndefined();
  });

  it('leaves a voicemail: stops the stream, then speaks the message (the hang-up follows call.speak.ended)', async () => {
    const { callId } = await adapter().calls.dial({
      to: '+48601234561',
      from: OWN_NUMBER,
      runRef: '1.2.9',
      streamUrl: 'wss://media.example.com/media',
      streamToken: 't',
      statusCallbackUrl: 'https://api.example.com/s',
      onMachine: 'leave_message',
    });
    // Answered after the simulator's 10 ms of ringing (the stream URL is not the machine's: no stream).
    await new Promise((resolve) => setTimeout(resolve, 100));
    await adapter().calls.leaveVoicemail(callId, 'Please call us back.');
    const [stop, speak] = lastRequests(2);
    expect(stop).toMatchObject({
      path: `/v2/calls/${callId}/actions/streaming_stop`,
      body: { command_id: `voicemail-stream-${callId}` },
    });
    expect(speak).toMatchObject({
      path: `/v2/calls/${callId}/actions/speak`,
      body: { payload: 'Please call us back.', voice: 'female', command_id: `voicemail-speak-${callId}` },
    });
    await adapter().calls.hangUp(callId);
  });

  it('translates Telnyx media frames to the canonical ones and back', () => {
    const query = new URLSearchParams({ codec: 'telnyx', run_ref: '1.2.3', stream_token: 'tok' });
    const start = telnyxMediaCodec.decode(
      {
        event: 'start',
        sequence_number: '1',
        stream_id: 's1',
        start: { call_control_id: 'v3:abc', media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 } },
      },
      query,
    );
    expect(start).toEqual({
      event: 'start',
      streamSid: 's1',
      start: {
        streamSid: 's1',
        callSid: 'v3:abc',
        customParameters: { run_ref: '1.2.3', stream_token: 'tok' },
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
    });
    expect(
      telnyxMediaCodec.decode({ event: 'media', stream_id: 's1', media: { track: 'inbound', payload: 'AA==' } }, query),
    ).toMatchObject({ event: 'media', streamSid: 's1', media: { payload: 'AA==' } });
    expect(telnyxMediaCodec.encode({ event: 'media', streamSid: 's1', media: { payload: 'AA==' } })).toEqual({
      event: 'media',
      media: { payload: 'AA==' },
    });
    expect(telnyxMediaCodec.encode({ event: 'clear', streamSid: 's1' })).toEqual({ event: 'clear' });
  });

  it('offers only the parts Telnyx has: no transfer callbacks (transfers are call events)', () => {
    expect(Object.keys(adapter()).sort()).toEqual([
      'accountId',
      'callbacks',
      'calls',
      'messaging',
      'numbers',
      'provider',
      'regulatoryReview',
    ]);
  });

  it('searches available numbers, orders one on the connection, checks ownership', async () => {
    const found = await adapter().numbers.searchNumbers('PL', 'local');
    // A landline's features are voice only; a mobile's voice and sms (Telnyx's `features`).
    expect(found).toContainEqual({
      phone_number: '+48221234500',
      country_code: 'PL',
      number_type: 'local',
      capabilities: ['voice'],
    });
    expect(lastRequests(1)[0]!.path).toContain(
      '/v2/available_phone_numbers?filter[country_code]=PL&filter[phone_number_type]=local',
    );
    expect(await adapter().numbers.searchNumbers('PL', 'mobile')).toContainEqual({
      phone_number: '+48601234500',
      country_code: 'PL',
      number_type: 'mobile',
      capabilities: ['voice', 'sms'],
    });
    expect(await adapter().numbers.ownsNumber('+48221234500')).toBe(false);
    const { providerNumberId, capabilities } = await adapter().numbers.buyNumber('+48221234500', {
      voiceUrl: 'ignored',
    });
    expect(providerNumberId).toEqual(expect.any(String));
    // A number order does not list the number's features.
    expect(capabilities).toBeNull();
    expect(lastRequests(1)[0]!.body).toEqual({
      connection_id: ACCOUNT.connection_id,
      phone_numbers: [{ phone_number: '+48221234500' }],
    });
    expect(await adapter().numbers.ownsNumber('+48221234500')).toBe(true);
    await adapter().numbers.releaseNumber(providerNumberId);
    expect(await adapter().numbers.ownsNumber('+48221234500')).toBe(false);
    // Released twice: Telnyx answers 404, nothing left to release.
    await expect(adapter().numbers.releaseNumber(providerNumberId)).resolves.toBeUndefined();
  });
});
