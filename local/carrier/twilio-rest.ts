import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { sendJson } from './http.ts';

/** What every resource of the local Twilio's REST API shares: its version, its ids, its error shape. */

export const API_VERSION = '2010-04-01';

/** A Twilio id: two letters of its kind (CA a call, PN a number, ...) and 32 hex digits. */
export const twilioSid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export const twilioErrorBody = (status: number, code: number, message: string) => ({
  code,
  message,
  more_info: `https://www.twilio.com/docs/errors/${code}`,
  status,
});

export function twilioError(response: ServerResponse, status: number, code: number, message: string): void {
  sendJson(response, status, twilioErrorBody(status, code, message));
}
