import { generateKeyPairSync, randomBytes, randomUUID, sign, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { NumberInventory } from './number-inventory.ts';

/** A Telnyx account as the portal shows it: an API key, the webhook public key, one Call Control application. */
export interface SimulatedTelnyxAccount {
  api_key: string;
  /** Ed25519, base64 of the raw 32 bytes (Portal → Keys & Credentials → Public Key). */
  public_key: string;
  /** The Call Control application (connection) calls are placed on. */
  connection_id: string;
  phone_numbers: string[];
}

export interface TelnyxAccount extends SimulatedTelnyxAccount {
  signingKey: KeyObject;
  /** Times calls were created (tests). */
  created: number[];
  /** How calls ended (tests): who hung up, and when the media stream and the call ended. */
  ended: { call_control_id: string; hangup_source: string; stream_ended_at: number | null; hung_up_at: number }[];
}

/** The local Telnyx's accounts (the portal): Bearer API keys, Ed25519 webhook keys, one application each. */
export class TelnyxAccounts {
  private readonly byConnection = new Map<string, TelnyxAccount>();
  private readonly byKey = new Map<string, TelnyxAccount>();

  constructor(private readonly numbers: NumberInventory) {}

  /** A new account owning `phoneNumbers`, as the portal shows it. */
  create(phoneNumbers: string[]): SimulatedTelnyxAccount {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const account: TelnyxAccount = {
      api_key: `KEY${randomBytes(16).toString('hex').toUpperCase()}_${randomBytes(8).toString('hex')}`,
      public_key: (publicKey.export({ format: 'der', type: 'spki' }) as Buffer).subarray(-32).toString('base64'),
      connection_id: String(BigInt(`0x${randomBytes(7).toString('hex')}`)),
      phone_numbers: [...phoneNumbers],
      signingKey: privateKey,
      created: [],
      ended: [],
    };
    this.numbers.open(account.connection_id);
    for (const number of phoneNumbers)
      this.numbers.assign(account.connection_id, {
        phone_number: number,
        country_code: '',
        number_type: 'local',
        capabilities: ['voice', 'sms'],
        id: randomUUID(),
        voiceUrl: null,
      });
    this.byConnection.set(account.connection_id, account);
    this.byKey.set(account.api_key, account);
    const { api_key, public_key, connection_id, phone_numbers } = account;
    return { api_key, public_key, connection_id, phone_numbers };
  }

  get(connectionId: string): TelnyxAccount | undefined {
    return this.byConnection.get(connectionId);
  }

  /** The account of the request's Bearer API key. */
  signedIn(request: IncomingMessage): TelnyxAccount | undefined {
    const header = request.headers.authorization ?? '';
    return header.startsWith('Bearer ') ? this.byKey.get(header.slice(7)) : undefined;
  }
}

/** A Call Control webhook as Telnyx sends it: JSON, signed with the account's Ed25519 key over `<telnyx-timestamp>|<body>`. */
export function signedEvent(
  account: TelnyxAccount,
  url: string,
  eventType: string,
  payload: Record<string, unknown>,
): Promise<Response> {
  const body = JSON.stringify({
    data: {
      record_type: 'event',
      id: randomUUID(),
      event_type: eventType,
      occurred_at: new Date().toISOString(),
      payload,
    },
    meta: { attempt: 1, delivered_to: url },
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  return fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      'telnyx-timestamp': timestamp,
      'telnyx-signature-ed25519': sign(null, Buffer.from(`${timestamp}|${body}`), account.signingKey).toString(
        'base64',
      ),
    },
    body,
  });
}
