import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../shared/telephony/adapter.ts';
import {
  mapTwilioAnsweredBy,
  mapTwilioStatus,
  twilioAdapter,
  TWILIO_CALLBACK_TOLERANCE_SECONDS,
} from '../../shared/telephony/twilio.ts';

const ACCOUNT = {
  provider: 'twilio' as const,
  account_sid: `AC${'1'.repeat(32)}`,
  auth_token: 'a1b2c3d4e5f60718293a4b5c6d7e8f90',
};

interface Captured {
  method: string;
  path: string;
  authorization: string | undefined;
  form: URLSearchParams;
}

/** Records what the SDK sends and answers what Twilio answers for it. */
let captured: Captured[] = [];
let answer: (request: Captured) => { status: number; body?: unknown } = () => ({ status: 500 });
let origin = '';
const server = createServer(async (request: IncomingMessage, response) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const url = new URL(request.url ?? '/', 'http://localhost');
  const entry: Captured = {
    method: request.method ?? '',
    path: `${url.pathname}${url.search}`,
    authorization: request.headers.authorization,
    form: new URLSearchParams(Buffer.concat(chunks).toString('utf8')),
  };
  captured.push(entry);
  const { status, body } = answer(entry);
  response
    .writeHead(status, { 'Content-Type': 'application/json' })
    .end(body === undefined ? undefined : JSON.stringify(body));
});

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const adapter = (now = Date.now) => twilioAdapter(ACCOUNT, { apiBaseUrl: origin, now });

/** Twilio's documented scheme, written out: HMAC-SHA1(auth token, URL + each POST key and value sorted by key), base64. */
function twilioSignature(token: string, url: string, params: Record<string, string>): string {
  const data = Object.keys(params)
    .sort()
    .reduce((text, key) => text + key + params[key], url);
  return createHmac('sha1', token).update(data).digest('base64');
}

