import type { IncomingMessage } from 'node:http';
import twilio from 'twilio';
import type { NumberInventory } from './number-inventory.ts';

export interface TwilioAccount {
  sid: string;
  authToken: string;
  callsPerSecond: number;
  /** Token bucket of the account's call creation rate (capacity: one second's calls). */
  tokens: number;
  refilledAt: number;
  created: number[];
  rateLimited: number;
}

/** The local Twilio's accounts: the platform's and its subaccounts, HTTP Basic auth, each one's calls per second. */
export class TwilioAccounts {
  private readonly accounts = new Map<string, TwilioAccount>();
  readonly platform: TwilioAccount;

  constructor(
    platform: { sid: string; authToken: string },
    private readonly callsPerSecond: number,
    private readonly numbers: NumberInventory,
  ) {
    this.platform = this.add(platform.sid, platform.authToken);
  }

  add(sid: string, authToken: string): TwilioAccount {
    const account: TwilioAccount = {
      sid,
      authToken,
      callsPerSecond: this.callsPerSecond,
      tokens: Math.max(1, this.callsPerSecond),
      refilledAt: Date.now(),
      created: [],
      rateLimited: 0,
    };
    this.accounts.set(sid, account);
    this.numbers.open(sid);
    return account;
  }

  get(sid: string): TwilioAccount | undefined {
    return this.accounts.get(sid);
  }

  /** HTTP Basic auth with an Account SID and its auth token. */
  signedIn(request: IncomingMessage): TwilioAccount | undefined {
    const header = request.headers.authorization ?? '';
    if (!header.startsWith('Basic ')) return undefined;
    const [user, password] = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':');
    const account = this.accounts.get(user ?? '');
    return account && account.authToken === password ? account : undefined;
  }

  /** The account of the request's path, when the request is signed in as it. */
  authenticate(request: IncomingMessage, accountSid: string): TwilioAccount | undefined {
    const account = this.signedIn(request);
    return account?.sid === accountSid ? account : undefined;
  }

  /** Calls per second: a bucket of one second's calls, refilled continuously; false (and counted) when empty. */
  admitCall(account: TwilioAccount, now: number): boolean {
    const capacity = Math.max(1, account.callsPerSecond);
    account.tokens = Math.min(capacity, account.tokens + ((now - account.refilledAt) / 1000) * account.callsPerSecond);
    account.refilledAt = now;
    if (account.tokens < 1) {
      account.rateLimited += 1;
      return false;
    }
    account.tokens -= 1;
    return true;
  }

  /** The account's call rate and the calls it created (`/_simulator/accounts/{sid}`); `CallsPerSecond` changes the rate. */
  limits(account: TwilioAccount, change: string | null) {
    if (change) {
      account.callsPerSecond = Number(change);
      account.tokens = Math.min(account.tokens, Math.max(1, account.callsPerSecond));
    }
    return {
      calls_per_second: account.callsPerSecond,
      calls_created_at: account.created,
      rate_limited: account.rateLimited,
    };
  }
}

/** A webhook request as Twilio sends it: form-encoded, signed with the account's auth token (X-Twilio-Signature). */
export const signedWebhook = (account: TwilioAccount, url: string, params: Record<string, string>) =>
  fetch(url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Twilio-Signature': twilio.getExpectedTwilioSignature(account.authToken, url, params),
    },
    body: new URLSearchParams(params).toString(),
  });
