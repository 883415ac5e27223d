/**
 * Talking to an agent inside the console: voice with the microphone (`webrtc`), voice over
 * peer-to-peer WebRTC (`smallwebrtc`) or a chat, through the console's own connection (signed in
 * once) and the session library (web/session.ts). One component wherever a conversation is
 * started: the Talk section, an agent's page, and the flow editor trying a draft in place.
 *
 *   <TalkPanel agentId="agent_…" />                      the agent's current definition
 *   <TalkPanel agentId="agent_…" definitionId={draft.id} onEnded={({ id }) => showPath(id)} />
 *
 * The conversation is a run like a call (`POST /agents/{agent_id}/conversations`): it is listed
 * with the agent's calls, and its page is linked once it has ended. Unmounting the panel (leaving
 * the page, closing it) hangs up.
 */
import { useMutation } from '../lib/mutation.ts';
import { useEffect, useId, useRef, useState } from 'preact/hooks';
import {
  connectChat,
  connectPeerVoice,
  connectVoice,
  type ChatSession,
  type SessionEnd,
  type SessionHandlers,
  type VoiceSession,
} from '../../session.ts';
import { answer, useApi } from '../lib/api.ts';
import { href } from '../lib/route.ts';
import { onSubmitRun } from '../lib/ui.tsx';

declare global {
  interface Window {
    /** The voice session in progress (its counters are read by the browser tests). */
    voiceSession?: VoiceSession;
  }
}

export type TalkMode = 'webrtc' | 'smallwebrtc' | 'chat';

export interface TalkPanelProps {
  /** The agent talked to: its `public_id` (`agent_…`) or integer id, as the API's paths take it. */
  agentId: string;
  /**
   * A version of the agent's definition to run instead of its current one, such as a draft being
   * tried (`GET /agents/{agent_id}/definitions`): sent as the conversation's `definition_id`, so
   * callers and campaigns keep the current one. Absent: the current definition.
   */
  definitionId?: number;
  /** The panel's heading (an `h3`). */
  title?: string;
  /** Told when a conversation has ended: its run id (a conversation of the agent) and how it ended. */
  onEnded?: (conversation: { id: number } & SessionEnd) => void;
}

interface TranscriptLine {
  role: string;
  text: string;
}

/** Microphone processing off: for a headset, or a test signal. */
const RAW_MICROPHONE = { echoCancellation: false, noiseSuppression: false, autoGainControl: false };

