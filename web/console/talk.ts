/**
 * The console's "talk to your agent" page: sign in with an organization API key (kept in this
 * browser session only), pick an agent, and talk to it with the microphone or chat with it. All
 * through the public API (the typed client) and the conversation's session (../session.ts).
 */
import createClient from 'openapi-fetch';
import type { paths } from '../../client/openapi.d.ts';
import { BASE_URL_STORAGE, detailOf, KEY_STORAGE } from './lib/api-messages.ts';
import {
  connectChat,
  connectPeerVoice,
  connectVoice,
  type ChatSession,
  type SessionHandlers,
  type VoiceSession,
} from '../session.ts';

declare global {
  interface Window {
    /** The voice session in progress (its counters are read by the browser tests). */
    voiceSession?: VoiceSession;
  }
}

const element = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

const signIn = element<HTMLFormElement>('sign-in');
const baseUrlInput = element<HTMLInputElement>('base-url');
const keyInput = element<HTMLInputElement>('api-key');
const signInError = element<HTMLParagraphElement>('sign-in-error');
const talk = element<HTMLElement>('talk');
const agentSelect = element<HTMLSelectElement>('agent');
const startVoice = element<HTMLButtonElement>('start-voice');
const startChat = element<HTMLButtonElement>('start-chat');
const startPeer = element<HTMLButtonElement>('start-peer');
const stopButton = element<HTMLButtonElement>('stop');
const statusLine = element<HTMLParagraphElement>('status');
/** The console's links here: `agent` (its page, the flow editor), `definition` (the editor's "Try it"). */
const linked = new URLSearchParams(location.search);
const transcript = element<HTMLOListElement>('transcript');
const chatForm = element<HTMLFormElement>('chat-form');
const messageInput = element<HTMLInputElement>('message');
const activity = element<HTMLUListElement>('activity');
const rawMicrophone = element<HTMLInputElement>('raw-microphone');

baseUrlInput.value = sessionStorage.getItem(BASE_URL_STORAGE) ?? `${location.origin}/api/v1`;
keyInput.value = sessionStorage.getItem(KEY_STORAGE) ?? '';

type Api = ReturnType<typeof createClient<paths>>;
let api: Api | undefined;
let chat: ChatSession | undefined;
let voice: VoiceSession | undefined;

signIn.addEventListener('submit', async (event) => {
  event.preventDefault();
  signInError.textContent = '';
  const client = createClient<paths>({
    baseUrl: baseUrlInput.value.replace(/\/$/, ''),
    headers: { 'X-API-Key': keyInput.value },
  });
  const { data, error, response } = await client.GET('/agents', {});
  if (!data) {
    signInError.textContent =
      response.status === 401 || response.status === 403
        ? 'This API key is wrong or revoked.'
        : detailOf(error, response.status);
    return;
  }
  sessionStorage.setItem(KEY_STORAGE, keyInput.value);
  sessionStorage.setItem(BASE_URL_STORAGE, baseUrlInput.value);
  api = client;
  agentSelect.replaceChildren(
    ...data
      .filter((agent) => agent.status === 'active')
      .map((agent) => new Option(`${agent.name} (${agent.public_id})`, agent.public_id)),
  );
  // The console's agent page links here with its agent chosen.
  const chosen = linked.get('agent');
  if (chosen && data.some((agent) => agent.public_id === chosen)) agentSelect.value = chosen;
  signIn.hidden = true;
  talk.hidden = false;
  agentSelect.focus();
});

function setRunning(running: boolean, text: string): void {
  startVoice.disabled = running;
  startPeer.disabled = running;
  startChat.disabled = running;
  agentSelect.disabled = running;
  stopButton.disabled = !running;
  statusLine.textContent = text;
}

const handlers: SessionHandlers = {
  onTranscript: (line) => {
    const item = document.createElement('li');
    item.dataset.role = line.role;
    item.textContent = `${line.role === 'user' ? 'You' : 'Agent'}: ${line.text}`;
    transcript.append(item);
  },
  onToolCall: (call) => addActivity(`Tool ${call.name}(${call.arguments}) → ${call.result}`),
  onKnowledge: (passages) => addActivity(`Knowledge: ${passages.map((passage) => passage.title).join(', ')}`),
  onError: (detail) => addActivity(`Refused: ${detail}`),
};

function addActivity(text: string): void {
  const item = document.createElement('li');
  item.textContent = text;
  activity.append(item);
}

/** The version the flow editor's "Try it" links here with (a draft), for its agent only. */
function linkedVersion(agentId: string): { definition_id?: number } {
  const definition = Number(linked.get('definition'));
  return linked.get('agent') === agentId && Number.isInteger(definition) && definition > 0
    ? { definition_id: definition }
    : {};
}

async function start(mode: 'webrtc' | 'smallwebrtc' | 'chat'): Promise<void> {
  if (!api) return;
  transcript.replaceChildren();
  activity.replaceChildren();
  setRunning(true, 'Connecting…');
  const { data, error, response } = await api.POST('/agents/{agent_id}/conversations', {
    params: { path: { agent_id: agentSelect.value } },
    body: { mode, name: `Console ${mode}`, initial_context: {}, ...linkedVersion(agentSelect.value) },
  });
  if (!data?.session) {
    setRunning(false, data ? 'This conversation has no session' : detailOf(error, response.status));
    return;
  }
  const conversationId = data.id;
  let ended: Promise<{ code: number; reason: string }>;
  if (mode === 'chat') {
    chat = connectChat(data.session, handlers);
    ended = chat.closed;
    chatForm.hidden = false;
    messageInput.focus();
  } else {
    try {
      const connect = mode === 'smallwebrtc' ? connectPeerVoice : connectVoice;
      voice = await connect(data.session, {
        ...handlers,
        ...(rawMicrophone.checked
          ? { audio: { echoCancellation: false, noiseSuppression: false, autoGainControl: false } }
          : {}),
      });
    } catch (failure) {
      setRunning(false, `No microphone: ${(failure as Error).message}`);
      return;
    }
    window.voiceSession = voice;
    ended = voice.closed;
  }
  setRunning(true, `Connected: conversation ${conversationId}`);
  const end = await ended;
  chat = undefined;
  voice = undefined;
  chatForm.hidden = true;
  setRunning(
    false,
    end.code === 1000 || end.code === 1005
      ? `Ended: conversation ${conversationId}`
      : `Ended (${end.code}): ${end.reason}`,
  );
}

startVoice.addEventListener('click', () => void start('webrtc'));
startPeer.addEventListener('click', () => void start('smallwebrtc'));
startChat.addEventListener('click', () => void start('chat'));
stopButton.addEventListener('click', () => {
  chat?.stop();
  voice?.stop();
});
chatForm.addEventListener('submit', (event) => {
  event.preventDefault();
  const text = messageInput.value.trim();
  if (!text || !chat) return;
  chat.send(text);
  messageInput.value = '';
});