describe('Twilio adapter', () => {
  it('dials through the Calls resource: Basic auth, TwiML <Connect><Stream> with the run and its credential, status callbacks, AMD', async () => {
    captured = [];
    answer = () => ({ status: 201, body: { sid: `CA${'2'.repeat(32)}`, status: 'queued' } });
    const result = await adapter().calls.dial({
      to: '+48601234560',
      from: '+12125550100',
      runRef: '1.2.3',
      streamUrl: 'wss://media.example.com/media',
      streamToken: '1700000000.token',
      statusCallbackUrl: 'https://api.example.com/api/v1/telephony/twilio/status?run=1.2.3',
      onMachine: 'leave_message',
    });
    expect(result).toEqual({ callId: `CA${'2'.repeat(32)}` });
    const [request] = captured;
    expect(request).toMatchObject({ method: 'POST', path: `/2010-04-01/Accounts/${ACCOUNT.account_sid}/Calls.json` });
    expect(request!.authorization).toBe(
      `Basic ${Buffer.from(`${ACCOUNT.account_sid}:${ACCOUNT.auth_token}`).toString('base64')}`,
    );
    const form = request!.form;
    expect(form.get('To')).toBe('+48601234560');
    expect(form.get('From')).toBe('+12125550100');
    expect(form.get('StatusCallback')).toBe('https://api.example.com/api/v1/telephony/twilio/status?run=1.2.3');
    expect(form.get('StatusCallbackMethod')).toBe('POST');
    // Only the final status: the platform acts on no other, and each would be a signed callback.
    expect(form.getAll('StatusCallbackEvent')).toEqual(['completed']);
    // Asynchronous AMD to the same signed callback; DetectMessageEnd as the agent leaves a message.
    expect(form.get('MachineDetection')).toBe('DetectMessageEnd');
    expect(form.get('AsyncAmd')).toBe('true');
    expect(form.get('AsyncAmdStatusCallback')).toBe('https://api.example.com/api/v1/telephony/twilio/status?run=1.2.3');
    expect(form.get('AsyncAmdStatusCallbackMethod')).toBe('POST');
    expect(form.get('Twiml')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="wss://media.example.com/media">' +
        '<Parameter name="run_ref" value="1.2.3"/><Parameter name="stream_token" value="1700000000.token"/></Stream></Connect></Response>',
    );
  });

  it('reports a refused dial as a ProviderError with the status (429 is never retried blindly)', async () => {
    answer = () => ({
      status: 429,
      body: {
        code: 20429,
        message: 'Too Many Requests',
        more_info: 'https://www.twilio.com/docs/errors/20429',
        status: 429,
      },
    });
    const failure = adapter().calls.dial({
      to: '+48601234560',
      from: '+12125550100',
      runRef: '1.2.3',
      streamUrl: 'wss://m/media',
      streamToken: 't',
      statusCallbackUrl: 'https://a/s',
      onMachine: 'hang_up',
    });
    await expect(failure).rejects.toBeInstanceOf(ProviderError);
    await expect(failure).rejects.toMatchObject({ status: 429 });
  });

  it('hangs up through the REST API (Status=completed), and a call already gone is not an error', async () => {
    captured = [];
    answer = () => ({ status: 200, body: { sid: 'CAx', status: 'completed' } });
    await adapter().calls.hangUp('CA0123');
    expect(captured[0]).toMatchObject({
      method: 'POST',
      path: `/2010-04-01/Accounts/${ACCOUNT.account_sid}/Calls/CA0123.json`,
    });
    expect(captured[0]!.form.get('Status')).toBe('completed');
    answer = () => ({ status: 404, body: { code: 20404, message: 'Not found', status: 404 } });
    await expect(adapter().calls.hangUp('CA0404')).resolves.toBeUndefined();
  });

  describe('webhook signatures (X-Twilio-Signature)', () => {
    const url = 'https://api.example.com/api/v1/telephony/twilio/status?run=1.2.3';
    const now = Date.parse('2026-11-23T10:00:00Z');
    const params = {
      CallSid: 'CA1',
      CallStatus: 'busy',
      AccountSid: ACCOUNT.account_sid,
      Timestamp: new Date(now - 5_000).toUTCString(),
    };
    const request = (body: Record<string, string>, signature: string | undefined, at = url) => ({
      url: at,
      headers: { 'x-twilio-signature': signature },
      rawBody: new URLSearchParams(body).toString(),
    });

    it.each([
      ['valid', request(params, twilioSignature(ACCOUNT.auth_token, url, params)), true],
      [
        'tampered body',
        request({ ...params, CallStatus: 'completed' }, twilioSignature(ACCOUNT.auth_token, url, params)),
        false,
      ],
      [
        'tampered URL (another run)',
        request(params, twilioSignature(ACCOUNT.auth_token, url, params), url.replace('1.2.3', '1.2.4')),
        false,
      ],
      ["another account's token", request(params, twilioSignature('f'.repeat(32), url, params)), false],
      ['no signature', request(params, undefined), false],
    ])('%s', async (_name, callback, valid) => {
      expect(await adapter(() => now).callbacks.verifyCallback(callback)).toBe(valid);
    });

    it('refuses a stale callback (signed Timestamp beyond the tolerance), accepts one within it', async () => {
      const stale = {
        ...params,
        Timestamp: new Date(now - (TWILIO_CALLBACK_TOLERANCE_SECONDS + 60) * 1000).toUTCString(),
      };
      expect(
        await adapter(() => now).callbacks.verifyCallback(
          request(stale, twilioSignature(ACCOUNT.auth_token, url, stale)),
        ),
      ).toBe(false);
      const fresh = { ...params, Timestamp: new Date(now - 60_000).toUTCString() };
      expect(
        await adapter(() => now).callbacks.verifyCallback(
          request(fresh, twilioSignature(ACCOUNT.auth_token, url, fresh)),
        ),
      ).toBe(true);
    });
  });

  it.each([
    ['queued', undefined],
    ['initiated', undefined],
    ['ringing', 'ringing'],
    ['in-progress', 'answered'],
    ['completed', 'completed'],
    ['busy', 'busy'],
    ['no-answer', 'no-answer'],
    ['failed', 'failed'],
    ['canceled', 'failed'],
  ])('maps CallStatus %s to %s', (callStatus, expected) => {
    expect(mapTwilioStatus(callStatus)).toBe(expected);
  });

  it.each([
    ['human', 'human', 'unknown', false],
    ['unknown', 'unknown', 'unknown', false],
    ['machine_start', 'machine', 'unknown', false],
    ['fax', 'machine', 'unknown', false],
    ['machine_end_beep', 'machine', 'ended', true],
    ['machine_end_silence', 'machine', 'ended', false],
    ['machine_end_other', 'machine', 'ended', false],
  ])('maps AnsweredBy %s to the verdict %s, greeting %s, beep %s', (answeredBy, verdict, greeting, beep) => {
    expect(mapTwilioAnsweredBy(answeredBy)).toEqual({ verdict, greeting, beep });
  });

  it('reads a status callback: the run from the signed URL, the event time', () => {
    const event = adapter().callbacks.parseStatus({
      url: 'https://api.example.com/api/v1/telephony/twilio/status?run=4.5.6',
      headers: {},
      rawBody: new URLSearchParams({
        CallSid: 'CA9',
        CallStatus: 'in-progress',
        Timestamp: 'Mon, 23 Nov 2026 10:00:00 +0000',
      }).toString(),
    });
    expect(event).toEqual({
      callId: 'CA9',
      runRef: '4.5.6',
      status: 'answered',
      timestamp: '2026-11-23T10:00:00.000Z',
    });
  });

  it('reads an asyncAmdStatusCallback (AnsweredBy, no CallStatus) as a detection result', () => {
    const event = adapter().callbacks.parseStatus({
      url: 'https://api.example.com/api/v1/telephony/twilio/status?run=4.5.6',
      headers: {},
      rawBody: new URLSearchParams({
        AccountSid: ACCOUNT.account_sid,
        CallSid: 'CA9',
        AnsweredBy: 'machine_end_beep',
        MachineDetectionDuration: '4100',
      }).toString(),
    });
    expect(event).toMatchObject({
      callId: 'CA9',
      runRef: '4.5.6',
      verdict: 'machine',
      greeting: 'ended',
      beep: true,
      detail: 'machine_end_beep',
    });
  });

  it('leaving a voicemail on a call that ended meanwhile (21220) is not an error; other refusals are', async () => {
    answer = () => ({
      status: 400,
      body: { code: 21220, message: 'Call is not in-progress. Cannot redirect.', status: 400 },
    });
    await expect(adapter().calls.leaveVoicemail('CA9', 'Hi')).resolves.toBeUndefined();
    answer = () => ({ status: 400, body: { code: 12100, message: 'Document parse failure', status: 400 } });
    await expect(adapter().calls.leaveVoicemail('CA9', 'Hi')).rejects.toBeInstanceOf(ProviderError);
  });

  it('leaves a voicemail by updating the live call with <Say> and <Hangup>', async () => {
    captured = [];
    answer = () => ({ status: 200, body: { sid: 'CA9', status: 'in-progress' } });
    await adapter().calls.leaveVoicemail('CA9', 'Please call us back.');
    const [request] = captured;
    expect(request).toMatchObject({
      method: 'POST',
      path: `/2010-04-01/Accounts/${ACCOUNT.account_sid}/Calls/CA9.json`,
    });
    expect(request!.form.get('Twiml')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Please call us back.</Say><Hangup/></Response>',
    );
  });

  it('transfers by updating the live call with a <Dial>: whisper and outcome callbacks, extension, machine detection', async () => {
    captured = [];
    answer = () => ({ status: 200, body: { sid: 'CA9', status: 'in-progress' } });
    const callbackUrl = 'https://api.example.com/api/v1/telephony/twilio/transfer?run=1.2.3';
    await adapter().calls.transfer('CA9', {
      runRef: '1.2.3',
      to: '+442071230412',
      from: '+12125550100',
      extension: 'ww12',
      timeoutSeconds: 20,
      whisper: { text: 'Anna wants to move her visit.', audioUrl: null },
      callbackUrl,
    });
    expect(captured[0]!.form.get('Twiml')).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="+12125550100" timeout="20" ' +
        'action="https://api.example.com/api/v1/telephony/twilio/transfer?run=1.2.3&amp;step=outcome" method="POST" answerOnBridge="true">' +
        '<Number url="https://api.example.com/api/v1/telephony/twilio/transfer?run=1.2.3&amp;step=whisper" method="POST" machineDetection="Enable" sendDigits="ww12">+442071230412</Number></Dial></Response>',
    );
    captured = [];
    await adapter().calls.transfer('CA9', {
      runRef: '1.2.3',
      to: 'sip:desk@pbx.example.com',
      from: '+12125550100',
      timeoutSeconds: 30,
      whisper: null,
      callbackUrl,
    });
    expect(captured[0]!.form.get('Twiml')).toContain('<Sip>sip:desk@pbx.example.com</Sip>');
  });

  it.each([
    ['step=whisper', { AnsweredBy: 'human' }, { step: 'whisper', machine: false }],
    ['step=whisper', { AnsweredBy: 'machine_start' }, { step: 'whisper', machine: true }],
    [
      'step=outcome',
      { DialCallStatus: 'completed', DialCallDuration: '42' },
      { step: 'outcome', status: 'completed', legSeconds: 42 },
    ],
    [
      'step=outcome',
      { DialCallStatus: 'busy', DialCallDuration: '0' },
      { step: 'outcome', status: 'busy', legSeconds: 0 },
    ],
    ['step=outcome', { DialCallStatus: 'no-answer' }, { step: 'outcome', status: 'no-answer', legSeconds: 0 }],
    ['step=outcome', { DialCallStatus: 'canceled' }, { step: 'outcome', status: 'failed', legSeconds: 0 }],
  ])('reads a transfer callback (%s, %j)', (query, params, expected) => {
    const url = `https://api.example.com/api/v1/telephony/twilio/transfer?run=1.2.3&${query}`;
    const step = adapter().transferCallbacks!.parseTransferStep({
      url,
      headers: {},
      rawBody: new URLSearchParams(params).toString(),
    });
    expect(step).toEqual({ runRef: '1.2.3', ...expected });
    // The whisper says its text and goes on to the bridge; the outcome says why, then hangs up.
    expect(adapter().transferCallbacks!.answerTransferStep(step!, { say: 'Hi.' }).body).toBe(
      `<?xml version="1.0" encoding="UTF-8"?><Response><Say>Hi.</Say>${expected.step === 'outcome' ? '<Hangup/>' : ''}</Response>`,
    );
  });

  it('answers an incoming call with a stream, or turns it away with <Say> and <Hangup>', async () => {
    const twilio = adapter();
    const connect = await twilio.calls.answerInbound({
      action: 'connect',
      streamUrl: 'wss://m/media',
      runRef: '1.2.3',
      streamToken: 'tok',
      statusCallbackUrl: 'https://a/s',
    });
    expect(connect.contentType).toBe('text/xml');
    expect(connect.body).toContain(
      '<Connect><Stream url="wss://m/media"><Parameter name="run_ref" value="1.2.3"/><Parameter name="stream_token" value="tok"/>',
    );
    const reject = await twilio.calls.answerInbound({
      action: 'reject',
      reason: 'not_in_service',
      message: 'Not in service.',
    });
    expect(reject.body).toBe(
      '<?xml version="1.0" encoding="UTF-8"?><Response><Say>Not in service.</Say><Hangup/></Response>',
    );
    expect(
      twilio.callbacks.parseInbound({
        url: '',
        headers: {},
        rawBody: 'CallSid=CA1&From=%2B48601234560&To=%2B12125550101&Direction=inbound',
      }),
    ).toEqual({
      callId: 'CA1',
      from: '+48601234560',
      to: '+12125550101',
    });
  });

  it('searches AvailablePhoneNumbers and buys through IncomingPhoneNumbers (with the approved bundle for a regulated number)', async () => {
    captured = [];
    answer = (request) =>
      request.method === 'GET'
        ? {
            status: 200,
            body: {
              available_phone_numbers: [
                {
                  phone_number: '+48601234500',
                  iso_country: 'PL',
                  capabilities: { voice: true, SMS: true, MMS: false },
                },
              ],
              uri: '/x',
            },
          }
        : {
            status: 201,
            body: {
              sid: `PN${'3'.repeat(32)}`,
              phone_number: '+48601234500',
              capabilities: { voice: true, sms: true, mms: false, fax: false },
            },
          };
    const found = await adapter().numbers.searchNumbers('PL', 'mobile');
    expect(captured[0]!.path).toBe(
      `/2010-04-01/Accounts/${ACCOUNT.account_sid}/AvailablePhoneNumbers/PL/Mobile.json?VoiceEnabled=true&PageSize=50`,
    );
    expect(found).toEqual([
      { phone_number: '+48601234500', country_code: 'PL', number_type: 'mobile', capabilities: ['voice', 'sms'] },
    ]);

    const bought = await adapter().numbers.buyNumber('+48601234500', {
      voiceUrl: 'https://api.example.com/api/v1/telephony/twilio/voice',
      regulatoryBundleId: 'BU1',
    });
    // What the bought number can do, as its IncomingPhoneNumber says.
    expect(bought).toEqual({ providerNumberId: `PN${'3'.repeat(32)}`, capabilities: ['voice', 'sms'] });
    const purchase = captured[1]!;
    expect(purchase).toMatchObject({
      method: 'POST',
      path: `/2010-04-01/Accounts/${ACCOUNT.account_sid}/IncomingPhoneNumbers.json`,
    });
    expect(Object.fromEntries(purchase.form)).toEqual({
      PhoneNumber: '+48601234500',
      VoiceUrl: 'https://api.example.com/api/v1/telephony/twilio/voice',
      VoiceMethod: 'POST',
      BundleSid: 'BU1',
    });
  });
});