export function TalkPanel({ agentId, definitionId, title = 'Talk to the agent', onEnded }: TalkPanelProps) {
  const api = useApi();
  const id = useId();
  const [lines, setLines] = useState<TranscriptLine[]>([]);
  const [activity, setActivity] = useState<string[]>([]);
  const [status, setStatus] = useState('Not connected');
  const [running, setRunning] = useState(false);
  const [ended, setEnded] = useState<number | null>(null);
  const [rawMicrophone, setRawMicrophone] = useState(false);
  const [chat, setChat] = useState<ChatSession | null>(null);
  const [message, setMessage] = useState('');
  const session = useRef<ChatSession | VoiceSession | null>(null);
  const messageInput = useRef<HTMLInputElement>(null);

  // Another agent or version, or the panel gone: the conversation in progress is hung up.
  useEffect(() => () => session.current?.stop(), [agentId, definitionId]);
  useEffect(() => messageInput.current?.focus(), [chat]);

  const create = useMutation({
    mutationFn: (mode: TalkMode) =>
      answer(
        api.POST('/agents/{agent_id}/conversations', {
          params: { path: { agent_id: agentId } },
          body: {
            mode,
            name: `Console ${mode}`,
            initial_context: {},
            ...(definitionId === undefined ? {} : { definition_id: definitionId }),
          },
        }),
      ),
    meta: { touches: ['runs'] },
  });

  const handlers: SessionHandlers = {
    onTranscript: (line) => setLines((current) => [...current, { role: line.role, text: line.text }]),
    onToolCall: (call) => note(`Tool ${call.name}(${call.arguments}) → ${call.result}`),
    onKnowledge: (passages) => note(`Knowledge: ${passages.map((passage) => passage.title).join(', ')}`),
    onError: (detail) => note(`Refused: ${detail}`),
  };
  const note = (text: string) => setActivity((current) => [...current, text]);
  const stopped = (text: string) => {
    setRunning(false);
    setStatus(text);
  };

  const start = async (mode: TalkMode) => {
    setLines([]);
    setActivity([]);
    setEnded(null);
    setRunning(true);
    setStatus('Connecting…');
    let conversation;
    try {
      conversation = await create.mutateAsync(mode);
    } catch (failure) {
      return stopped((failure as Error).message);
    }
    if (!conversation.session) return stopped('This conversation has no session');
    let live: ChatSession | VoiceSession;
    if (mode === 'chat') {
      live = connectChat(conversation.session, handlers);
      setChat(live);
    } else {
      try {
        const connect = mode === 'smallwebrtc' ? connectPeerVoice : connectVoice;
        live = await connect(conversation.session, {
          ...handlers,
          ...(rawMicrophone ? { audio: RAW_MICROPHONE } : {}),
        });
      } catch (failure) {
        return stopped(`No microphone: ${(failure as Error).message}`);
      }
      window.voiceSession = live;
    }
    session.current = live;
    setStatus(`Connected: conversation ${conversation.id}`);
    const end = await live.closed;
    session.current = null;
    setChat(null);
    setEnded(conversation.id);
    stopped(
      end.code === 1000 || end.code === 1005
        ? `Ended: conversation ${conversation.id}`
        : `Ended (${end.code}): ${end.reason}`,
    );
    onEnded?.({ id: conversation.id, ...end });
  };

  const send = () => {
    const text = message.trim();
    if (!text || !chat) return;
    chat.send(text);
    setMessage('');
  };

  return (
    <section class="talk" aria-labelledby={`${id}-title`}>
      <h3 id={`${id}-title`}>{title}</h3>
      {definitionId !== undefined && (
        <p>Runs version {definitionId} of the definition; callers and campaigns keep the current one.</p>
      )}
      <label class="inline">
        <input
          type="checkbox"
          checked={rawMicrophone}
          disabled={running}
          onChange={(e) => setRawMicrophone(e.currentTarget.checked)}
        />{' '}
        Raw microphone (no echo cancellation or noise suppression: for a headset)
      </label>
      <div class="actions">
        <button type="button" disabled={running} onClick={() => void start('webrtc')}>
          Talk (microphone)
        </button>
        <button type="button" disabled={running} onClick={() => void start('smallwebrtc')}>
          Talk over WebRTC
        </button>
        <button type="button" disabled={running} onClick={() => void start('chat')}>
          Chat
        </button>
        <button type="button" class="secondary" disabled={!running} onClick={() => session.current?.stop()}>
          End
        </button>
      </div>
      <p role="status" aria-live="polite">
        {status}
      </p>
      {ended !== null && (
        <p>
          <a href={href('calls', agentId, ended)}>Open conversation {ended}</a> (transcript, recording, logs)
        </p>
      )}
      <ol aria-label="Transcript" aria-live="polite">
        {lines.map((line, index) => (
          <li key={index} data-role={line.role}>
            {line.role === 'user' ? 'You' : 'Agent'}: {line.text}
          </li>
        ))}
      </ol>
      {chat && (
        <form class="chat" onSubmit={onSubmitRun(send)}>
          <label for={`${id}-message`}>Message</label>
          <input
            id={`${id}-message`}
            ref={messageInput}
            maxLength={4000}
            autocomplete="off"
            value={message}
            onInput={(e) => setMessage(e.currentTarget.value)}
          />
          <button type="submit">Send</button>
        </form>
      )}
      <h4>What the agent did</h4>
      <ul aria-label="Agent activity">
        {activity.map((item, index) => (
          <li key={index}>{item}</li>
        ))}
      </ul>
    </section>
  );
}
