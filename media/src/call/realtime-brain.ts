/**
 * The realtime brain: a speech-to-speech model (OpenAI's Realtime API, agent/openai-realtime.ts)
 * that hears the caller itself and answers in its own voice. The rest of the call is the
 * cascade's pipeline: the session's turn detection and transcripts are the caller's turns
 * (caller-turns.ts, through the session's `listener`), each answer is a response of the model
 * whose audio the reply plays (reply.ts: what played, marks, the recording, the live tap), its
 * tool calls run through the same tools (agent-tools.ts), and the fixed phrases are said by the
 * model word for word (the session's `voice`). A barge-in is the model's own turn detection
 * (`speech_started`) through the reply's rules (words not interruptible are not cut); the model
 * is told what the caller did not hear (`conversation.item.truncate`). A conversation flow steers
 * it as it steers the prompt brain (flow-brain.ts): the step's instructions and tools (its
 * transition functions among them) go to the session (`session.update`) whenever the step changes,
 * and the tool calls run through the flow.
 */
import type { RealtimeServerEvent } from 'openai/resources/realtime/realtime';
import type { SpeechToSpeechUsage } from '../../../shared/domain/speech-to-speech-cost.ts';
import { knowledgeSection } from '../agent/call-plan.ts';
import { ProviderError, type ChatMessage, type ToolDefinition } from '../agent/interfaces.ts';
import { failureOf, type RealtimeCall } from '../agent/openai-realtime.ts';
import type { AgentTools } from './agent-tools.ts';
import type { Answer, Brain, HeardMessage } from './brain.ts';
import type { LogFn, PreparedCall } from './call-types.ts';
import type { LiveEvent } from './live-tap.ts';
import { FILLER_AFTER_MS, MODEL_ANSWER_LIMIT_MS, type Steering } from './prompt-brain.ts';
import type { Speaker } from './reply.ts';
import { NO_TRACE, type LatencyTrace } from './turn-latency.ts';

/** How the caller's turns the model did not hear begin: keys pressed, a text sent. */
const TOLD_IN_WORDS = ['(The caller pressed ', '(The caller texted: '];

const MAX_TOOL_ROUNDS = 4;

/**
 * How long after the caller's voice stopped the agent's paused audio waits for their words (the
 * model's transcript of the turn) before it plays on as if none came: LiveKit agents' default
 * `false_interruption_timeout`.
 */
export const FALSE_INTERRUPTION_TIMEOUT_MS = 2000;

export interface RealtimeBrainOptions {
  timing?: { fillerAfterMs?: number; modelAnswerLimitMs?: number; falseInterruptionMs?: number };
  tools: AgentTools;
  speaker: Speaker;
  /** The call's time (ms from its start): where the audio played when the caller cut in. */
  nowMs(): number;
  sessionEvent(event: LiveEvent): void;
  isEnded(): boolean;
  log: LogFn;
  runRef(): string | null;
  trace?: LatencyTrace;
  /** Default: the call's prompt and tools; a flow's current step instead (flow-brain.ts). */
  steering?: Steering;
}

/** The audio of one output item as the reply plays it, and how much of it went to the reply. */
interface SpokenItem {
  itemId: string;
  transcript: string;
  /** Audio handed to the reply (ms): at a cut, what played is this less what was still queued. */
  audioMs: number;
}

