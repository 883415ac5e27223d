/**
 * The flow brain: the agent's model steered through a conversation flow (shared/domain/flows.ts),
 * step by step. In each step the model gets the step's prompt with the global instructions and only
 * the step's tools; it extracts the step's variables with `save_variables` and moves the call on by
 * calling a transition's function (`go_to_<node>`). A variable test (an edge's expression) is
 * checked first: when a caller's turn is answered and whenever variables are saved. An end step
 * says its closing words and hangs up with its disposition; a transfer step hands the call to the
 * agent's transfer destination. The caller may end the call from any step (`end_call`, with the
 * call's closing). The model's streaming, its tool rounds and the filler are the
 * prompt brain's (prompt-brain.ts), which this steers; for an agent of the realtime engine, the
 * realtime brain's (realtime-brain.ts: the step's instructions and tools go to its session).
 */
import {
  chooseTransition,
  coerceVariable,
  deterministicTransition,
  modelTransitions,
  nodeById,
  startNode,
  type TakenTransition,
} from '../../../shared/domain/flow-transitions.ts';
import type { FlowDefinition, FlowNode, FlowPathStep, FlowVariable } from '../../../shared/domain/flows.ts';
import { isConversationNode } from '../../../shared/domain/flows.ts';
import type { SpeechToSpeechUsage } from '../../../shared/domain/speech-to-speech-cost.ts';
import type { ChatMessage } from '../agent/interfaces.ts';
import {
  END_CALL,
  FINAL_EXTRACTION_PROMPT,
  SAVE_VARIABLES,
  saveVariablesTool,
  stepSystemPrompt,
  stepTools,
} from '../agent/flow-plan.ts';
import { boundedContext } from '../agent/context-window.ts';
import { parseObject, type ToolCall } from './agent-tools.ts';
import { wrapAnswer, type Answer, type Brain, type HeardMessage } from './brain.ts';
import type { PreparedCall } from './call-types.ts';
import { MODEL_ANSWER_LIMIT_MS, PromptBrain, type PromptBrainOptions, type Steering } from './prompt-brain.ts';

/** The brain a flow steers: it answers in the step the steering gives, and keeps the conversation. */
export type SteeredBrain = Brain & { readonly conversation: readonly ChatMessage[] };

export interface FlowBrainOptions extends Omit<PromptBrainOptions, 'steering'> {
  /** What the call gathers (`gathered_context`): the flow's variables and the disposition. */
  gathered: Record<string, unknown>;
  /** Variables known before the call (its details, and what the pre-call fetch gave). */
  variables: Record<string, unknown>;
  /** The call is ending: nothing new starts. */
  closing(): void;
  /** Notes the transfer to carry out after the handoff phrase (handoff.ts). */
  transfer(
    destination: NonNullable<PreparedCall['plan']['transfer']>['destinations'][number],
    reason: string,
  ): Promise<void>;
  /** Wall time, ISO 8601 (the path's timestamps). */
  now(): string;
  /** The brain steered (the realtime engine's); default the prompt brain with these options. */
  steered?(steering: Steering): SteeredBrain;
}

type Move = 'moved' | 'ended' | { refused: string };

export class FlowBrain implements Brain {
  private readonly inner: SteeredBrain;
  private readonly flow: FlowDefinition;
  private readonly path: FlowPathStep[] = [];
  private node: FlowNode;

  constructor(
    private readonly call: PreparedCall,
    private readonly options: FlowBrainOptions,
  ) {
    this.flow = call.plan.flow!;
    this.node = startNode(this.flow);
    this.path.push(this.stepOf(this.node));
    const steering: Steering = {
      systemPrompt: () =>
        isConversationNode(this.node)
          ? stepSystemPrompt(call.plan, this.flow, this.node, options.gathered, options.variables)
          : '',
      tools: () => (isConversationNode(this.node) ? stepTools(call.plan, this.flow, this.node) : []),
      knowledge: (query) => call.plan.knowledge(query, isConversationNode(this.node) ? this.node.documents : undefined),
      runTool: (answer, toolCall, waiting) => this.runTool(answer, toolCall, waiting),
    };
    this.inner = options.steered?.(steering) ?? new PromptBrain(call, { ...options, steering });
    call.runLog?.('INFO', `Flow: the call starts in "${this.node.name}"`);
    options.sessionEvent({ event: 'flow_step', node_id: this.node.id, name: this.node.name, from: null, reason: null });
  }

