import { generateKeyPairSync, sign } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { telnyxMediaCodec } from '../../shared/telephony/media-codecs.ts';
import { mapTelnyxEvent, telnyxAdapter } from '../../shared/telephony/telnyx.ts';

/** The account's Ed25519 key pair: Telnyx signs with the private key, the portal shows the public one. */
const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const PUBLIC_KEY = (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('base64');
const ACCOUNT = {
  provider: 'telnyx' as const,
  api_key: 'KEY0123456789ABCDEF',
  public_key: PUBLIC_KEY,
  connection_id: '1494404757140276705',
};

/** Telnyx's signature: Ed25519 over `<timestamp>|<body>`, base64. */
const telnyxSignature = (timestamp: string, body: string) =>
  sign(null, Buffer.from(`${timestamp}|${body}`), privateKey).toString('base64');

interface Captured {
  method: string;
  path: string;
  authorization: string | undefined;
  body: Record<string, unknown> | undefined;
}

/** A Telnyx API v2 fake: records the request, answers Telnyx's JSON shapes. */
let captured: Captured[] = [];
let origin = '';
const server = createServer(async (request, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  const url = new URL(request.url ?? '/', 'http://localhost');
  const entry: Captured = {
    method: request.method ?? '',
    path: decodeURIComponent(`${url.pathname}${url.search}`),
    authorization: request.headers.authorization,
    body: text ? JSON.parse(text) : undefined,
  };
  captured.push(entry);
  const reply = (status: number, body: unknown) =>
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  if (url.pathname === '/v2/calls')
    return reply(200, {
      data: {
        call_control_id: 'v3:abc',
        call_leg_id: 'leg',
        call_session_id: 'session',
        is_alive: false,
        record_type: 'call',
      },
    });
  if (url.pathname === '/v2/calls/v3:gone/actions/hangup')
    return reply(422, { errors: [{ code: '90018', title: 'Call has already ended' }] });
  if (url.pathname.endsWith('/actions/hangup')) return reply(200, { data: { result: 'ok' } });
  if (url.pathname === '/v2/available_phone_numbers')
    return reply(200, {
      data: [{ phone_number: '+48221234500', record_type: 'available_phone_number' }],
      metadata: { total_results: 1 },
    });
  if (url.pathname === '/v2/number_orders')
    return reply(200, {
      data: {
        id: 'order-1',
        status: 'pending',
        phone_numbers: [{ id: 'pn-1', phone_number: '+48221234500', status: 'pending' }],
      },
    });
  if (url.pathname === '/v2/phone_numbers')
    return reply(200, {
      data: [{ id: 'pn-1', phone_number: '+48221234500' }],
      meta: { total_results: 1, page_number: 1, page_size: 20, total_pages: 1 },
    });
  reply(404, { errors: [{ code: '10005', title: 'Resource not found' }] });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v2`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const adapter = () => telnyxAdapter(ACCOUNT, { apiBaseUrl: origin });

describe('Telnyx adapter', () => {
  it('dials through Call Control: bidirectional mu-law stream with the run and its credential, AMD, signed webhooks, the run as client_state', async () => {
    captured = [];
    const result = await adapter().dial({
      to: '+48601234560',
      from: '+48221234500',
      runRef: '1.2.3',
      streamUrl: 'wss://media.example.com/media',
      streamToken: '1700000000.tok',
      statusCallbackUrl: 'https://api.example.com/api/v1/telephony/telnyx/status?run=1.2.3',
    });
    expect(result).toEqual({ callId: 'v3:abc' });
    expect(captured[0]).toMatchObject({
      method: 'POST',
      path: '/v2/calls',
      authorization: `Bearer ${ACCOUNT.api_key}`,
    });
    expect(captured[0]!.body).toEqual({
      connection_id: ACCOUNT.connection_id,
      to: '+48601234560',
      from: '+48221234500',
      stream_url: 'wss://media.example.com/media?codec=telnyx&run_ref=1.2.3&stream_token=1700000000.tok',
      stream_track: 'inbound_track',
      stream_codec: 'PCMU',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
      answering_machine_detection: 'detect',
      webhook_url: 'https://api.example.com/api/v1/telephony/telnyx/status?run=1.2.3',
      webhook_url_method: 'POST',
      client_state: Buffer.from('1.2.3').toString('base64'),
    });
  });

  it('hangs up through the hangup action; a call that already ended is not an error', async () => {
    captured = [];
    await adapter().hangUp('v3:abc');
    expect(captured[0]).toMatchObject({ method: 'POST', path: '/v2/calls/v3:abc/actions/hangup' });
    await expect(adapter().hangUp('v3:gone')).resolves.toBeUndefined();
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
      expect(await adapter().verifyCallback(callback)).toBe(valid);
    });
  });

  it.each([
    ['call.initiated', {}, undefined],
    ['call.answered', {}, 'answered'],
    ['call.machine.detection.ended', { result: 'machine' }, 'voicemail'],
    ['call.machine.detection.ended', { result: 'human' }, undefined],
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
    expect(event && { status: event.status, runRef: event.runRef }).toEqual(
      status ? { status, runRef: '1.2.3' } : undefined,
    );
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

  it('searches available numbers, orders one on the connection, checks ownership', async () => {
    captured = [];
    expect(await adapter().searchNumbers('PL', 'local')).toEqual([
      { phone_number: '+48221234500', country_code: 'PL', number_type: 'local', capabilities: ['voice'] },
    ]);
    expect(captured[0]!.path).toContain(
      '/v2/available_phone_numbers?filter[country_code]=PL&filter[phone_number_type]=local',
    );
    expect(await adapter().buyNumber('+48221234500', { voiceUrl: 'ignored' })).toEqual({ providerNumberId: 'pn-1' });
    expect(captured[1]!.body).toEqual({
      connection_id: ACCOUNT.connection_id,
      phone_numbers: [{ phone_number: '+48221234500' }],
    });
    expect(await adapter().ownsNumber('+48221234500')).toBe(true);
    expect(await adapter().ownsNumber('+48221234599')).toBe(false);
  });
});
