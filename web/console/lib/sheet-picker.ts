/**
 * The spreadsheet connection's browser side: the PKCE pair and the consent kept for this tab while
 * the provider's consent screen is shown, and the provider's file picker (Google Picker: its
 * loader script, `gapi.load('picker')`, a `PickerBuilder` with the connection's short-lived token).
 */
import type { Schemas } from './api.ts';

/** The consent in progress in this tab (sessionStorage survives the trip to the provider and back). */
const CONSENT_STORAGE = 'voice-agent-sheets-consent';

interface StartedConsent {
  state: string;
  verifier: string;
  redirectUri: string;
}

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/** RFC 7636: a random verifier (43 characters) and its S256 challenge. */
export async function pkcePair(): Promise<{ verifier: string; challenge: string }> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  return { verifier, challenge: base64url(new Uint8Array(digest)) };
}

/** Where the provider sends the browser back: the console's own page, without query or hash. */
export const consentRedirectUri = (): string => `${location.origin}${location.pathname}`;

export const keepConsent = (consent: StartedConsent): void =>
  sessionStorage.setItem(CONSENT_STORAGE, JSON.stringify(consent));

/**
 * The provider's answer in the address (`?code=…&state=…` or `?error=…`), with the consent this tab
 * started, which it takes (single use). A state other than the one this tab started is refused.
 */
export function takeConsentAnswer():
  { kind: 'none' } | { kind: 'refused'; reason: string } | { kind: 'code'; code: string; consent: StartedConsent } {
  const query = new URLSearchParams(location.search);
  if (!query.has('state')) return { kind: 'none' };
  const kept = sessionStorage.getItem(CONSENT_STORAGE);
  sessionStorage.removeItem(CONSENT_STORAGE);
  const consent = kept ? (JSON.parse(kept) as StartedConsent) : undefined;
  if (!consent || consent.state !== query.get('state'))
    return { kind: 'refused', reason: 'This answer is not for a connection started in this tab: connect again.' };
  if (query.get('error'))
    return { kind: 'refused', reason: `The provider did not connect the account (${query.get('error')}).` };
  return { kind: 'code', code: query.get('code') ?? '', consent };
}

/** Clears the provider's answer from the address and shows the Integrations page. */
export function leaveConsentAnswer(): void {
  history.replaceState(null, '', location.pathname);
  location.hash = '#/integrations';
}

export const consentAnswerInAddress = (): boolean => new URLSearchParams(location.search).has('state');

interface PickerGlobals {
  gapi: { load: (name: string, callback: () => void) => void };
  google: {
    picker: {
      PickerBuilder: new () => PickerBuilder;
      ViewId: { SPREADSHEETS: unknown };
      Response: { ACTION: string; DOCUMENTS: string };
      Action: { PICKED: string; CANCEL: string };
    };
  };
}
interface PickerBuilder {
  addView(view: unknown): PickerBuilder;
  setOAuthToken(token: string): PickerBuilder;
  setAppId(appId: string): PickerBuilder;
  setDeveloperKey(key: string): PickerBuilder;
  setOrigin(origin: string): PickerBuilder;
  setCallback(callback: (data: Record<string, unknown>) => void): PickerBuilder;
  build(): { setVisible(visible: boolean): void };
}

const loaded = new Map<string, Promise<void>>();
function loadScript(url: string): Promise<void> {
  const loading =
    loaded.get(url) ??
    new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = url;
      script.onload = () => resolve();
      script.onerror = () => reject(new Error('The file picker could not be loaded'));
      document.head.append(script);
    });
  loaded.set(url, loading);
  return loading;
}

export interface PickedSheet {
  id: string;
  name: string;
}

/** Opens the provider's picker on the connection's spreadsheets: the one chosen, or null when cancelled. */
export async function pickSpreadsheet(token: Schemas['PickerToken']): Promise<PickedSheet | null> {
  await loadScript(token.picker_script_url);
  const { gapi, google } = window as unknown as PickerGlobals;
  await new Promise<void>((resolve) => gapi.load('picker', resolve));
  const { picker } = google;
  return new Promise((resolve) => {
    let builder = new picker.PickerBuilder()
      .addView(picker.ViewId.SPREADSHEETS)
      .setOAuthToken(token.access_token)
      .setOrigin(location.origin)
      .setCallback((data) => {
        const action = data[picker.Response.ACTION];
        if (action === picker.Action.PICKED) {
          const [document] = data[picker.Response.DOCUMENTS] as PickedSheet[];
          resolve(document ? { id: document.id, name: document.name } : null);
        } else if (action === picker.Action.CANCEL) resolve(null);
      });
    if (token.app_id) builder = builder.setAppId(token.app_id);
    if (token.developer_key) builder = builder.setDeveloperKey(token.developer_key);
    builder.build().setVisible(true);
  });
}
