/**
 * The prompt brain: the agent's model, streamed, with the call's knowledge and tools. Each
 * complete sentence of its answer is said while it writes the next; its tool calls run between
 * rounds. A model slow to answer gets the filler; one that has not started answering in time has
 * failed.
 */
import {
  ProviderError,
  type ChatMessage,
  type ModelEvent,
  type ModelRequest,
  type ToolDefinition,
} from '../agent/interfaces.ts';
import { knowledgeSection } from '../agent/call-plan.ts';
import { boundedContext } from '../agent/context-window.ts';
import type { Answer, Brain, HeardMessage } from './brain.ts';
import type { AgentTools, ToolCall } from './agent-tools.ts';
import type { LogFn, PreparedCall } from './call-types.ts';
import type { LiveEvent } from './live-tap.ts';
import { sentenceEnd } from './spoken-text.ts';
import { NO_TRACE, type LatencyTrace } from './turn-latency.ts';

const MAX_TOOL_ROUNDS = 4;
/** A model silent this long after a caller's turn gets the "one moment" filler (wall time). */
export const FILLER_AFTER_MS = 2000;
/** A model that has not started answering this long after being asked has failed (wall time). */
export const MODEL_ANSWER_LIMIT_MS = 10_000;

/** What the model is asked for a warm transfer without a message of its own. */
const TRANSFER_SUMMARY_PROMPT =
  'You hand this call to a colleague taking over. In one or two sentences for them, say who is calling and what they need, from the conversation. No greeting.';

/**
 * What the model is given each round and how its tool calls run: by default the call's prompt and
 * tools (the plan); a flow's current step instead (flow-brain.ts). Read each round: a tool call
 * may move a flow on to another step within one answer.
 */
export interface Steering {
  /** The system prompt, before the knowledge section. */
  systemPrompt(): string;
  tools(): ToolDefinition[];
  /** The knowledge passages for the caller's words. */
  knowledge(query: string): { title: string; text: string }[];
  /** Runs one tool call; its result for the model. `waiting` starts the filler for a slow tool. */
  runTool(answer: Answer, toolCall: ToolCall, waiting: () => { cancel: () => void }): Promise<string>;
}

export interface PromptBrainOptions {
  /** A chat shows its own "typing": no filler. */
  chat: boolean;
  /** Wall-time bounds on the model (tests shorten them). */
  timing?: { fillerAfterMs?: number; modelAnswerLimitMs?: number };
  tools: AgentTools;
  /** `knowledge` and `tool_call` events, for the session's client and listeners. */
  sessionEvent(event: LiveEvent): void;
  isEnded(): boolean;
  log: LogFn;
  runRef(): string | null;
  /** The turn's latency marks: the model's first token, the first sentence, the tool calls. */
  trace?: LatencyTrace;
  /** Default: the call's prompt and tools. */
  steering?: Steering;
}

export class PromptBrain implements Brain {
  private readonly history: ChatMessage[] = [];
  private readonly steering: Steering;

  constructor(
    private readonly call: PreparedCall,
    private readonly options: PromptBrainOptions,
  ) {
    const { plan } = call;
    this.steering = options.steering ?? {
      systemPrompt: () => plan.systemPrompt,
      tools: () => plan.tools,
      knowledge: (query) => plan.knowledge(query),
      runTool: (answer, toolCall, waiting) => options.tools.run(answer, toolCall, waiting),
    };
  }

  /** The conversation so far (a flow's final extraction reads it). */
  get conversation(): readonly ChatMessage[] {
    return this.history;
  }

  flowPath(): null {
    return null;
  }

  usage(): null {
    return null;
  }

  interruptible(): boolean {
    return true;
  }

  hearCaller(text: string): void {
    this.history.push({ role: 'user', content: text });
  }

  retractCaller(text: string): void {
    const index = this.history.findLastIndex((message) => message.role === 'user' && message.content === text);
    if (index >= 0) this.history.splice(index, 1);
  }

  addNote(content: string): void {
    this.history.push({ role: 'system', content });
  }

  restore(history: ChatMessage[], note: string): void {
    this.history.push(...history, { role: 'system', content: note });
  }

  heardAgent(text: string): HeardMessage {
    const message = { role: 'assistant' as const, content: text };
    this.history.push(message);
    return message;
  }