  /** The step the call is in. */
  get step(): { id: string; name: string } {
    return { id: this.node.id, name: this.node.name };
  }

  interruptible(): boolean {
    return !isConversationNode(this.node) || this.node.interruptible !== false;
  }

  flowPath(): FlowPathStep[] {
    return this.path.map((step) => ({ ...step }));
  }

  hearCaller(text: string): void {
    this.inner.hearCaller(text);
  }

  addNote(content: string): void {
    this.inner.addNote(content);
  }

  restore(history: ChatMessage[], note: string): void {
    this.inner.restore(history, note);
  }

  heardAgent(text: string): HeardMessage {
    return this.inner.heardAgent(text);
  }

  summary(): Promise<string> {
    return this.inner.summary();
  }

  /** The steered brain's tokens (a realtime model's: the run's cost). */
  usage(): SpeechToSpeechUsage | null {
    return this.inner.usage();
  }

  /** A variable test first (the step may be complete already), then the model in the step the call is in. */
  async answer(answer: Answer, userText: string | null): Promise<void> {
    const steered = this.inStep(answer);
    const taken = deterministicTransition(this.flow, this.node, this.options.gathered);
    if (taken && (await this.take(taken, steered)) === 'ended') return;
    await this.inner.answer(steered, userText);
  }

  /** The answer, its words marked not interruptible while the step they are said in is (reply.ts). */
  private inStep(answer: Answer): Answer {
    return wrapAnswer(answer, {
      say: (text, audio, options) => answer.say(text, audio, { ...options, interruptible: this.interruptible() }),
    });
  }

  private async runTool(answer: Answer, toolCall: ToolCall, waiting: () => { cancel: () => void }): Promise<string> {
    const node = this.node;
    if (!isConversationNode(node)) return JSON.stringify({ error: 'the call has left the conversation' });
    const offered = new Set(stepTools(this.call.plan, this.flow, node).map((tool) => tool.name));
    if (!offered.has(toolCall.name))
      return JSON.stringify({ error: `${toolCall.name} is not offered in the step "${node.name}"` });
    if (toolCall.name === SAVE_VARIABLES) {
      const saved = this.save(node.extract ?? [], toolCall.arguments);
      const taken = deterministicTransition(this.flow, node, this.options.gathered);
      const moved = taken ? await this.take(taken, answer) : null;
      return JSON.stringify({
        ok: true,
        saved,
        ...(moved === 'moved' ? { step: this.node.name } : moved === 'ended' ? { ended: true } : {}),
      });
    }
    if (toolCall.name === END_CALL) this.endedByCaller(answer);
    const transition = modelTransitions(this.flow, node.id).find(
      (candidate) => candidate.functionName === toolCall.name,
    );
    if (transition) {
      const chosen = chooseTransition(transition, node, this.options.gathered);
      if ('refused' in chosen) return JSON.stringify({ error: chosen.refused });
      const moved = await this.take(chosen, answer);
      if (typeof moved === 'object') return JSON.stringify({ error: moved.refused });
      return JSON.stringify(moved === 'ended' ? { ok: true, ended: true } : { ok: true, step: this.node.name });
    }
    return this.options.tools.run(answer, toolCall, waiting);
  }

  /** Saves the variables the model gave, each as its type wants it; the names saved. */
  private save(variables: FlowVariable[], json: string): string[] {
    const args = parseObject(json);
    const saved: string[] = [];
    for (const variable of variables) {
      const value = coerceVariable(variable.type, args[variable.name]);
      if (value === undefined) continue;
      this.options.gathered[variable.name] = value;
      saved.push(variable.name);
    }
    if (saved.length)
      this.call.runLog?.(
        'INFO',
        `Flow: "${this.node.name}" extracted ${saved.map((name) => `${name}=${JSON.stringify(this.options.gathered[name])}`).join(', ')}`,
      );
    return saved;
  }

