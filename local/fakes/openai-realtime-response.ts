/**
 * One response of the local Realtime fake (`response.create`, or the server VAD's own): the reply
 * chosen by the same deterministic rules as the fake chat model (./openai-compatible.ts
 * `fakeReply`) over the conversation's items, or the words of instructions that end
 * `Say exactly: "<text>"`; said as `response.output_audio.delta` (mu-law of tones.ts speech) with
 * `response.output_audio_transcript.delta`, or function calls; `response.done` with the usage in
 * text and audio tokens, then `rate_limits.updated`. The session it runs in:
 * ./openai-realtime-session.ts.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { encodeMulaw } from '../../media/src/audio/mulaw.ts';
import { FRAME_SAMPLES, synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { fakeReply, type ChatMessage, type ChatRequest } from './openai-compatible.ts';
import type { FakeRealtimeOptions } from './openai-realtime.ts';
import type { Item, Session } from './openai-realtime-session.ts';
import { FRAME_MS } from './openai-realtime-turns.ts';

/** The audio of a response goes in pieces of this much (the API's deltas are a few hundred ms). */
const DELTA_MS = 200;
const SAY_EXACTLY = /Say exactly(?: these words)?[^:]*:\s*"([\s\S]+)"\s*$/;

export interface ResponseRequest {
  instructions?: string;
  conversation?: string;
  /** An out-of-band response's own input instead of the conversation (`[]`: the instructions alone). */
  input?: unknown[];
  metadata?: object;
}

