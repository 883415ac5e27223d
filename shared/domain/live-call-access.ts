/**
 * Access to a call in progress, shared by both sides of live listen and control (the API's,
 * shared/services/live-call-api.ts, and the media task's, media/src/live-call-server.ts): where on
 * the media service they are, and their credentials. Both are stream tokens
 * (shared/telephony/stream-token.ts) minted for the run under a purpose, so a listen credential
 * never passes for a control one, nor either for the call's own media stream.
 */
export const LISTEN_PATH = '/listen';
export const CONTROL_PATH = '/control';
/** Where the dialer asks the media service to make a call ready while it rings (media/src/prepare-endpoint.ts). */
export const PREPARE_PATH = '/prepare';
/** The dialer's request to prepare a call carries a credential good for this long. */
export const PREPARE_TOKEN_SECONDS = 60;

/** A listen URL must be connected within this; the connection then lasts as long as the call. */
export const LISTEN_TOKEN_SECONDS = 300;
/** The API's request to the media service carries a credential good for this long. */
export const CONTROL_TOKEN_SECONDS = 60;
/** Listeners of one call at a time (each gets both sides' audio: about 2.7 KB/s as JSON). */
export const MAX_LISTENERS_PER_CALL = 5;
/** Marks a request one media task passes to the task holding the call (never passed on again). */
/**
 * The longest text a control command carries (`add_message`'s content), in UTF-16 code units, as
 * the API's schema counts it.
 */
export const MAX_COMMAND_TEXT_CHARS = 4000;
/**
 * What the media service reads of a control request (`{run_ref, token, command}` as the API writes
 * it with JSON.stringify): the longest command with every character at its worst escape (6 bytes:
 * a control character is written `\u0001`; a lone surrogate would be too, but the API refuses
 * those), plus the envelope (run_ref, credential, field names: under 1 KB). So a command the API
 * accepts always fits, and the media service's limit follows the API's documented one.
 */
export const MAX_CONTROL_REQUEST_BYTES = MAX_COMMAND_TEXT_CHARS * 6 + 4 * 1024;

export const RELAY_HEADER = 'x-media-relay';

/**
 * `resume`: the media stream that gives a call back to the agent after a transfer nobody took;
 * `prepare`: the dialer's request to make a call ready while it rings.
 */
export type LivePurpose = 'listen' | 'control' | 'resume' | 'prepare';

/** What a live credential is signed over: the purpose and the run. */
export const purposeRef = (purpose: LivePurpose, runRef: string): string => `${purpose}:${runRef}`;

/** The listen WebSocket URL of a run on the media service whose Media Streams URL is `mediaStreamUrl`. */
export function listenUrl(mediaStreamUrl: string, runRef: string, token: string): string {
  const url = new URL(mediaStreamUrl);
  url.pathname = LISTEN_PATH;
  url.search = new URLSearchParams({ run_ref: runRef, token }).toString();
  return url.toString();
}

/** The control endpoint (HTTP) of the media service whose Media Streams URL is `mediaStreamUrl`. */
export function controlUrl(mediaStreamUrl: string): string {
  return httpEndpoint(mediaStreamUrl, CONTROL_PATH);
}

/** The prepare endpoint (HTTP) of the media service whose Media Streams URL is `mediaStreamUrl`. */
export function prepareUrl(mediaStreamUrl: string): string {
  return httpEndpoint(mediaStreamUrl, PREPARE_PATH);
}

function httpEndpoint(mediaStreamUrl: string, path: string): string {
  const url = new URL(mediaStreamUrl);
  const http = url.protocol === 'wss:' ? 'https:' : 'http:';
  return `${http}//${url.host}${path}`;
}