  /**
   * Takes an edge: into a conversation step (the model goes on there), an end (closing words,
   * disposition, final extraction, hang-up) or a transfer. A transfer the call cannot make (a
   * chat, no destination) is refused and the call stays where it is.
   */
  private async take({ edge, reason }: TakenTransition, answer: Answer): Promise<Move> {
    const target = nodeById(this.flow, edge.target)!;
    const { plan } = this.call;
    if (target.type === 'transferCall') {
      const destinations = plan.transfer?.destinations ?? [];
      const destination = destinations.find((item) => item.name === target.destination) ?? destinations[0];
      if (!destination) return { refused: 'this call cannot be transferred' };
      this.enter(target, edge, reason);
      await this.options.transfer(destination, reason);
      answer.say(plan.phrases.transferring);
      answer.hangUp();
      this.options.closing();
      return 'ended';
    }
    this.enter(target, edge, reason);
    if (target.type !== 'endCall') return 'moved';
    this.options.closing();
    if (target.disposition) {
      this.options.gathered.call_disposition = target.disposition;
      this.call.runLog?.('INFO', `Disposition set by the flow: ${target.disposition}`);
    }
    answer.say(target.closing ?? plan.phrases.closing);
    answer.finalWords(target.closing ?? plan.phrases.closing);
    answer.hangUp();
    if (target.extract?.length) await this.finalExtraction(target.extract, answer.signal);
    return 'ended';
  }

  /**
   * The caller wants to end the call in a step that is not an end: the call ends there (the path's
   * last step, with why), with the call's closing unless the model said its own last words; the
   * hang-up itself is the agent's `end_call` (agent-tools.ts).
   */
  private endedByCaller(answer: Answer): void {
    const reason = 'the caller wanted to end the call';
    this.path.at(-1)!.reason = reason;
    this.call.runLog?.('INFO', `Flow: the call ends in "${this.node.name}" (${reason})`);
    if (!answer.saidAnything) {
      answer.say(this.call.plan.phrases.closing);
      answer.finalWords(this.call.plan.phrases.closing);
    }
  }

  private enter(target: FlowNode, edge: TakenTransition['edge'], reason: string): void {
    const now = this.options.now();
    const left = this.path.at(-1)!;
    Object.assign(left, {
      left_at: now,
      edge: { source: edge.source, target: edge.target, ...(edge.label ? { label: edge.label } : {}) },
      reason,
    });
    this.call.runLog?.('INFO', `Flow: "${this.node.name}" → "${target.name}" (${reason})`);
    this.node = target;
    this.path.push(this.stepOf(target, now));
    this.options.sessionEvent({
      event: 'flow_step',
      node_id: target.id,
      name: target.name,
      from: edge.source,
      reason,
    });
  }

  private stepOf(node: FlowNode, at = this.options.now()): FlowPathStep {
    return { node_id: node.id, name: node.name, entered_at: at, left_at: null, edge: null, reason: null };
  }

  /** The end step's variables, from the whole conversation: one model round with only `save_variables`. */
  private async finalExtraction(variables: FlowVariable[], signal: AbortSignal): Promise<void> {
    const { providers, plan } = this.call;
    const request = {
      model: plan.settings.model ?? providers.llm.defaultModel,
      temperature: 0,
      tools: [saveVariablesTool(variables, true)],
      messages: [
        { role: 'system' as const, content: FINAL_EXTRACTION_PROMPT },
        ...boundedContext(
          this.inner.conversation.filter(
            (message) =>
              (message.role === 'user' || message.role === 'assistant') && typeof message.content === 'string',
          ),
        ),
      ],
    };
    try {
      const limit = AbortSignal.any([
        signal,
        AbortSignal.timeout(this.options.timing?.modelAnswerLimitMs ?? MODEL_ANSWER_LIMIT_MS),
      ]);
      for await (const event of providers.llm.stream(request, limit))
        if (event.type === 'tool_call' && event.name === SAVE_VARIABLES) this.save(variables, event.arguments);
    } catch (error) {
      this.options.log('warn', 'the final extraction failed', { runRef: this.options.runRef(), error: String(error) });
    }
  }
}
