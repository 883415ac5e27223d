import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { synthesizeSpeech } from '../../media/src/audio/tones.ts';
import { SCRIPT_READING } from '../../shared/ai/script-reading.ts';
import { CALL_ANALYSIS } from '../../shared/domain/call-analysis.ts';
import { SIMULATED_CALLER } from '../../shared/domain/agent-test-runs.ts';
import { connectionDelay } from './connection-delay.ts';
import { readScriptPrompt } from './script-reader.ts';

export interface FakeOpenAiOptions {
  apiKey: string;
  /** Fixed delay before the first streamed chunk (latency bench); default 0. */
  firstTokenDelayMs?: number;
  /** A new connection's setup (TLS across the internet) before its first answer (latency bench); default 0. */
  connectDelayMs?: number;
  /** Answers 500 to the n-th chat request (1-based) and later ones (fault tests). */
  failFromRequest?: number;
}

export interface FakeOpenAi {
  /** Base URL for the `openai` client (`LLM_API_URL`), ends in /v1. */
  url: string;
  /** Chat requests received so far (tests check what the model was given). */
  readonly chatRequests: ChatRequest[];
  /** Chat requests whose system prompt contains one of these answer 500 (also `POST /fake/faults {system_contains}`). */
  readonly faults: string[];
  /** `GET /v1/models` requests so far (a media task opens its connection so before a call starts). */
  readonly modelListings: () => number;
  stop: () => Promise<void>;
}

