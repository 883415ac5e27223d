/**
 * Browser and chat sessions of a conversation run (`POST /agents/{agent_id}/conversations`): the
 * client connects to the media service's session WebSocket with a short-lived credential bound to
 * the run, and talks with the same agent loop as a phone call. No runtime dependencies: the CDK
 * app and the media service import it too.
 */

/** The media service's WebSocket path for browser voice and chat sessions. */
export const BROWSER_SESSION_PATH = '/sessions';

export const CHAT_MODE = 'chat';

/** Voice over peer-to-peer WebRTC (SDP over the session WebSocket, ICE, DTLS-SRTP, Opus). */
export const PEER_TO_PEER_MODE = 'smallwebrtc';

/**
 * The modes a session connects for: `webrtc` (voice: the browser's microphone and speaker over the
 * session WebSocket), `smallwebrtc` (voice over peer-to-peer WebRTC, the WebSocket carrying only
 * its SDP) and `chat` (text).
 */
export const SESSION_MODES: readonly string[] = ['webrtc', PEER_TO_PEER_MODE, CHAT_MODE];

export const hasSession = (mode: string): boolean => SESSION_MODES.includes(mode);

/** Longest chat message accepted, in characters. */
export const MAX_CHAT_MESSAGE_CHARS = 4000;

/** How long a session credential may wait to be used; it is good for one connection. */
export const SESSION_TOKEN_SECONDS = 600;

/**
 * When the credential of a session whose run was created at `createdAt` expires: it is minted with
 * the run, so the sweeper can end a session never connected by this instant (runs.insertRun indexes it).
 */
export const sessionExpiresAt = (createdAt: string): string =>
  new Date(Math.floor(Date.parse(createdAt) / 1000) * 1000 + SESSION_TOKEN_SECONDS * 1000).toISOString();

/** The session WebSocket URL on the media service whose Media Streams URL is `mediaStreamUrl`. */
export function sessionUrl(mediaStreamUrl: string): string {
  const url = new URL(mediaStreamUrl);
  url.pathname = BROWSER_SESSION_PATH;
  url.search = '';
  return url.toString();
}