/** A response's `usage` as `response.done` reports it. */
export interface ResponseUsage {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  input_token_details: {
    text_tokens: number;
    audio_tokens: number;
    cached_tokens: number;
    cached_tokens_details: { text_tokens: number; audio_tokens: number };
  };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

/** The input of a response in tokens, and what of it begins the next one's (the prompt cache's key). */
export interface PromptTokens {
  /** The instructions and tools: a prompt beginning otherwise shares nothing with this one. */
  head: string;
  text: number;
  audio: number;
}

/** The API caches prompts of 1,024 tokens and more, in steps of 128 (OpenAI's prompt caching). */
const CACHE_MIN_TOKENS = 1024;
const CACHE_STEP_TOKENS = 128;

/**
 * The cached part of `prompt`: the previous in-conversation response's input, when this one begins
 * with the same instructions and tools (the conversation only grows), in the cache's steps; the
 * text first, since the instructions begin the prompt.
 */
function cachedTokens(previous: PromptTokens | null, prompt: PromptTokens) {
  if (!previous || previous.head !== prompt.head) return { text_tokens: 0, audio_tokens: 0 };
  const shared = Math.min(previous.text, prompt.text) + Math.min(previous.audio, prompt.audio);
  const cached = shared < CACHE_MIN_TOKENS ? 0 : shared - (shared % CACHE_STEP_TOKENS);
  const text = Math.min(cached, previous.text, prompt.text);
  return { text_tokens: text, audio_tokens: cached - text };
}

/** The response the conversation is running (an out-of-band one is not): a cancel or speech stops it. */
export interface ActiveResponse {
  id: string;
  cancelled: boolean;
}

/** What a response reads and writes of its session. */
export interface ResponseContext {
  options: FakeRealtimeOptions;
  model: string;
  session: Session;
  items: Item[];
  send(event: object): void;
  error(type: string, code: string, message: string): void;
  active: ActiveResponse | null;
  /** Counts this response among all sessions' (the rate limit's n-th); returns its number. */
  count(): number;
  /** The caller's audio heard so far (ms). */
  inputAudioMs(): number;
  /** The last in-conversation response's input: what the prompt cache holds. */
  cachedPrompt: PromptTokens | null;
  /** Every `response.done`'s response as sent (the fake's `responses`). */
  done(response: { id: string; status: string; conversation_id: string | null; usage?: ResponseUsage }): void;
}

/** The conversation as the fake chat model reads it. */
function chatRequest(context: ResponseContext, instructions: string): ChatRequest {
  return {
    model: context.model,
    messages: [
      { role: 'system', content: instructions },
      ...context.items.map((item): ChatMessage => {
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
    tools: context.session.tools.map((tool) => ({ type: 'function' as const, function: tool as never })),
  };
}

export async function respond(context: ResponseContext, request: ResponseRequest): Promise<void> {
  const { send, items, options } = context;
  const id = `resp_${randomUUID()}`;
  const inConversation = request.conversation !== 'none';
  if (inConversation && context.active)
    return context.error(
      'invalid_request_error',
      'conversation_already_has_active_response',
      `Conversation already has an active response in progress: ${context.active.id}.`,
    );
  const responses = context.count();
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
    const failed = {
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
    };
    context.done(failed);
    send({ type: 'response.done', response: failed });
    send({
      type: 'rate_limits.updated',
      rate_limits: [{ name: 'requests', limit: 100, remaining: 0, reset_seconds: 20 }],
    });
    return;
  }
  const state: ActiveResponse = { id, cancelled: false };
  if (inConversation) context.active = state;
  const instructions = request.instructions ?? context.session.instructions;
  const exact = SAY_EXACTLY.exec(instructions)?.[1];
  const reply = exact !== undefined ? { content: exact, toolCalls: [] } : fakeReply(chatRequest(context, instructions));
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
      // Lets a cancel in; a model slower than the line streams its audio over time.
      await (options.audioDeltaIntervalMs ? sleep(options.audioDeltaIntervalMs) : new Promise(setImmediate));
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
    const where = { response_id: id, item_id: item.id, output_index: outputIndex, call_id: item.call_id };
    send({
      type: 'response.output_item.added',
      response_id: id,
      output_index: outputIndex,
      item: { ...view, arguments: '', status: 'in_progress' },
    });
    send({ type: 'response.function_call_arguments.delta', ...where, delta: item.arguments });
    send({ type: 'response.function_call_arguments.done', ...where, name: item.name, arguments: item.arguments });
    send({ type: 'response.output_item.done', response_id: id, output_index: outputIndex, item: view });
  }
  if (context.active === state) context.active = null;
  const usage = responseUsage(context, request, instructions, {
    audioMs: outputAudioMs,
    textChars: reply.content.length + reply.toolCalls.length * 20,
  });
  const done = {
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
    usage,
  };
  context.done(done);
  send({ type: 'response.done', response: done });
  const inputText = usage.input_token_details.text_tokens;
  const outputText = usage.output_token_details.text_tokens;
  send({
    type: 'rate_limits.updated',
    rate_limits: [
      { name: 'requests', limit: 5000, remaining: 5000 - responses, reset_seconds: 60 },
      { name: 'tokens', limit: 400_000, remaining: 400_000 - inputText - outputText, reset_seconds: 60 },
    ],
  });
}

/**
 * A response's usage, counted as the API counts it: the input is the prompt (the instructions and
 * the conversation's items in text, about 4 characters a token, and the caller's audio, about 10
 * tokens a second; an out-of-band response given its own `input` reads that and the instructions
 * only), the output the answer's audio (about 20 tokens a second) and its text. The input
 * begun as the last in-conversation response's was is cached.
 */
function responseUsage(
  context: ResponseContext,
  request: ResponseRequest,
  instructions: string,
  output: { audioMs: number; textChars: number },
): ResponseUsage {
  const ownInput = request.conversation === 'none' && request.input !== undefined;
  const messages = ownInput
    ? [{ role: 'system', content: instructions }, ...(request.input ?? [])]
    : chatRequest(context, instructions).messages;
  const prompt: PromptTokens = {
    head: JSON.stringify([instructions, context.session.tools]),
    text: Math.ceil(JSON.stringify(messages).length / 4),
    audio: ownInput ? 0 : Math.ceil(context.inputAudioMs() / 100),
  };
  const cached = ownInput ? { text_tokens: 0, audio_tokens: 0 } : cachedTokens(context.cachedPrompt, prompt);
  if (request.conversation !== 'none') context.cachedPrompt = prompt;
  const outputAudio = Math.ceil(output.audioMs / 50);
  const outputText = Math.ceil(output.textChars / 4);
  return {
    total_tokens: prompt.text + prompt.audio + outputAudio + outputText,
    input_tokens: prompt.text + prompt.audio,
    output_tokens: outputAudio + outputText,
    input_token_details: {
      text_tokens: prompt.text,
      audio_tokens: prompt.audio,
      cached_tokens: cached.text_tokens + cached.audio_tokens,
      cached_tokens_details: cached,
    },
    output_token_details: { text_tokens: outputText, audio_tokens: outputAudio },
  };
}