export interface ChatMessage {
  role: string;
  content?: string | null;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

export interface ChatRequest {
  model: string;
  stream?: boolean;
  messages: ChatMessage[];
  tools?: {
    type: 'function';
    function: {
      name: string;
      description?: string;
      parameters?: { properties?: Record<string, { type?: string; enum?: unknown[] }> };
    };
  }[];
  response_format?: { type: string; json_schema?: { name?: string; schema?: JsonSchema } };
}

interface JsonSchema {
  type?: string;
  enum?: unknown[];
  properties?: Record<string, JsonSchema>;
}

type Reply = { content: string; toolCalls: { name: string; arguments: Record<string, unknown> }[] };

/** Tools the call loop always offers (media/src/agent/call-plan.ts). */
const BUILT_IN_TOOLS = new Set([
  'set_call_disposition',
  'save_information',
  'end_call',
  'send_digits',
  'transfer_call',
  'send_sms',
  'save_note',
]);

/**
 * The deterministic "model" behind the fake. Rules, first match wins (README "Local fakes"):
 * 1. the last message is a tool result: `Done: <the result, 80 chars at most>`;
 * 2. the caller says goodbye/bye: the closing the prompt asks for (`say "<closing>" and call
 *    end_call`) with the tool calls `set_call_disposition` (the first code it may choose) and `end_call`;
 * 2a. the caller texted during the call (`(The caller texted: <words>)`, a turn of theirs) and no answer
 *     since has said so: `Thank you, I have your text: <words>` (checked before 2);
 * 2b. `send_digits` is offered and the caller (a phone menu) says "press <keys>": a call of it with those keys;
 *     `transfer_call` is offered and the caller asks for a person (or a human, someone): a call of it
 *     to the first destination (the summary for a warm transfer, asked of "a colleague taking over",
 *     quotes the caller's lines); `send_sms` is offered and the caller asks for a text ("text me",
 *     "SMS"): a call of it with its first template (else free text saying so); `save_note` is offered and
 *     the caller says "remember that <words>" (or "note that"): a call of it with those words, about the caller;
 * 2c. a flow step (`Current step:` in the system prompt, media/src/agent/flow-plan.ts): `save_variables`
 *     offered is filled from the caller's words (a number: the first number said; a boolean: true for
 *     yes/yeah/agree/sure/true, false for no/not/don't/disagree/false; a string: the words, when the
 *     agent's last words asked for it, naming a word of 4+ letters of its name), and a
 *     transition function offered (`go_to_…`) is called when the caller's words contain a word its
 *     condition quotes (`The caller says "card"`): both calls in one answer when both apply;
 * 3. the caller's words include a word (4+ letters) of an offered HTTP tool's name: a call of
 *    that tool, each argument filled from the caller's words (strings), 1 (numbers), true;
 * 4. the system prompt carries knowledge passages: `According to our information, <passage>`;
 * 4b. a flow step whose instructions quote what to say (`Say "…"`): those words (also right after a
 *     `save_variables` or transition call); a step without them: `(<step name>) How can I help?`;
 * 5. no caller words yet: `Hello, this is <name from "You are <name>">. How can I help you?`;
 * 6. the prompt's conversation plan has a step n (n = the caller's turns so far): that step;
 * 7. otherwise (the plan is done) as 2: the closing, the disposition and the end of the call.
 * Authoring prompts: translation (`Target language: X`) answers `[X] <text>`; question writing
 * answers one `Could you tell me about <line>?` per line; script clean-up returns the trimmed lines;
 * the `script_analysis` JSON schema is answered by the rules of ./script-reader.ts, the
 * `call_analysis` one by `analyzeCall` below, the `simulated_caller` one (an agent test's caller)
 * by `playCaller`.
 */
export function fakeReply(request: ChatRequest): Reply {
  const messages = request.messages;
  const system = messages.find((message) => message.role === 'system')?.content ?? '';
  const last = messages.at(-1);
  const userText = last?.role === 'user' ? String(last.content ?? '') : '';
  const say = (content: string): Reply => ({ content, toolCalls: [] });

  if (request.response_format?.json_schema?.name === SCRIPT_READING)
    return say(JSON.stringify(readScriptPrompt(userText)));
  if (request.response_format?.json_schema?.name === SIMULATED_CALLER)
    return say(JSON.stringify(playCaller(system, userText)));
  if (request.response_format?.json_schema?.name === CALL_ANALYSIS)
    return say(JSON.stringify(analyzeCall(system, userText, request.response_format.json_schema.schema ?? {})));
  if (/colleague taking over/.test(system)) {
    const said = messages.filter((message) => message.role === 'user').map((message) => String(message.content));
    return say(`Handing over a caller who said: ${said.join(' / ') || 'nothing yet'}`);
  }
  const target = /Target language: (.+)/i.exec(system)?.[1]?.trim();
  if (target) return say(`[${target}] ${userText.trim()}`);
  if (/one question per topic/i.test(system)) {
    return say(
      lines(userText)
        .map((line) =>
          line.endsWith('?') ? line : `Could you tell me about ${line.replace(/[.:]+$/, '').toLowerCase()}?`,
        )
        .join('\n'),
    );
  }
  if (/clean up this call script/i.test(system))
    return say(
      lines(userText)
        .map((line) => line.replace(/\s+/g, ' '))
        .join('\n'),
    );

  const tools = request.tools ?? [];
  const step = flowStep(system);
  if (last?.role === 'tool') {
    const flowCall = /^(save_variables|go_to_)/.test(toolNameOf(messages, last.tool_call_id) ?? '');
    return step && flowCall ? say(step.say) : say(`Done: ${String(last.content ?? '').slice(0, 80)}`);
  }
  if (step && userText) {
    const lastAgentWords = messages.findLast((message) => message.role === 'assistant' && message.content)?.content;
    const flowCalls = flowToolCalls(tools, userText, String(lastAgentWords ?? ''));
    if (flowCalls.length) return { content: '', toolCalls: flowCalls };
  }
  const endCall = (): Reply => {
    const code = tools.find((tool) => tool.function.name === 'set_call_disposition')?.function.parameters?.properties
      ?.code?.enum?.[0];
    return {
      content: /say "([^"]+)" and call end_call/.exec(system)?.[1] ?? 'Thank you for your time. Goodbye.',
      toolCalls: [
        ...(code !== undefined ? [{ name: 'set_call_disposition', arguments: { code } }] : []),
        ...(tools.some((tool) => tool.function.name === 'end_call') ? [{ name: 'end_call', arguments: {} }] : []),
      ],
    };
  };
  // A text first: it reaches the agent whenever the carrier delivers it, the caller's goodbye included.
  const texted = unacknowledgedText(messages);
  if (texted !== undefined) return say(`Thank you, I have your text: ${texted.slice(0, 200)}`);
  if (/\b(good)?bye\b/i.test(userText)) return endCall();
  const transfer = tools.find((tool) => tool.function.name === 'transfer_call');
  if (transfer && /\b(person|human|someone)\b/i.test(userText)) {
    const destination = transfer.function.parameters?.properties?.destination?.enum?.[0];
    return { content: '', toolCalls: [{ name: 'transfer_call', arguments: { destination, reason: userText } }] };
  }
  const texting = tools.find((tool) => tool.function.name === 'send_sms');
  if (texting && /\b(text me|sms)\b/i.test(userText)) {
    const template = texting.function.parameters?.properties?.template?.enum?.[0];
    const args = template !== undefined ? { template } : { text: 'Here are the details you asked for.' };
    return { content: '', toolCalls: [{ name: 'send_sms', arguments: args }] };
  }
  const remember = /\b(?:remember|note) that (.+)$/i.exec(userText)?.[1];
  if (remember && tools.some((tool) => tool.function.name === 'save_note'))
    return { content: '', toolCalls: [{ name: 'save_note', arguments: { content: remember, topic: 'caller' } }] };
  const menuKeys = /\bpress ([0-9*#]+)/i.exec(userText)?.[1];
  if (menuKeys && tools.some((tool) => tool.function.name === 'send_digits'))
    return { content: '', toolCalls: [{ name: 'send_digits', arguments: { digits: menuKeys } }] };
  const words = new Set(userText.toLowerCase().match(/[a-z]{4,}/g) ?? []);
  const tool = tools.find(
    (candidate) =>
      !BUILT_IN_TOOLS.has(candidate.function.name) &&
      candidate.function.name.split('_').some((part) => words.has(part)),
  );
  if (tool) {
    const properties = tool.function.parameters?.properties ?? {};
    const args = Object.fromEntries(
      Object.entries(properties).map(([name, schema]) => [
        name,
        schema.enum?.[0] ??
          (schema.type === 'number' || schema.type === 'integer' ? 1 : schema.type === 'boolean' ? true : userText),
      ]),
    );
    return { content: '', toolCalls: [{ name: tool.function.name, arguments: args }] };
  }
  const passage = /Relevant knowledge[^\n]*\n+(?:\[[^\]]*\]\s*)?([^\n]+)/.exec(system)?.[1];
  if (passage) return say(`According to our information, ${passage.trim().slice(0, 200)}`);
  if (step) return say(step.say);
  const callerTurns = messages.filter((message) => message.role === 'user').length;
  if (!callerTurns) {
    const name = /You are ([^,.\n]+)/.exec(system)?.[1] ?? 'your assistant';
    return say(`Hello, this is ${name}. How can I help you?`);
  }
  const plan = /Conversation plan, in order:\n((?:\d+\. [^\n]*\n?)+)/.exec(system)?.[1]?.trim().split('\n') ?? [];
  const planned = plan[callerTurns - 1]?.replace(/^\d+\. /, '');
  return planned ? say(planned) : endCall();
}

