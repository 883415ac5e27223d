/**
 * One session of the local Realtime fake, as the API keeps it: `session.update` → `session.updated`
 * (GA shape, `audio.input` / `audio.output`), the input audio buffer (`append`, `commit`, `clear`;
 * the server VAD's turns: ./openai-realtime-turns.ts) and what a turn adds (`speech_started`,
 * `speech_stopped`, `committed`, the user item, its transcription `…input_audio_transcription.completed`,
 * and a response unless `create_response` is false; speech while a response runs cancels it when
 * `interrupt_response`), the conversation's items (`conversation.item.create`,
 * `conversation.item.truncate` checked against the item's audio), responses
 * (./openai-realtime-response.ts) and `response.cancel`, and an `error` event for what the API
 * refuses.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket } from 'ws';
import type { FakeRealtime, FakeRealtimeOptions } from './openai-realtime.ts';
import { respond, type ResponseContext } from './openai-realtime-response.ts';
import { FRAME_MS, InputAudio, type Speech, type TurnDetection } from './openai-realtime-turns.ts';

/** The session as the fake keeps it: what session.update set (GA shape, `audio.input` / `audio.output`). */
export interface Session {
  instructions: string;
  tools: { type: 'function'; name: string; description?: string; parameters?: object }[];
  audio: {
    input: { format: { type: string }; transcription: { model: string } | null; turn_detection: TurnDetection | null };
    output: { format: { type: string }; voice: string };
  };
}

/** An item of the conversation: a message with its text (a transcript), or a function call or its output. */
export interface Item {
  id: string;
  type: 'message' | 'function_call' | 'function_call_output';
  role?: 'user' | 'assistant' | 'system';
  text?: string;
  /** An assistant message's audio length (ms): what a truncation may cut. */
  audioMs?: number;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string;
}

/** A client event as the fake reads it: the fields of the events it takes (a wrong type is the client's error to see). */
interface ClientEvent {
  type?: string;
  event_id?: string;
  audio?: string;
  item_id?: string;
  audio_end_ms?: number;
  response_id?: string;
  session?: {
    type?: string;
    instructions?: string;
    tools?: Session['tools'];
    audio?: { input?: Partial<Session['audio']['input']>; output?: Partial<Session['audio']['output']> };
  };
  item?: {
    id?: string;
    type?: string;
    role?: Item['role'];
    call_id?: string;
    output?: string;
    content?: { text?: string; transcript?: string }[];
  };
  response?: { instructions?: string; conversation?: string; input?: unknown[]; metadata?: object };
}

/** What the sessions of one fake share: its options, what clients sent, the responses counted. */
export interface FakeRealtimeShared {
  options: FakeRealtimeOptions;
  received: FakeRealtime['received'];
  /** Counts a response among all sessions'; returns its number (1-based). */
  countResponse(): number;
  /** A `response.done`'s response, into the fake's `responses`. */
  done: ResponseContext['done'];
}