  /** The model's answer to the conversation so far, with its tool calls, spoken as it streams. */
  async answer(answer: Answer, userText: string | null): Promise<void> {
    const call = this.call;
    const { plan, providers } = call;
    const { steering } = this;
    const passages = userText ? steering.knowledge(userText) : [];
    if (passages.length) {
      call.runLog?.(
        'INFO',
        `Knowledge used for "${userText}": ${passages.map((passage) => `[${passage.title}] ${passage.text.slice(0, 120)}`).join(' | ')}`,
      );
      this.options.sessionEvent({ event: 'knowledge', passages: passages.map(({ title, text }) => ({ title, text })) });
    }
    const knowledge = knowledgeSection(passages);
    const trace = this.options.trace ?? NO_TRACE;
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      let text = '';
      let unspoken = '';
      const toolCalls: { id: string; name: string; arguments: string }[] = [];
      const request = {
        model: plan.settings.model ?? providers.llm.defaultModel,
        temperature: plan.settings.temperature,
        tools: steering.tools(),
        messages: [
          { role: 'system' as const, content: steering.systemPrompt() + knowledge },
          ...boundedContext(this.history),
        ],
      };
      for await (const event of this.modelAnswer(answer, request)) {
        if (event.type === 'tool_call') {
          toolCalls.push(event);
          continue;
        }
        text += event.text;
        unspoken += event.text;
        // Speak each complete sentence while the model writes the next.
        for (let cut = sentenceEnd(unspoken); cut > 0; cut = sentenceEnd(unspoken)) {
          trace.mark('first_sentence');
          answer.say(unspoken.slice(0, cut));
          unspoken = unspoken.slice(cut);
        }
      }
      if (answer.signal.aborted) return;
      if (unspoken.trim()) {
        trace.mark('first_sentence');
        answer.say(unspoken);
      }
      if (!toolCalls.length) {
        answer.finalWords(text);
        return;
      }
      // An early answer runs no tool before the caller's turn has surely ended.
      if (answer.turnSettled && !(await answer.turnSettled)) return;
      if (answer.signal.aborted) return;
      this.history.push({
        role: 'assistant',
        content: text || null,
        tool_calls: toolCalls.map((toolCall) => ({
          id: toolCall.id,
          type: 'function',
          function: { name: toolCall.name, arguments: toolCall.arguments },
        })),
      });
      for (const toolCall of toolCalls) {
        trace.tool(toolCall.name, 'start');
        const result = await steering.runTool(answer, toolCall, () => this.fillerAfterWait(answer));
        trace.tool(toolCall.name, 'end');
        this.history.push({ role: 'tool', tool_call_id: toolCall.id, content: result });
        this.options.sessionEvent({ event: 'tool_call', name: toolCall.name, arguments: toolCall.arguments, result });
      }
      if (answer.hangingUp || answer.signal.aborted) return;
    }
  }

  /** A warm transfer's message when the destination has none: the model's summary of the call so far. */
  async summary(): Promise<string> {
    const { providers, plan } = this.call;
    const conversation = this.history.filter(
      (message) => (message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string',
    );
    let text = '';
    try {
      const request = {
        model: plan.settings.model ?? providers.llm.defaultModel,
        temperature: 0,
        tools: [],
        messages: [{ role: 'system' as const, content: TRANSFER_SUMMARY_PROMPT }, ...boundedContext(conversation)],
      };
      const limit = AbortSignal.timeout(this.options.timing?.modelAnswerLimitMs ?? MODEL_ANSWER_LIMIT_MS);
      for await (const event of providers.llm.stream(request, limit))
        if (event.type !== 'tool_call') text += event.text;
    } catch (error) {
      this.options.log('warn', 'no summary for the warm transfer', {
        runRef: this.options.runRef(),
        error: String(error),
      });
    }
    return text.trim() || 'A caller handed over by the voice agent.';
  }

  /**
   * The model's answer, bounded in time: with nothing spoken yet after FILLER_AFTER_MS the caller
   * hears the filler, and a model that has not started answering after MODEL_ANSWER_LIMIT_MS has
   * failed (the call ends with the apology rather than a long silence).
   */
  private async *modelAnswer(answer: Answer, request: ModelRequest): AsyncIterable<ModelEvent> {
    const { providers } = this.call;
    const deadline = new AbortController();
    const filler = this.fillerAfterWait(answer);
    const limitMs = this.options.timing?.modelAnswerLimitMs ?? MODEL_ANSWER_LIMIT_MS;
    const limit = setTimeout(() => deadline.abort(), limitMs);
    try {
      for await (const event of providers.llm.stream(request, AbortSignal.any([answer.signal, deadline.signal]))) {
        filler.cancel();
        clearTimeout(limit);
        this.options.trace?.mark('model_first_token');
        yield event;
      }
      if (deadline.signal.aborted && !answer.signal.aborted)
        throw new ProviderError(providers.llm.name, `no answer within ${limitMs / 1000} s`);
    } finally {
      filler.cancel();
      clearTimeout(limit);
    }
  }

  /** The filler, said once if the answer has still said nothing after FILLER_AFTER_MS. */
  private fillerAfterWait(answer: Answer): { cancel: () => void } {
    if (this.options.chat) return { cancel: () => {} }; // a chat shows its own "typing"
    const timer = setTimeout(() => {
      if (!answer.saidAnything && !answer.signal.aborted && !this.options.isEnded())
        answer.say(this.call.plan.phrases.oneMoment);
    }, this.options.timing?.fillerAfterMs ?? FILLER_AFTER_MS);
    return { cancel: () => clearTimeout(timer) };
  }
}