/**
 * Rule 2a: the words of the caller's latest text during the call (domain/text-messages.ts
 * callerTextTurn) when no answer since has acknowledged it.
 */
function unacknowledgedText(messages: ChatMessage[]): string | undefined {
  const at = messages.findLastIndex((message) => message.role === 'user' && TEXT_TURN.test(String(message.content)));
  if (at < 0) return undefined;
  const acknowledged = messages
    .slice(at + 1)
    .some((message) => message.role === 'assistant' && String(message.content).startsWith(TEXT_ACKNOWLEDGED));
  return acknowledged ? undefined : TEXT_TURN.exec(String(messages[at]!.content))![1]!.trim();
}
const TEXT_TURN = /^\(The caller texted: ([\s\S]*)\)$/;
const TEXT_ACKNOWLEDGED = 'Thank you, I have your text';

/** The flow step the system prompt is in (media/src/agent/flow-plan.ts), and what the fake says there. */
function flowStep(system: string): { name: string; say: string } | null {
  const match = /Current step: ([^\n]+)\n([\s\S]*?)(?:\n\n|$)/.exec(system);
  if (!match) return null;
  const name = match[1]!.trim();
  return { name, say: /Say "([^"]+)"/.exec(match[2]!)?.[1] ?? `(${name}) How can I help?` };
}