/** Holds the conversation of one connected client until it goes. */
export function converse(ws: WebSocket, model: string, shared: FakeRealtimeShared): void {
  const { options } = shared;
  const session: Session = {
    instructions: '',
    tools: [],
    audio: {
      input: {
        format: { type: 'audio/pcm' },
        transcription: null,
        turn_detection: { type: 'server_vad', silence_duration_ms: 500 },
      },
      output: { format: { type: 'audio/pcm' }, voice: 'alloy' },
    },
  };
  const items: Item[] = [];
  const send = (event: object) => {
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ event_id: `event_${randomUUID()}`, ...event }));
  };
  const error = (type: string, code: string, message: string, eventId?: unknown) =>
    send({ type: 'error', error: { type, code, message, param: null, event_id: eventId ?? null } });
  const sessionView = () => ({ type: 'realtime', object: 'realtime.session', id: `sess_${model}`, model, ...session });

  const input = new InputAudio(() => session.audio.input.turn_detection, {
    started: (speech, vad) => {
      send({ type: 'input_audio_buffer.speech_started', audio_start_ms: speech.startMs, item_id: speech.itemId });
      if (responses.active && vad.interrupt_response !== false) responses.active.cancelled = true;
    },
    stopped: (speech, endMs, vad) => {
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: endMs, item_id: speech.itemId });
      commit(speech);
      if (vad.create_response !== false) void respond(responses, {});
    },
  });
  const responses: ResponseContext = {
    options,
    model,
    session,
    items,
    send,
    error,
    active: null,
    count: shared.countResponse,
    inputAudioMs: () => input.audioMs,
    cachedPrompt: null,
    done: shared.done,
  };

  send({ type: 'session.created', session: sessionView() });

  const commit = ({ itemId, text: transcript }: Speech) => {
    const previous = items.at(-1)?.id ?? null;
    items.push({ id: itemId, type: 'message', role: 'user', text: transcript });
    send({ type: 'input_audio_buffer.committed', item_id: itemId, previous_item_id: previous });
    const view = { id: itemId, object: 'realtime.item', type: 'message', role: 'user', status: 'completed' };
    send({
      type: 'conversation.item.added',
      previous_item_id: previous,
      item: { ...view, content: [{ type: 'input_audio', transcript: null }] },
    });
    if (session.audio.input.transcription) void transcribe(itemId, previous, transcript);
    else
      send({
        type: 'conversation.item.done',
        previous_item_id: previous,
        item: { ...view, content: [{ type: 'input_audio', transcript: null }] },
      });
  };

  const transcribe = async (itemId: string, previous: string | null, transcript: string) => {
    if (options.transcriptionDelayMs) await sleep(options.transcriptionDelayMs);
    const view = { id: itemId, object: 'realtime.item', type: 'message', role: 'user', status: 'completed' };
    if (transcript)
      send({
        type: 'conversation.item.input_audio_transcription.delta',
        item_id: itemId,
        content_index: 0,
        delta: transcript,
      });
    send({
      type: 'conversation.item.input_audio_transcription.completed',
      item_id: itemId,
      content_index: 0,
      transcript,
      usage: { type: 'duration', seconds: 1 },
    });
    send({
      type: 'conversation.item.done',
      previous_item_id: previous,
      item: { ...view, content: [{ type: 'input_audio', transcript }] },
    });
  };

  const invalid = (event: ClientEvent, message: string, code = 'invalid_value') =>
    error('invalid_request_error', code, message, event.event_id);

  const handlers: Record<string, (event: ClientEvent) => void> = {
    'session.update': (event) => {
      const update = event.session ?? {};
      if (update.type !== 'realtime') return invalid(event, "Invalid value: session.type must be 'realtime'.");
      if (typeof update.instructions === 'string') session.instructions = update.instructions;
      if (Array.isArray(update.tools)) session.tools = update.tools;
      Object.assign(session.audio.input, update.audio?.input ?? {});
      Object.assign(session.audio.output, update.audio?.output ?? {});
      send({ type: 'session.updated', session: sessionView() });
    },
    'input_audio_buffer.append': (event) => {
      if (session.audio.input.format.type !== 'audio/pcmu')
        return invalid(event, 'The fake takes audio/pcmu input only.');
      input.append(Buffer.from(String(event.audio ?? ''), 'base64'));
    },
    'input_audio_buffer.clear': () => {
      input.clear();
      send({ type: 'input_audio_buffer.cleared' });
    },
    'input_audio_buffer.commit': (event) => {
      const speech = input.takeSpeech();
      if (!speech)
        return invalid(
          event,
          'Error committing input audio buffer: buffer is empty.',
          'input_audio_buffer_commit_empty',
        );
      commit(speech);
    },
    'conversation.item.create': (event) => {
      const item = event.item ?? {};
      const id = item.id ?? `item_${randomUUID()}`;
      const previous = items.at(-1)?.id ?? null;
      if (item.type === 'function_call_output') {
        if (!items.some((known) => known.type === 'function_call' && known.call_id === item.call_id))
          return invalid(event, `Tool call ID '${item.call_id}' not found in conversation.`);
        items.push({ id, type: 'function_call_output', call_id: item.call_id, output: String(item.output ?? '') });
      } else if (item.type === 'message') {
        const text = (item.content ?? []).map((part) => part.text ?? part.transcript ?? '').join(' ');
        items.push({ id, type: 'message', role: item.role, text, audioMs: 0 });
      } else return invalid(event, `Invalid item type: ${String(item.type)}`);
      const view = { id, object: 'realtime.item', ...item };
      send({ type: 'conversation.item.added', previous_item_id: previous, item: view });
      send({ type: 'conversation.item.done', previous_item_id: previous, item: view });
    },
    'conversation.item.truncate': (event) => {
      const item = items.find((known) => known.id === event.item_id);
      if (!item || item.role !== 'assistant')
        return invalid(
          event,
          `Only assistant messages can be truncated: ${String(event.item_id)}`,
          'item_truncate_invalid_item_id',
        );
      const endMs = Number(event.audio_end_ms);
      if (!(endMs >= 0) || endMs > (item.audioMs ?? 0))
        return invalid(event, `Audio content of ${item.audioMs ?? 0}ms is shorter than ${endMs}ms`);
      // What the model keeps of its words: the part whose audio was heard.
      item.text = Array.from(item.text ?? '')
        .slice(0, Math.floor(endMs / FRAME_MS))
        .join('');
      item.audioMs = endMs;
      send({ type: 'conversation.item.truncated', item_id: item.id, content_index: 0, audio_end_ms: endMs });
    },
    'response.create': (event) => void respond(responses, event.response ?? {}),
    'response.cancel': (event) => {
      if (!responses.active)
        return invalid(event, 'Cancellation failed: no active response found', 'response_cancel_not_active');
      responses.active.cancelled = true;
    },
  };

  ws.on('message', (data) => {
    let event: ClientEvent;
    try {
      event = JSON.parse(String(data)) as ClientEvent;
    } catch {
      return error('invalid_request_error', 'invalid_json', 'The event is not valid JSON.');
    }
    shared.received.push(event as FakeRealtime['received'][number]);
    const handler = handlers[String(event.type)];
    if (!handler) return invalid(event, `Invalid value: '${String(event.type)}'.`);
    handler(event);
  });
}