export class RealtimeBrain implements Brain {
  private readonly session: RealtimeCall;
  /** The output item playing or last played: what a barge-in truncates. */
  private speaking: SpokenItem | null = null;
  /**
   * The answer just given spoke an item of the model's own: its words are in the model's
   * conversation already (a cut one truncated there), even when the answer was cut while it still
   * streamed and never learnt its transcript.
   */
  private modelSpoke = false;
  /** What was said, both sides (a warm transfer's summary, a flow's final extraction). */
  private readonly history: ChatMessage[] = [];
  private readonly steering: Steering;
  /** The caller's voice stopped with the agent paused: plays on at this timer unless their words came. */
  private wordsAwaited: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly call: PreparedCall,
    private readonly options: RealtimeBrainOptions,
  ) {
    const session = call.providers.realtime;
    if (!session) throw new Error('the realtime engine needs its session');
    this.session = session;
    const { plan } = call;
    this.steering = options.steering ?? {
      systemPrompt: () => plan.systemPrompt,
      tools: () => plan.tools,
      knowledge: (query) => plan.knowledge(query),
      runTool: (answer, toolCall, waiting) => options.tools.run(answer, toolCall, waiting),
    };
    session.agent = {
      instructions: this.steering.systemPrompt(),
      tools: this.steering.tools(),
      voice: plan.settings.voice,
      language: plan.settings.language,
    };
    session.on((event) => this.onEvent(event));
    options.speaker.onCallerCut((unheardMs) => this.truncate(unheardMs));
  }

  /** The conversation so far, as the caller heard it (a flow's final extraction reads it). */
  get conversation(): readonly ChatMessage[] {
    return this.history;
  }

  flowPath(): null {
    return null;
  }

  /** The session's tokens, every response's (the run's cost). */
  usage(): SpeechToSpeechUsage {
    return this.session.usage();
  }

  interruptible(): boolean {
    return true;
  }

  /**
   * The model heard the caller itself (its transcript is the turn); what it cannot hear, keys
   * pressed (keypad.ts) and a text the caller sent (callerTextTurn), is told in words.
   */
  hearCaller(text: string): void {
    this.history.push({ role: 'user', content: text });
    if (TOLD_IN_WORDS.some((prefix) => text.startsWith(prefix)))
      void this.session.send({
        type: 'conversation.item.create',
        item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
      });
  }

  addNote(content: string): void {
    this.history.push({ role: 'system', content });
    void this.session.send({
      type: 'conversation.item.create',
      item: { type: 'message', role: 'system', content: [{ type: 'input_text', text: content }] },
    });
  }

  restore(history: ChatMessage[], note: string): void {
    for (const message of history)
      if ((message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string') {
        this.history.push(message);
        this.remember(message.role, message.content);
      }
    this.addNote(note);
  }

  /**
   * What the caller heard of an answer. The model's own answers are in its conversation already
   * (a cut one truncated there); a fixed phrase is not: it goes in as the agent's words.
   */
  heardAgent(text: string): HeardMessage {
    this.history.push({ role: 'assistant', content: text });
    const own = this.modelSpoke;
    this.modelSpoke = false;
    if (!own) this.remember('assistant', text);
    return { content: text };
  }

  async summary(): Promise<string> {
    const said = this.history
      .filter((message) => message.role !== 'system')
      .map((message) => `${message.role === 'user' ? 'Caller' : 'Agent'}: ${String(message.content)}`);
    return `A caller handed over by the voice agent. The conversation: ${said.slice(-10).join(' / ')}`.slice(0, 2000);
  }

  /** Responses of the model until one says its last words without calling a tool. */
  async answer(answer: Answer, userText: string | null): Promise<void> {
    const passages = userText ? this.steering.knowledge(userText) : [];
    if (passages.length) {
      this.call.runLog?.(
        'INFO',
        `Knowledge used for "${userText}": ${passages.map((passage) => `[${passage.title}] ${passage.text.slice(0, 120)}`).join(' | ')}`,
      );
      this.options.sessionEvent({ event: 'knowledge', passages: passages.map(({ title, text }) => ({ title, text })) });
    }
    this.modelSpoke = false;
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      // Read each round: a tool call may have moved a flow on to another step.
      const instructions = this.steering.systemPrompt();
      this.steer(instructions, this.steering.tools());
      // The turn's knowledge goes with this answer's instructions only, as the cascade's system prompt of the turn.
      const { transcript, toolCalls } = await this.response(answer, instructions + knowledgeSection(passages));
      if (answer.signal.aborted) return;
      if (transcript) answer.finalWords(transcript);
      if (!toolCalls.length) return;
      for (const toolCall of toolCalls) {
        const trace = this.options.trace ?? NO_TRACE;
        trace.tool(toolCall.name, 'start');
        const result = await this.steering.runTool(answer, toolCall, () => this.fillerAfterWait(answer));
        trace.tool(toolCall.name, 'end');
        await this.session.send({
          type: 'conversation.item.create',
          item: { type: 'function_call_output', call_id: toolCall.callId, output: result },
        });
        this.options.sessionEvent({ event: 'tool_call', name: toolCall.name, arguments: toolCall.arguments, result });
      }
      if (answer.hangingUp || answer.signal.aborted) return;
    }
  }

  /** The session's instructions and tools, updated when they changed (a flow's step entered). */
  private steer(instructions: string, tools: ToolDefinition[]): void {
    const agent = this.session.agent!;
    const same = (a: ToolDefinition[], b: ToolDefinition[]) => JSON.stringify(a) === JSON.stringify(b);
    if (agent.instructions === instructions && same(agent.tools, tools)) return;
    this.session.update({ instructions, tools });
  }

  /**
   * One response: its audio items said as they stream (each with the model's transcript of it),
   * its function calls collected. Bounded in time like the cascade's model: the filler after 2 s
   * of nothing, a failure after 10 s without a start.
   */
  private async response(
    answer: Answer,
    instructions: string,
  ): Promise<{ transcript: string; toolCalls: { name: string; arguments: string; callId: string }[] }> {
    const toolCalls: { name: string; arguments: string; callId: string }[] = [];
    const items = new Map<string, { spoken: SpokenItem; push: (chunk: Uint8Array | null) => void }>();
    let transcript = '';
    let responseId: string | null = null;
    const early: RealtimeServerEvent[] = [];
    let settle!: (error: Error | null) => void;
    const done = new Promise<Error | null>((resolve) => (settle = resolve));
    const trace = this.options.trace ?? NO_TRACE;
    // An output item is said from its first event: its transcript's deltas may come before its audio's.
    const itemOf = (itemId: string) => {
      let item = items.get(itemId);
      if (!item) {
        item = this.speakItem(answer, itemId);
        items.set(itemId, item);
      }
      return item;
    };
    const take = (event: RealtimeServerEvent) => {
      switch (event.type) {
        case 'response.output_audio.delta': {
          if (event.response_id !== responseId) return;
          // The model speaks itself: its first audio is its first sentence (the model's time), and
          // the reply takes it as the first audio byte at once (text to speech about 0).
          trace.mark('model_first_token');
          trace.mark('first_sentence');
          return itemOf(event.item_id).push(Buffer.from(event.delta, 'base64'));
        }
        case 'response.output_audio_transcript.delta':
          if (event.response_id === responseId) itemOf(event.item_id).spoken.transcript += event.delta;
          return;
        case 'response.output_audio_transcript.done':
          if (event.response_id === responseId) itemOf(event.item_id).spoken.transcript = event.transcript;
          return;
        case 'response.function_call_arguments.done':
          if (event.response_id === responseId)
            toolCalls.push({ name: event.name, arguments: event.arguments, callId: event.call_id });
          return;
        case 'response.done':
          if (event.response.id !== responseId) return;
          for (const item of items.values()) item.push(null);
          transcript = [...items.values()]
            .map((item) => item.spoken.transcript.trim())
            .filter(Boolean)
            .join(' ');
          return settle(
            event.response.status === 'failed' ? new ProviderError(this.session.name, failureOf(event.response)) : null,
          );
      }
    };
    const stop = this.session.on((event) => (responseId === null ? early.push(event) : take(event)));
    const filler = this.fillerAfterWait(answer);
    const limitMs = this.options.timing?.modelAnswerLimitMs ?? MODEL_ANSWER_LIMIT_MS;
    const limit = setTimeout(
      () => settle(new ProviderError(this.session.name, `no answer within ${limitMs / 1000} s`)),
      limitMs,
    );
    const aborted = () => settle(null);
    answer.signal.addEventListener('abort', aborted);
    try {
      const created = await Promise.race([this.session.respond({ instructions }), done.then(() => null)]);
      if (created === null) {
        const failure = await done;
        if (failure && !answer.signal.aborted) throw failure;
        return { transcript: '', toolCalls: [] };
      }
      responseId = created;
      clearTimeout(limit);
      for (const event of early.splice(0)) take(event);
      const failure = await done;
      if (answer.signal.aborted) {
        for (const item of items.values()) item.push(null);
        void this.session.send({ type: 'response.cancel', response_id: responseId }).catch(() => {});
        return { transcript: '', toolCalls: [] };
      }
      if (failure) throw failure;
      return { transcript, toolCalls };
    } finally {
      stop();
      filler.cancel();
      clearTimeout(limit);
      answer.signal.removeEventListener('abort', aborted);
    }
  }

  /** An output item's audio said as it streams, its words the model's transcript of it. */
  private speakItem(answer: Answer, itemId: string) {
    const spoken: SpokenItem = { itemId, transcript: '', audioMs: 0 };
    this.speaking = spoken;
    this.modelSpoke = true;
    const queue: (Uint8Array | null)[] = [];
    let wake: (() => void) | null = null;
    const push = (chunk: Uint8Array | null) => {
      queue.push(chunk);
      wake?.();
    };
    answer.say(
      '…',
      async function* () {
        for (;;) {
          if (!queue.length) await new Promise<void>((resolve) => (wake = resolve));
          const chunk = queue.shift();
          if (chunk === undefined) continue;
          if (chunk === null) return;
          spoken.audioMs += chunk.length / 8; // 8 kHz mu-law: 8 bytes a millisecond
          yield chunk;
        }
      },
      { interruptible: true, words: () => spoken.transcript.trim() },
    );
    return { spoken, push };
  }

  /**
   * The model's turn detection heard the caller's voice: the agent's audio pauses (words not
   * interruptible play on), since a cough or a "mhm" must not cut it. The caller's words decide
   * (the call's backchannel rule, caller-turns.ts): real words cut it, none or backchannels only
   * play it on; so does no transcript within FALSE_INTERRUPTION_TIMEOUT_MS of their voice stopping.
   */
  private onEvent(event: RealtimeServerEvent): void {
    switch (event.type) {
      case 'input_audio_buffer.speech_started':
        this.stopAwaitingWords();
        return this.options.speaker.pause();
      case 'input_audio_buffer.speech_stopped':
        if (!this.options.speaker.paused) return;
        this.wordsAwaited = setTimeout(() => {
          this.wordsAwaited = null;
          this.options.speaker.unpause();
        }, this.options.timing?.falseInterruptionMs ?? FALSE_INTERRUPTION_TIMEOUT_MS);
        return;
      case 'conversation.item.input_audio_transcription.completed':
        return this.stopAwaitingWords();
      case 'error':
        this.options.log('warn', 'realtime session error', {
          runRef: this.options.runRef(),
          error: event.error.message,
        });
    }
  }

  private stopAwaitingWords(): void {
    if (this.wordsAwaited) clearTimeout(this.wordsAwaited);
    this.wordsAwaited = null;
  }

  /** The caller cut the agent: the model keeps only the audio the caller heard of its item. */
  private truncate(unheardMs: number): void {
    const item = this.speaking;
    if (!item) return;
    this.speaking = null;
    const heardMs = Math.max(0, Math.floor(item.audioMs - unheardMs));
    this.call.runLog?.(
      'INFO',
      `The caller cut in: the model keeps the ${heardMs} ms of its answer that played (of ${Math.floor(item.audioMs)} ms sent)`,
    );
    void this.session.send({
      type: 'conversation.item.truncate',
      item_id: item.itemId,
      content_index: 0,
      audio_end_ms: heardMs,
    });
  }

  /** Words said into the model's conversation (a fixed phrase, a conversation taken back). */
  private remember(role: 'user' | 'assistant', text: string): void {
    void this.session.send({
      type: 'conversation.item.create',
      item:
        role === 'user'
          ? { type: 'message', role, content: [{ type: 'input_text', text }] }
          : { type: 'message', role, content: [{ type: 'output_text', text }] },
    });
  }

  private fillerAfterWait(answer: Answer): { cancel: () => void } {
    const timer = setTimeout(() => {
      if (!answer.saidAnything && !answer.signal.aborted && !this.options.isEnded())
        answer.say(this.call.plan.phrases.oneMoment);
    }, this.options.timing?.fillerAfterMs ?? FILLER_AFTER_MS);
    return { cancel: () => clearTimeout(timer) };
  }
}