/** The name of the tool a tool result answers. */
/** Token counts as a provider reports them, estimated as OpenAI's rule of thumb (4 characters a token). */
function fakeUsage(messages: ChatMessage[], answer: string) {
  const tokens = (text: string) => Math.ceil(text.length / 4);
  const prompt = messages.reduce((sum, message) => sum + tokens(String(message.content ?? '')), 0);
  const completion = tokens(answer);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function toolNameOf(messages: ChatMessage[], id: string | undefined): string | undefined {
  for (const message of messages)
    for (const call of message.tool_calls ?? []) if (call.id === id) return call.function.name;
  return undefined;
}

const YES = /\b(yes|yeah|agree|sure|true)\b/i;
const NO = /\b(no|not|don't|disagree|false)\b/i;

/** Rule 2c: the step's variables from the caller's words, and the transition its words cue. */
function flowToolCalls(
  tools: NonNullable<ChatRequest['tools']>,
  userText: string,
  lastAgentWords: string,
): Reply['toolCalls'] {
  const calls: Reply['toolCalls'] = [];
  const save = tools.find((tool) => tool.function.name === 'save_variables');
  if (save) {
    const values = Object.entries(save.function.parameters?.properties ?? {}).flatMap(
      ([name, schema]): [string, unknown][] => {
        if (schema.type === 'number') {
          const number = /-?\d+(?:\.\d+)?/.exec(userText)?.[0];
          return number === undefined ? [] : [[name, Number(number)]];
        }
        if (schema.type === 'boolean')
          return NO.test(userText) ? [[name, false]] : YES.test(userText) ? [[name, true]] : [];
        // Words answer a string variable when the agent asked for it (its last words name it).
        const asked = name.split('_').filter((word) => word.length >= 4);
        return asked.length && !asked.some((word) => lastAgentWords.toLowerCase().includes(word))
          ? []
          : [[name, userText.trim()]];
      },
    );
    if (values.length) calls.push({ name: 'save_variables', arguments: Object.fromEntries(values) });
  }
  const said = userText.toLowerCase();
  const transition = tools.find(
    (tool) =>
      tool.function.name.startsWith('go_to_') &&
      [...(tool.function.description ?? '').matchAll(/"([^"]+)"/g)].some(([, cue]) =>
        new RegExp(`\\b${cue!.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(said),
      ),
  );
  if (transition) calls.push({ name: transition.function.name, arguments: {} });
  return calls;
}

/**
 * An agent test's simulated caller (shared/domain/agent-test-runs.ts callerRequest), played
 * deterministically: its first turn says its goal, the next ones the persona's `Then: …` sentences
 * in order (`|` ends one), and after them it says goodbye and hangs up.
 */
function playCaller(system: string, prompt: string): { say: string; hang_up: boolean } {
  const turn = lines(prompt).filter((line) => line.startsWith('Caller: ')).length;
  const goal = /^Goal: (.+)$/m.exec(system)?.[1]?.trim() ?? 'I have a question.';
  const persona = /^Persona: (.+)$/m.exec(system)?.[1] ?? '';
  const then = [...persona.matchAll(/Then: ([^|]+)/g)].map((match) => match[1]!.trim());
  const said = [goal, ...then][turn];
  return said ? { say: said, hang_up: false } : { say: 'Thank you, goodbye.', hang_up: true };
}

/**
 * A post-call analysis from the transcript (`Agent:`/`Person:` lines): the summary counts the lines,
 * names the flow's steps the call went through (the prompt's `- <step>, then …` lines) and quotes the person; each structured field is filled from the person's lines (a string: the
 * first line naming a word of the field, a boolean: whether one does, a number: the first number
 * said, an enum: its first value); success: whether a word (4+ letters) of the criteria was said;
 * memories (when asked): assistantMemories below.
 */
function analyzeCall(system: string, prompt: string, schema: JsonSchema): Record<string, unknown> {
  const transcript = lines(prompt).filter((line) => /^(Agent|Person): /.test(line));
  const person = transcript.filter((line) => line.startsWith('Person: ')).map((line) => line.slice(8));
  const naming = (field: string) =>
    person.find((line) => field.split('_').some((word) => word.length >= 4 && line.toLowerCase().includes(word)));
  const steps = lines(prompt)
    .filter((line) => line.startsWith('- '))
    .flatMap((line) => /^- (.+?)(?:, then | \(the call ended here\))/.exec(line)?.[1] ?? []);
  const through = steps.length ? ` through the steps ${steps.join(' → ')}` : '';
  const answer: Record<string, unknown> = {
    summary:
      `A conversation of ${transcript.length} lines${through}; the person said: ${person.join(' / ') || 'nothing'}`.slice(
        0,
        300,
      ),
  };
  const fields = schema.properties?.structured_data?.properties;
  if (fields)
    answer.structured_data = Object.fromEntries(
      Object.entries(fields).map(([field, fieldSchema]) => [
        field,
        fieldSchema.enum?.[0] ??
          (fieldSchema.type === 'boolean'
            ? naming(field) !== undefined
            : fieldSchema.type === 'number' || fieldSchema.type === 'integer'
              ? Number(/\d+/.exec(person.join(' '))?.[0] ?? 0)
              : (naming(field) ?? '')),
      ]),
    );
  if (schema.properties?.memories) answer.memories = assistantMemories(system, prompt, person);
  const criteria = /^success_evaluation: .*?: (.+)$/m.exec(system)?.[1];
  if (criteria) {
    const said = transcript
      .map((line) => line.replace(/^(Agent|Person): /, ''))
      .join(' ')
      .toLowerCase();
    const word = criteria
      .toLowerCase()
      .match(/[a-z]{4,}/g)
      ?.find((candidate) => said.includes(candidate));
    answer.success_evaluation = word
      ? { successful: true, reason: `The conversation mentions "${word}".` }
      : { successful: false, reason: `Nothing said matches: ${criteria}` };
  }
  return answer;
}

/**
 * The assistant's memories from a call: a note of the person's first line, and a task due a day
 * after the call's end for each line asking to be called back; what the prompt lists as already
 * remembered is left out.
 */
function assistantMemories(system: string, prompt: string, person: string[]): Record<string, unknown>[] {
  const endedAt = Date.parse(/the call ended at (\S+?)\)/.exec(system)?.[1] ?? '');
  const known = lines(prompt).filter((line) => line.startsWith('- '));
  const proposed = [
    ...(person[0]
      ? [{ content: `The person said: ${person[0]}`, topic: 'caller', due_at: null, about_caller: true }]
      : []),
    ...person
      .filter((line) => /\bcall (me )?back\b|\bcallback\b/i.test(line))
      .map((line) => ({
        content: `Call back as promised: ${line}`,
        topic: 'callback',
        due_at: Number.isNaN(endedAt) ? null : new Date(endedAt + 86_400_000).toISOString(),
        about_caller: true,
      })),
  ];
  return proposed.filter((memory) => !known.some((line) => line.includes(memory.content)));
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

/**
 * A local OpenAI-compatible API: `POST /v1/chat/completions` (JSON or `stream: true` server-sent
 * events with `chat.completion.chunk` objects, tool calls streamed in pieces, then `data: [DONE]`)
 * and `POST /v1/audio/speech` (`response_format: "pcm"`: 24 kHz 16-bit mono, streamed), `GET
 * /v1/models`, with Bearer authentication and OpenAI's error body.
 */
export async function startFakeOpenAi(options: FakeOpenAiOptions): Promise<FakeOpenAi> {
  const chatRequests: ChatRequest[] = [];
  let modelListings = 0;
  const faults: string[] = [];

  const error = (response: ServerResponse, status: number, message: string, type: string): void => {
    response
      .writeHead(status, { 'Content-Type': 'application/json' })
      .end(JSON.stringify({ error: { message, type, param: null, code: null } }));
  };

  async function chat(body: ChatRequest, response: ServerResponse): Promise<void> {
    chatRequests.push(body);
    const system = String(body.messages?.find((message) => message.role === 'system')?.content ?? '');
    if (
      (options.failFromRequest !== undefined && chatRequests.length >= options.failFromRequest) ||
      faults.some((fault) => system.includes(fault))
    ) {
      return error(response, 500, 'The server had an error while processing your request.', 'server_error');
    }
    const reply = fakeReply(body);
    const id = `chatcmpl-${randomUUID()}`;
    const created = Math.floor(Date.now() / 1000);
    const toolCalls = reply.toolCalls.map((call, index) => ({
      index,
      id: `call_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      type: 'function' as const,
      name: call.name,
      arguments: JSON.stringify(call.arguments),
    }));
    if (!body.stream) {
      response.writeHead(200, { 'Content-Type': 'application/json' }).end(
        JSON.stringify({
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
              message: {
                role: 'assistant',
                content: reply.content || null,
                ...(toolCalls.length
                  ? {
                      tool_calls: toolCalls.map(({ index: _index, name, arguments: args, ...call }) => ({
                        ...call,
                        function: { name, arguments: args },
                      })),
                    }
                  : {}),
              },
            },
          ],
          usage: fakeUsage(body.messages ?? [], reply.content),
        }),
      );
      return;
    }
    response.writeHead(200, {
      'Content-Type': 'text/event-stream',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
    });
    const chunk = (delta: object, finishReason: string | null = null) =>
      response.write(
        `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`,
      );
    if (options.firstTokenDelayMs) await sleep(options.firstTokenDelayMs);
    chunk({ role: 'assistant', content: '' });
    for (const piece of reply.content.match(/\S+\s*/g) ?? []) chunk({ content: piece });
    for (const call of toolCalls) {
      const half = Math.ceil(call.arguments.length / 2);
      chunk({
        tool_calls: [
          {
            index: call.index,
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: call.arguments.slice(0, half) },
          },
        ],
      });
      chunk({ tool_calls: [{ index: call.index, function: { arguments: call.arguments.slice(half) } }] });
    }
    chunk({}, toolCalls.length ? 'tool_calls' : 'stop');
    response.end('data: [DONE]\n\n');
  }

  async function speech(body: { input?: string; response_format?: string }, response: ServerResponse): Promise<void> {
    if (body.response_format !== 'pcm')
      return error(response, 400, 'This fake serves response_format "pcm" only.', 'invalid_request_error');
    // OpenAI's pcm format: 24 kHz, 16-bit little-endian mono.
    const samples = synthesizeSpeech(String(body.input ?? ''), 24_000);
    const pcm = Buffer.alloc(samples.length * 2);
    samples.forEach((sample, i) => pcm.writeInt16LE(sample, i * 2));
    response.writeHead(200, { 'Content-Type': 'audio/pcm', 'Transfer-Encoding': 'chunked' });
    if (options.firstTokenDelayMs) await sleep(options.firstTokenDelayMs);
    for (let offset = 0; offset < pcm.length; offset += 4800) response.write(pcm.subarray(offset, offset + 4800));
    response.end();
  }

  const connecting = connectionDelay(options.connectDelayMs);
  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    await connecting(request);
    if (request.headers.authorization !== `Bearer ${options.apiKey}`)
      return error(response, 401, 'Incorrect API key provided.', 'invalid_request_error');
    const chunks: Buffer[] = [];
    for await (const piece of request) chunks.push(piece as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (request.method === 'POST' && path === '/v1/chat/completions') return chat(body, response);
    if (request.method === 'POST' && path === '/v1/audio/speech') return speech(body, response);
    if (request.method === 'GET' && path === '/v1/models') {
      modelListings += 1;
      const model = { id: 'fake-chat', object: 'model', created: 0, owned_by: 'system' };
      return void response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify({ object: 'list', data: [model] }));
    }
    if (
      request.method === 'POST' &&
      path === '/fake/faults' &&
      typeof body.system_contains === 'string' &&
      body.system_contains
    ) {
      faults.push(body.system_contains);
      return void response.writeHead(204).end();
    }
    error(response, 404, `Unknown path ${path}`, 'invalid_request_error');
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((failure: unknown) => {
      if (!response.headersSent) error(response, 500, String(failure), 'server_error');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    chatRequests,
    faults,
    modelListings: () => modelListings,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
