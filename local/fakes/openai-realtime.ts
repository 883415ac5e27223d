import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocket, WebSocketServer } from 'ws';
import { decodeMulaw, encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { decodeSpeechFrame, FRAME_SAMPLES, isVoiceActivity, synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { connectionDelay } from './connection-delay.ts';
import { selfSignedCertificate } from './self-signed-certificate.ts';
import { fakeReply, type ChatMessage, type ChatRequest } from './openai-compatible.ts';

export interface FakeRealtimeOptions {
  apiKey: string;
  /** Fixed delay from a response's creation to its first audio (latency bench); default 0. */
  firstAudioDelayMs?: number;
  /** A new connection's setup (TLS across the internet) before the session opens (latency bench); default 0. */
  connectDelayMs?: number;
  /** Fixed delay from a turn's commit to its transcription (latency bench); default 0. */
  transcriptionDelayMs?: number;
  /** The n-th response (1-based) and later ones fail with `rate_limit_exceeded` (fault tests). */
  rateLimitFromResponse?: number;
}

export interface FakeRealtime {
  /** Base URL for the `openai` client (`REALTIME_API_URL`): https, ends in /v1 (the SDK opens wss://…/v1/realtime). */
  url: string;
  /** The self-signed certificate the fake serves (PEM): what a client must trust to reach it. */
  ca: string;
  /** Every client event received, all sessions together (tests check what the client sent). */
  readonly received: { type: string; [key: string]: unknown }[];
  /** The `model` query of each session opened. */
  readonly sessions: string[];
  stop: () => Promise<void>;
}

/** The session as the fake keeps it: what session.update set (GA shape, `audio.input` / `audio.output`). */
interface Session {
  instructions: string;
  tools: { type: 'function'; name: string; description?: string; parameters?: object }[];
  audio: {
    input: {
      format: { type: string };
      transcription: { model: string } | null;
      turn_detection: {
        type: string;
        silence_duration_ms?: number;
        create_response?: boolean;
        interrupt_response?: boolean;
      } | null;
    };
    output: { format: { type: string }; voice: string };
  };
}

/** An item of the conversation: a message with its text (a transcript), or a function call or its output. */
interface Item {
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
  response?: { instructions?: string; conversation?: string; metadata?: object };
}

const FRAME_MS = (FRAME_SAMPLES * 1000) / 8000;
/** The audio of a response goes in pieces of this much (the API's deltas are a few hundred ms). */
const DELTA_MS = 200;
const SAY_EXACTLY = /Say exactly(?: these words)?[^:]*:\s*"([\s\S]+)"\s*$/;

/**
 * A local OpenAI Realtime API (GA): `wss://…/v1/realtime?model=…` with Bearer authentication, the
 * same JSON events both ways as the `openai` package's types name them. The session: `session.update`
 * → `session.updated`. The caller's audio (`input_audio_buffer.append`, `audio/pcmu`) goes through
 * server VAD on the audio's own time (`speech_started`, then after `silence_duration_ms` of silence
 * `speech_stopped`, `committed`, the user item, its transcription `…input_audio_transcription.completed`,
 * and a response unless `create_response` is false); speech while a response runs cancels it
 * (`interrupt_response`). It "hears" the synthetic speech of media/src/audio/tones.ts and answers
 * with the same deterministic rules as the fake chat model (./openai-compatible.ts `fakeReply`):
 * `response.output_audio.delta` (mu-law of tones.ts speech) with `response.output_audio_transcript.delta`,
 * or a function call (`response.function_call_arguments.done`); `response.done` carries the usage in
 * text and audio tokens, then `rate_limits.updated`. An out-of-band response (`conversation: "none"`)
 * whose instructions end `Say exactly: "<text>"` says that text. `conversation.item.create`,
 * `conversation.item.truncate` (checked against the item's audio), `response.cancel`, and an
 * `error` event for what the API refuses.
 */
export async function startFakeRealtime(options: FakeRealtimeOptions): Promise<FakeRealtime> {
  const received: FakeRealtime['received'] = [];
  const sessions: string[] = [];
  let responses = 0;
  const { key, cert } = selfSignedCertificate();
  const connecting = connectionDelay(options.connectDelayMs);
  const server = createServer({ key, cert }, (_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (request: IncomingMessage, socket, head) => {
    const url = new URL(request.url ?? '/', 'https://localhost');
    if (url.pathname !== '/v1/realtime') return void socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
    if (request.headers.authorization !== `Bearer ${options.apiKey}`)
      return void socket.end('HTTP/1.1 401 Unauthorized\r\n\r\n');
    const model = url.searchParams.get('model');
    if (!model) return void socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    sessions.push(model);
    void connecting(request).then(() => wss.handleUpgrade(request, socket, head, (ws) => converse(ws, model)));
  });

  function converse(ws: WebSocket, model: string): void {
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
    let pending = Buffer.alloc(0);
    let audioMs = 0;
    let speech: { startMs: number; itemId: string; text: string; silentMs: number } | null = null;
    let active: { id: string; cancelled: boolean } | null = null;
    const send = (event: object) => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ event_id: `event_${randomUUID()}`, ...event }));
    };
    const error = (type: string, code: string, message: string, eventId?: unknown) =>
      send({ type: 'error', error: { type, code, message, param: null, event_id: eventId ?? null } });
    const sessionView = () => ({
      type: 'realtime',
      object: 'realtime.session',
      id: `sess_${model}`,
      model,
      ...session,
    });
    const turnDetection = () => session.audio.input.turn_detection;

    send({ type: 'session.created', session: sessionView() });

    const onFrame = (frame: Int16Array): void => {
      audioMs += FRAME_MS;
      const voice = isVoiceActivity(frame);
      const vad = turnDetection();
      if (!vad) return;
      if (voice && !speech) {
        speech = { startMs: audioMs - FRAME_MS, itemId: `item_${randomUUID()}`, text: '', silentMs: 0 };
        send({ type: 'input_audio_buffer.speech_started', audio_start_ms: speech.startMs, item_id: speech.itemId });
        if (active && vad.interrupt_response !== false) active.cancelled = true;
      }
      if (!speech) return;
      const char = decodeSpeechFrame(frame);
      if (char !== null) speech.text += char;
      speech.silentMs = voice ? 0 : speech.silentMs + FRAME_MS;
      if (speech.silentMs < (vad.silence_duration_ms ?? 500)) return;
      const { itemId, text } = speech;
      speech = null;
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: audioMs, item_id: itemId });
      commit(itemId, text.trim());
      if (vad.create_response !== false) void respond({});
    };

    const commit = (itemId: string, transcript: string) => {
      const previous = items.at(-1)?.id ?? null;
      const item: Item = { id: itemId, type: 'message', role: 'user', text: transcript };
      items.push(item);
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

    /** The conversation as the fake chat model reads it. */
    const chatRequest = (instructions: string): ChatRequest => ({
      model,
      messages: [
        { role: 'system', content: instructions },
        ...items.map((item): ChatMessage => {
          if (item.type === 'function_call')
            return {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: item.call_id!, function: { name: item.name!, arguments: item.arguments! } }],
            };
          if (item.type === 'function_call_output')
            return { role: 'tool', tool_call_id: item.call_id!, content: item.output! };
          return { role: item.role!, content: item.text ?? '' };
        }),
      ],
      tools: session.tools.map((tool) => ({ type: 'function' as const, function: tool as never })),
    });

    async function respond(request: {
      instructions?: string;
      conversation?: string;
      metadata?: object;
    }): Promise<void> {
      const id = `resp_${randomUUID()}`;
      const inConversation = request.conversation !== 'none';
      if (inConversation && active)
        return error(
          'invalid_request_error',
          'conversation_already_has_active_response',
          `Conversation already has an active response in progress: ${active.id}.`,
        );
      responses += 1;
      const response = {
        id,
        object: 'realtime.response',
        status: 'in_progress',
        conversation_id: inConversation ? 'conv_1' : null,
        metadata: request.metadata ?? null,
        output: [] as object[],
      };
      send({ type: 'response.created', response });
      if (options.rateLimitFromResponse !== undefined && responses >= options.rateLimitFromResponse) {
        send({
          type: 'response.done',
          response: {
            ...response,
            status: 'failed',
            status_details: {
              type: 'failed',
              error: {
                type: 'rate_limit_exceeded',
                code: 'rate_limit_exceeded',
                message: 'Rate limit reached for requests',
              },
            },
          },
        });
        send({
          type: 'rate_limits.updated',
          rate_limits: [{ name: 'requests', limit: 100, remaining: 0, reset_seconds: 20 }],
        });
        return;
      }
      const state = { id, cancelled: false };
      if (inConversation) active = state;
      const instructions = request.instructions ?? session.instructions;
      const exact = SAY_EXACTLY.exec(instructions)?.[1];
      const reply = exact !== undefined ? { content: exact, toolCalls: [] } : fakeReply(chatRequest(instructions));
      if (options.firstAudioDelayMs) await sleep(options.firstAudioDelayMs);
      const output: Item[] = [];
      let outputAudioMs = 0;
      if (reply.content) {
        const item: Item = { id: `item_${randomUUID()}`, type: 'message', role: 'assistant', text: '', audioMs: 0 };
        output.push(item);
        const view = {
          id: item.id,
          object: 'realtime.item',
          type: 'message',
          role: 'assistant',
          status: 'in_progress',
          content: [],
        };
        const where = { response_id: id, item_id: item.id, output_index: 0, content_index: 0 };
        send({ type: 'response.output_item.added', response_id: id, output_index: 0, item: view });
        if (inConversation) {
          send({ type: 'conversation.item.added', previous_item_id: items.at(-1)?.id ?? null, item: view });
          items.push(item);
        }
        send({ type: 'response.content_part.added', ...where, part: { type: 'audio', transcript: '' } });
        const audio = encodeMulaw(synthesizeSpeech(reply.content));
        const chars = Array.from(reply.content);
        const charsPerDelta = DELTA_MS / FRAME_MS; // tones.ts: one character per 20 ms frame
        for (let at = 0; at < chars.length && !state.cancelled; at += charsPerDelta) {
          const piece = chars.slice(at, at + charsPerDelta).join('');
          send({ type: 'response.output_audio_transcript.delta', ...where, delta: piece });
          const bytes = audio.subarray(at * FRAME_SAMPLES, (at + charsPerDelta) * FRAME_SAMPLES);
          send({ type: 'response.output_audio.delta', ...where, delta: bytes.toString('base64') });
          item.text += piece;
          item.audioMs = (item.audioMs ?? 0) + bytes.length / 8;
          await new Promise((resolve) => setImmediate(resolve)); // lets a cancel in
        }
        outputAudioMs = item.audioMs ?? 0;
        if (!state.cancelled) {
          send({ type: 'response.output_audio.done', ...where });
          send({ type: 'response.output_audio_transcript.done', ...where, transcript: item.text });
          send({ type: 'response.content_part.done', ...where, part: { type: 'audio', transcript: item.text } });
        }
        const done = {
          ...view,
          status: state.cancelled ? 'incomplete' : 'completed',
          content: [{ type: 'output_audio', transcript: item.text }],
        };
        send({ type: 'response.output_item.done', response_id: id, output_index: 0, item: done });
        if (inConversation) send({ type: 'conversation.item.done', item: done });
      }
      for (const call of state.cancelled ? [] : reply.toolCalls) {
        const item: Item = {
          id: `item_${randomUUID()}`,
          type: 'function_call',
          call_id: `call_${randomUUID().slice(0, 18)}`,
          name: call.name,
          arguments: JSON.stringify(call.arguments),
        };
        const outputIndex = output.push(item) - 1;
        if (inConversation) items.push(item);
        const view = {
          id: item.id,
          object: 'realtime.item',
          type: 'function_call',
          status: 'completed',
          call_id: item.call_id,
          name: item.name,
          arguments: item.arguments,
        };
        send({
          type: 'response.output_item.added',
          response_id: id,
          output_index: outputIndex,
          item: { ...view, arguments: '', status: 'in_progress' },
        });
        send({
          type: 'response.function_call_arguments.delta',
          response_id: id,
          item_id: item.id,
          output_index: outputIndex,
          call_id: item.call_id,
          delta: item.arguments,
        });
        send({
          type: 'response.function_call_arguments.done',
          response_id: id,
          item_id: item.id,
          output_index: outputIndex,
          call_id: item.call_id,
          name: item.name,
          arguments: item.arguments,
        });
        send({ type: 'response.output_item.done', response_id: id, output_index: outputIndex, item: view });
      }
      if (active === state) active = null;
      const inputText = Math.ceil(JSON.stringify(chatRequest(instructions).messages).length / 4);
      const inputAudio = Math.ceil(audioMs / 100); // the API counts about 10 tokens a second of the caller's audio
      const outputAudio = Math.ceil(outputAudioMs / 50); // and about 20 a second of its own
      const outputText = Math.ceil((reply.content.length + reply.toolCalls.length * 20) / 4);
      send({
        type: 'response.done',
        response: {
          ...response,
          status: state.cancelled ? 'cancelled' : 'completed',
          ...(state.cancelled ? { status_details: { type: 'cancelled', reason: 'turn_detected' } } : {}),
          output: output.map((item) => ({
            id: item.id,
            type: item.type,
            ...(item.type === 'function_call'
              ? { call_id: item.call_id, name: item.name, arguments: item.arguments }
              : { role: 'assistant', content: [{ type: 'output_audio', transcript: item.text }] }),
          })),
          usage: {
            total_tokens: inputText + inputAudio + outputAudio + outputText,
            input_tokens: inputText + inputAudio,
            output_tokens: outputAudio + outputText,
            input_token_details: { text_tokens: inputText, audio_tokens: inputAudio, cached_tokens: 0 },
            output_token_details: { text_tokens: outputText, audio_tokens: outputAudio },
          },
        },
      });
      send({
        type: 'rate_limits.updated',
        rate_limits: [
          { name: 'requests', limit: 5000, remaining: 5000 - responses, reset_seconds: 60 },
          { name: 'tokens', limit: 400_000, remaining: 400_000 - inputText - outputText, reset_seconds: 60 },
        ],
      });
    }

    const handlers: Record<string, (event: ClientEvent) => void> = {
      'session.update': (event) => {
        const update = event.session ?? {};
        if (update.type !== 'realtime')
          return error(
            'invalid_request_error',
            'invalid_value',
            "Invalid value: session.type must be 'realtime'.",
            event.event_id,
          );
        if (typeof update.instructions === 'string') session.instructions = update.instructions;
        if (Array.isArray(update.tools)) session.tools = update.tools;
        const input = update.audio?.input ?? {};
        const output = update.audio?.output ?? {};
        Object.assign(session.audio.input, input);
        Object.assign(session.audio.output, output);
        send({ type: 'session.updated', session: sessionView() });
      },
      'input_audio_buffer.append': (event) => {
        if (session.audio.input.format.type !== 'audio/pcmu')
          return error(
            'invalid_request_error',
            'invalid_value',
            'The fake takes audio/pcmu input only.',
            event.event_id,
          );
        pending = Buffer.concat([pending, Buffer.from(String(event.audio ?? ''), 'base64')]);
        for (; pending.length >= FRAME_SAMPLES; pending = pending.subarray(FRAME_SAMPLES))
          onFrame(decodeMulaw(pending.subarray(0, FRAME_SAMPLES)));
      },
      'input_audio_buffer.clear': () => {
        pending = Buffer.alloc(0);
        speech = null;
        send({ type: 'input_audio_buffer.cleared' });
      },
      'input_audio_buffer.commit': (event) => {
        if (!speech)
          return error(
            'invalid_request_error',
            'input_audio_buffer_commit_empty',
            'Error committing input audio buffer: buffer is empty.',
            event.event_id,
          );
        const { itemId, text } = speech;
        speech = null;
        commit(itemId, text.trim());
      },
      'conversation.item.create': (event) => {
        const item = event.item ?? {};
        const id = item.id ?? `item_${randomUUID()}`;
        const previous = items.at(-1)?.id ?? null;
        if (item.type === 'function_call_output') {
          if (!items.some((known) => known.type === 'function_call' && known.call_id === item.call_id))
            return error(
              'invalid_request_error',
              'invalid_value',
              `Tool call ID '${item.call_id}' not found in conversation.`,
              event.event_id,
            );
          items.push({ id, type: 'function_call_output', call_id: item.call_id, output: String(item.output ?? '') });
        } else if (item.type === 'message') {
          const text = (item.content ?? [])
            .map((part: { text?: string; transcript?: string }) => part.text ?? part.transcript ?? '')
            .join(' ');
          items.push({ id, type: 'message', role: item.role, text, audioMs: 0 });
        } else
          return error(
            'invalid_request_error',
            'invalid_value',
            `Invalid item type: ${String(item.type)}`,
            event.event_id,
          );
        send({
          type: 'conversation.item.added',
          previous_item_id: previous,
          item: { id, object: 'realtime.item', ...item },
        });
        send({
          type: 'conversation.item.done',
          previous_item_id: previous,
          item: { id, object: 'realtime.item', ...item },
        });
      },
      'conversation.item.truncate': (event) => {
        const item = items.find((known) => known.id === event.item_id);
        if (!item || item.role !== 'assistant')
          return error(
            'invalid_request_error',
            'item_truncate_invalid_item_id',
            `Only assistant messages can be truncated: ${String(event.item_id)}`,
            event.event_id,
          );
        const endMs = Number(event.audio_end_ms);
        if (!(endMs >= 0) || endMs > (item.audioMs ?? 0))
          return error(
            'invalid_request_error',
            'invalid_value',
            `Audio content of ${item.audioMs ?? 0}ms is shorter than ${endMs}ms`,
            event.event_id,
          );
        // What the model keeps of its words: the part whose audio was heard.
        item.text = Array.from(item.text ?? '')
          .slice(0, Math.floor(endMs / FRAME_MS))
          .join('');
        item.audioMs = endMs;
        send({ type: 'conversation.item.truncated', item_id: item.id, content_index: 0, audio_end_ms: endMs });
      },
      'response.create': (event) => void respond(event.response ?? {}),
      'response.cancel': (event) => {
        if (!active)
          return error(
            'invalid_request_error',
            'response_cancel_not_active',
            'Cancellation failed: no active response found',
            event.event_id,
          );
        active.cancelled = true;
      },
    };

    ws.on('message', (data) => {
      let event: ClientEvent;
      try {
        event = JSON.parse(String(data)) as ClientEvent;
      } catch {
        return error('invalid_request_error', 'invalid_json', 'The event is not valid JSON.');
      }
      received.push(event as FakeRealtime['received'][number]);
      const handler = handlers[String(event.type)];
      if (!handler)
        return error(
          'invalid_request_error',
          'invalid_value',
          `Invalid value: '${String(event.type)}'.`,
          event.event_id,
        );
      handler(event);
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/v1`,
    ca: cert,
    received,
    sessions,
    stop: async () => {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
