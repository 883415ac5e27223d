import twilio from 'twilio';
import { inject } from 'vitest';

/** The platform's Twilio account (the stack's telephony secret, read as the functions read it) through the official client, at the local Twilio. */
export async function platformTwilio() {
  Object.assign(process.env, inject('stackEnv'));
  const { getSecretFields } = await import('../../shared/config/secrets.ts');
  const account = await getSecretFields('TELEPHONY_SECRET_ARN', ['account_sid', 'auth_token']);
  return { account, client: twilioAt(account.account_sid, account.auth_token) };
}

/** A Twilio client of account `sid` through the official SDK, at the local Twilio. */
export function twilioAt(sid: string, token: string) {
  const origin = inject('telephonyApiUrl');
  class Local extends twilio.RequestClient {
    override request<T>(options: Parameters<twilio.RequestClient['request']>[0]) {
      const uri = new URL(options.uri);
      return super.request<T>({ ...options, uri: `${origin}${uri.pathname}${uri.search}` } as never);
    }
  }
  return twilio(sid, token, { httpClient: new Local({}) });
}
